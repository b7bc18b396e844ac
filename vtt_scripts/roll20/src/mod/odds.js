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

const EXTRA = ['count', 'at-least'];

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
  if (ruleset === 'enchanted-realms') {
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
  const result = rulesets.odds(Object.assign({}, request, { count, remaining, at_least: atLeast }));
  const rows = [];
  for (const tid of Object.keys(result.targets)) {
    const t = result.targets[tid];
    const facts = [`P(hit) ${pct(t.p_hit)}`];
    if (t.p_crit !== undefined) facts.push(`P(crit) ${pct(t.p_crit)}`);
    facts.push(`mean ${t.mean.toFixed(2)} ± ${t.sd.toFixed(2)}`);
    for (const n of Object.keys(t.p_at_least)) facts.push(`P(≥${n}) ${pct(t.p_at_least[n])}`);
    if (t.p_drop !== undefined) facts.push(`<b>P(drops, ${t.remaining} left) ${pct(t.p_drop)}</b>`);
    const likely = t.distribution.slice().sort((a, b) => b[1] - a[1]).slice(0, 5).sort((a, b) => a[0] - b[0]);
    facts.push(`most likely: ${likely.map(([v, p]) => `${v} (${pct(p)})`).join(', ')}`);
    rows.push([names[tid], facts.join(' · ')]);
  }
  // ER-17: where a missed shot under friendly fire may land, creature by creature.
  for (const ff of result.friendly_fire || []) {
    const lines = Object.keys(ff.bystanders).map((cid) => {
      const b = ff.bystanders[cid];
      return `slot ${b.slot} ${esc.text(names[cid] || cid)}: P(hit) ${pct(b.p_hit)}` +
        (b.mean_damage !== undefined ? `, mean ${b.mean_damage.toFixed(2)}` : '');
    });
    rows.push([`stray of strike ${ff.strike + 1}`, `P(miss ${esc.text(names[ff.target] || ff.target)}) ${pct(ff.p_miss)}` +
      (lines.length ? `<br>${lines.join('<br>')}` : '')]);
  }
  const title = `Odds: ${attacker.name}${count > 1 ? ` ×${count}` : ''} (${rulesets.OTHERS[ruleset] ? rulesets.OTHERS[ruleset].title : 'Enchanted Realms'})`;
  app.whisper(msg.playerid, cards.template(title, rows.map(([label, html]) => [label, html])));
  return result;
}

module.exports = { oddsCommand, bodyLeft };
