'use strict';
// `!fracas attack --ruleset NAME` for a ruleset the engine has but this Mod script cannot
// resolve itself (the spec says it has no Roll20 port: contract.js `roll20: false`). The
// request is built as for the other rulesets (rowsattack.js: options and sheet attributes
// named after the request's fields, which come from the ruleset's own request structs),
// sent to the bridge as attack.resolve through the relay, and its answer applied and
// posted when it comes back. The GM (and the player who asked) is told it went to the bridge.

const { UsageError } = require('./usage');
const cards = require('./cards');
const store = require('./store');
const esc = require('./escape');
const relaylink = require('./relaylink');
const permissions = require('./permissions');
const { applyAnswer } = require('./bulk');
const { buildRowsAttack, attackShape } = require('./rowsattack');
const rulesets = require('../rulesets');
const served = require('./served');
const hints = require('./hints');
const { own } = hints;

function bridgeAttackCommand(app, msg, cmd, name, attackerToken) {
  const title = (rulesets.entry(name) || served.entry(name)).title;
  if (!attackShape(name)) {
    throw new UsageError(`the ${title} ruleset's attack is not an attacker, strikes and targets: ` +
      'this script cannot build it from tokens (send it to the bridge from another client)');
  }
  const { request, names, tokens, attacker, o } = buildRowsAttack(app, msg, cmd, name, attackerToken);
  request.seed = o.seed !== undefined ? o.seed : app.newSeed();
  const { names: seen, attacker: attackerSeen } = permissions.playerNames(names, tokens, attackerToken, attacker.name, app.edge);
  const meta = {
    ruleset: name, title, names, seen, attacker: attacker.name, attackerSeen, apply: o.apply,
    whisper: o.whisper === undefined ? null : o.whisper, playerid: msg.playerid,
  };
  const sent = relaylink.send(app, 'attack.resolve', request, meta, 'a');
  store.pushLog(app.s(), { id: sent.id, request, seed: typeof request.seed === 'bigint' ? request.seed.toString() : request.seed });
  app.whisper(msg.playerid, cards.notice('fracas attack', [
    `${esc.text(title)} has no offline resolver: sent to the bridge as ${esc.text(sent.id)} ` +
    `(${sent.frames} relay frame${sent.frames === 1 ? '' : 's'}); the card follows when it answers.`,
  ]));
  return sent;
}

/** The bridge's attack.resolve answer: damage off the named targets' bars, one undo entry, the card. */
function applyBridgeAttack(app, pending, result, id) {
  const edge = app.edge;
  const s = app.s();
  const meta = pending.meta;
  if (!own(result, 'targets') || typeof result.targets !== 'object' || !Array.isArray(result.strikes)) {
    throw new UsageError(`the bridge's answer to ${id} is not an attack result (no targets and strikes)`);
  }
  const { named: targets, applied, changes, missing } = applyAnswer(app, id, meta, result);
  if (changes.length) store.pushUndo(s, { id, label: `${meta.attacker}'s attack`, time: edge.now(), changes });
  const asker = { playerid: meta.playerid };
  const seenApplied = permissions.hideBody(app, meta.whisper === null ? undefined : meta.whisper, {}, applied, asker);
  const card = (names, attackerName, shown) => {
    const rows = result.strikes.map((st, i) => {
      const target = own(names, st && st.target) ? names[st.target] : '?';
      const hit = st && typeof st.hit === 'boolean' ? `${st.hit ? '✓ hit' : '✗ miss'} · ` : '';
      return [`${i + 1} → ${target}`, `${served.strikeDetail(meta.ruleset, st)}${hit}${Number.isInteger(st && st.damage) ? st.damage : 0} damage`];
    });
    for (const tid of targets) {
      const a = shown[tid];
      let text = `${Number(result.targets[tid] && result.targets[tid].damage) || 0} damage`;
      // The per-target fields its [client] hints split the damage into ("wounds 1").
      const split = hints.hints(meta.ruleset).split;
      if (Array.isArray(split) && result.targets[tid]) {
        const parts = split.filter((f) => own(result.targets[tid], f)).map((f) => `${esc.text(f.replace(/_/g, ' '))} ${esc.text(String(result.targets[tid][f]))}`);
        if (parts.length) text += ` (${parts.join(', ')})`;
      }
      if (a) text += a.skipped ? ` · ${esc.text(a.skipped)}` : a.hidden ? ' · bar lowered' : ` · bar ${a.before} → ${a.after}`;
      rows.push([names[tid], text]);
    }
    rows.push(['seed', `${esc.text(String(result.seed))} (the bridge) ${esc.button('request', `!fracas request ${id}`)}` +
      `${changes.length ? ` ${esc.button('undo', `!fracas undo ${id}`)}` : ''}`]);
    return cards.template(`${attackerName} attacks (${meta.title})`, rows);
  };
  app.postCard(asker, card(meta.seen, meta.attackerSeen, seenApplied), meta.whisper === null ? undefined : meta.whisper,
    card(meta.names, meta.attacker, applied));
  if (missing.length) app.error(null, `not applied, the token is gone: ${missing.join(', ')}`);
}

relaylink.register('attack.resolve', applyBridgeAttack);

module.exports = { bridgeAttackCommand, applyBridgeAttack };
