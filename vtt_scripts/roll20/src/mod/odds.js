'use strict';
// `!fracas odds …`: the exact odds of the attack `!fracas attack …` with the same options
// would make, answered by the Mod script itself (no bridge) and whispered to the asker.
// Each target's remaining Body is read from its bar, for the chance it drops.
//
//   !fracas odds --target @{target|token_id} --dice 3 --style slashing --weight 1 --type edged
//   !fracas odds --ruleset cartyrion --die d6 --target @{target|token_id} --count 4 --at-least 30

const { UsageError, integer } = require('./usage');
const cards = require('./cards');
const esc = require('./escape');
const permissions = require('./permissions');
const { buildAttack, rulesetOf, findAttacker, oneValue } = require('./attack');
const { buildRowsAttack } = require('./rowsattack');
const rulesets = require('../rulesets');
const relaylink = require('./relaylink');
const { LimitError } = require('../errors');

const EXTRA = ['count', 'at-least'];
// The most work (src/odds.js's units) odds may take in the sandbox, which every Mod script
// shares. Measured in the emulator on the (loaded, 2-core) test machine at 15,000 to 390,000
// units per ms of CPU depending on the request (the meter over-counts some), cold starts
// included, 2,500,000 is at most about 170 ms there, under the issue's 200 ms. More goes to
// the bridge through the relay, or is refused.
const ODDS_BUDGET = 2500000;

function pct(p) {
  if (p > 0 && p < 0.0005) return '<0.1%';
  return `${(p * 100).toFixed(p >= 0.995 || p <= 0.005 ? 1 : 0)}%`;
}

function extras(cmd) {
  const out = { count: 1, at_least: [] };
  for (const option of cmd.options) {
    if (option.name === 'count') out.count = integer(oneValue(option), '--count', 1, 10000);
    if (option.name === 'at-least') {
      for (const v of option.values) out.at_least.push(integer(v, '--at-least', 0, 100000));
      if (!option.values.length) throw new UsageError('--at-least takes a damage value, e.g. --at-least 10');
    }
  }
  return out;
}

/** The Body left on a token's bar, or null when the bar holds no positive number. */
function bodyLeft(config, token) {
  const text = String(token.get(`bar${config.bar}_value`) === undefined ? '' : token.get(`bar${config.bar}_value`)).trim();
  if (!/^\d{1,7}$/.test(text)) return null;
  const n = Number(text);
  return n > 0 ? n : null;
}

function oddsCommand(app, msg, cmd) {
  const config = app.s().config;
  const ruleset = rulesetOf(app, cmd);
  let built;
  if (rulesets.ownClient(ruleset)) {
    built = buildAttack(app, msg, cmd, EXTRA);
  } else {
    const by = cmd.options.filter((o) => o.name === 'attacker');
    const token = findAttacker(app, msg, { attacker: by.length ? oneValue(by[0]) : undefined });
    built = buildRowsAttack(app, msg, cmd, ruleset, token, EXTRA);
  }
  const { request, names, tokens, attacker } = built;
  const { count, at_least: atLeast } = extras(cmd);
  const remaining = {};
  for (const tid of Object.keys(tokens)) {
    // A player learns no Body the GM keeps from them (an NPC's, a hidden bar): no P(drops) for it.
    if (!permissions.mayReadBody(app, msg, tokens[tid])) continue;
    const left = bodyLeft(config, tokens[tid]);
    if (left !== null) remaining[tid] = left;
  }
  const input = Object.assign({}, request, { count, remaining, at_least: atLeast });
  const rulesetTitle = rulesets.entry(ruleset).title;
  const title = `Odds: ${attacker.name}${count > 1 ? ` ×${count}` : ''} (${rulesetTitle})`;
  const toBridge = (why) => {
    const plainNames = {};
    for (const id of Object.keys(names)) plainNames[id] = String(names[id]);
    const sent = relaylink.send(app, 'attack.odds', input, { playerid: msg.playerid, title, names: plainNames });
    app.whisper(msg.playerid, cards.notice('fracas odds', [
      `${why}: asked the bridge (request ${esc.text(sent.id)}); the odds follow when it answers`]));
    return null;
  };
  // A ruleset without a JavaScript port (the spec's roll20 flag): only the bridge knows its odds.
  if (!rulesets.offline(ruleset)) return toBridge(`${esc.text(rulesetTitle)} has no offline resolver`);
  let result;
  try {
    result = rulesets.odds(input, { budget: ODDS_BUDGET });
  } catch (err) {
    if (!(err instanceof LimitError) || !err.overBudget) throw err;
    // Too much for the sandbox every Mod script shares: the bridge works it out, if linked.
    if (!app.s().relay.last_hello) {
      throw new UsageError('these odds are too much work for the Roll20 sandbox (all Mod scripts share it): ask with ' +
        'fewer strikes, dice or --count, or link the fracas relay (!fracas relay) so the bridge works them out');
    }
    return toBridge('too much work for the Roll20 sandbox');
  }
  app.whisper(msg.playerid, oddsCard(result, names, title));
  return result;
}

/** The odds card: per target P(hit), P(crit), mean, thresholds, P(drops); the strays (ER-17). */
function oddsCard(result, names, title) {
  const rows = [];
  for (const tid of Object.keys(result.targets)) {
    const t = result.targets[tid];
    const facts = [`P(hit) ${pct(t.p_hit)}`];
    if (t.p_crit !== undefined) facts.push(`P(crit) ${pct(t.p_crit)}`);
    facts.push(`mean ${t.mean.toFixed(2)} ± ${t.sd.toFixed(2)}`);
    for (const n of Object.keys(t.p_at_least)) facts.push(`P(≥${esc.text(n)}) ${pct(t.p_at_least[n])}`);
    if (t.p_drop !== undefined) facts.push(`<b>P(drops, ${Number(t.remaining)} left) ${pct(t.p_drop)}</b>`);
    const likely = t.distribution.slice().sort((a, b) => b[1] - a[1]).slice(0, 5).sort((a, b) => a[0] - b[0]);
    facts.push(`most likely: ${likely.map(([v, p]) => `${Number(v)} (${pct(p)})`).join(', ')}`);
    rows.push([names[tid] !== undefined ? names[tid] : tid, facts.join(' · ')]);
  }
  // ER-17: where a missed shot under friendly fire may land, creature by creature.
  for (const ff of result.friendly_fire || []) {
    const lines = Object.keys(ff.bystanders).map((cid) => {
      const b = ff.bystanders[cid];
      return `slot ${Number(b.slot)} ${esc.text(names[cid] || cid)}: P(hit) ${pct(b.p_hit)}` +
        (b.mean_damage !== undefined ? `, mean ${Number(b.mean_damage).toFixed(2)}` : '');
    });
    rows.push([`stray of strike ${Number(ff.strike) + 1}`, `P(miss ${esc.text(names[ff.target] || ff.target)}) ${pct(ff.p_miss)}` +
      (lines.length ? `<br>${lines.join('<br>')}` : '')]);
  }
  return cards.template(title, rows);
}

/** The bridge's answer to odds the sandbox handed over: the same card, to the one who asked. */
function showBridgeOdds(app, pending, result) {
  const meta = pending.meta || {};
  if (!result || typeof result !== 'object' || !result.targets || typeof result.targets !== 'object') {
    app.error(null, 'the bridge answered the odds with something that is not odds');
    return;
  }
  app.whisper(meta.playerid || 'gm', oddsCard(result, meta.names || {}, String(meta.title || 'Odds')));
}

relaylink.register('attack.odds', showBridgeOdds);

module.exports = { oddsCommand, bodyLeft, oddsCard, ODDS_BUDGET };
