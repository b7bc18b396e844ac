'use strict';
// A mob's bulk request to the bridge (through the relay) and the card and damage of its
// answer, in every ruleset: below mob.js (ER) and rowsattack.js (the other rulesets).

const { UsageError } = require('./usage');
const cards = require('./cards');
const store = require('./store');
const relaylink = require('./relaylink');
const esc = require('./escape');
const { applyDamage } = require('./apply');
const { hideBody, playerNames } = require('./permissions');
const { ownClient } = require('../registry');

/**
 * The end of `!fracas mob` in every ruleset. Each profile is first checked against each of
 * its targets with the local resolver (`compile`), so a mistake is reported now, in table
 * words, not after a round trip; then the groups are counted (profiles in selection order,
 * targets in command order) and the bulk request goes to the bridge through the relay.
 * Returns what relaylink.send returns.
 */
function sendMob(app, msg, mob) {
  const { ruleset, profiles, counts, targetIds, targets, names, options } = mob;
  for (const pid of Object.keys(profiles)) {
    for (const tid of Object.keys(counts[pid])) {
      const single = {
        attacker: profiles[pid].attacker,
        strikes: profiles[pid].strikes.map((st) => Object.assign({}, st, { target: tid })),
        targets: { [tid]: targets[tid] },
      };
      if (!ownClient(ruleset)) single.ruleset = ruleset; // its own client's requests name none
      try {
        mob.compile(single);
      } catch (err) {
        if (err.path === undefined) throw err;
        throw new UsageError(`${pid} against ${names[tid]}: ${app.explain(err, names)}`);
      }
    }
  }

  // What players see: a GM-layer target or attacker group is "a hidden creature" (Roll20's
  // turn tracker hides GM-layer tokens from players too); the GM's card names them.
  const hidden = new Set(mob.hidden || []);
  const unnamed = new Set(mob.unnamed || []); // attacker groups whose nameplates players do not see
  const seenNames = Object.assign({}, names);
  for (const tid of targetIds) if (hidden.has(tid)) seenNames[tid] = 'a hidden creature';
  // A GM's creature whose nameplate players do not see (showplayers_name off) goes unnamed too.
  const targetTokens = {};
  for (const tid of targetIds) if (!hidden.has(tid) && app.edge.getGraphic(tid)) targetTokens[tid] = app.edge.getGraphic(tid);
  Object.assign(seenNames, playerNames({}, targetTokens, null, '', app.edge).names);
  const attacks = [];
  const groups = [];
  const seenGroups = [];
  let total = 0;
  for (const pid of Object.keys(profiles)) {
    for (const tid of targetIds) {
      const count = counts[pid][tid];
      if (!count) continue;
      attacks.push({ profile: pid, target: tid, count });
      groups.push(`${count} × ${pid} → ${names[tid]}`);
      seenGroups.push(`${count} × ${hidden.has(pid) ? 'hidden creatures' : unnamed.has(pid) ? 'unnamed creatures' : pid}`
        + ` → ${seenNames[tid]}`);
      total += count;
    }
  }
  const request = {
    ruleset,
    seed: options.seed !== undefined ? options.seed : app.newSeed(),
    profiles, targets, attacks, detail: 'summary',
  };
  const meta = {
    names, groups, seen: { names: seenNames, groups: seenGroups }, apply: options.apply, whisper: options.whisper === true,
    title: `${mob.label}: ${mob.tokens} attacker${mob.tokens === 1 ? '' : 's'}, ${total} attack${total === 1 ? '' : 's'}`,
    playerid: msg.playerid,
  };
  const sent = relaylink.send(app, 'attack.bulk', request, meta);
  app.whisper(msg.playerid, cards.notice('fracas mob', [
    `${total} attack${total === 1 ? '' : 's'} sent to the bridge as ${esc.text(sent.id)} ` +
    `(${sent.frames} relay frame${sent.frames === 1 ? '' : 's'}); the card follows when it answers.`,
  ]));
  return sent;
}

/**
 * The per-target damage of a bridge answer (`result.targets[id].damage`) off the Body bars
 * of the tokens the request named (`meta.names`), when `meta.apply`: an answer cannot aim
 * damage anywhere else. Returns {named (target ids kept), applied, changes, missing}.
 */
function applyAnswer(app, id, meta, result) {
  const edge = app.edge;
  const out = { named: [], applied: {}, changes: [], missing: [] };
  for (const tid of Object.keys(result.targets)) {
    if (!Object.prototype.hasOwnProperty.call(meta.names || {}, tid)) {
      edge.log(`relay answer ${id} names a target the request did not (${tid}): ignored`);
      continue;
    }
    out.named.push(tid);
    const damage = Number(result.targets[tid] && result.targets[tid].damage);
    if (!meta.apply || !Number.isInteger(damage) || damage <= 0) continue;
    const token = edge.getGraphic(tid);
    if (!token) {
      out.missing.push(meta.names[tid] || tid);
      continue;
    }
    out.applied[tid] = applyDamage(edge, app.s().config, token, damage);
    if (out.applied[tid].change) out.changes.push(out.applied[tid].change);
  }
  return out;
}

/** Apply a bulk summary: per-target totals off the Body bars, one undo entry, one card. */
function applyMob(app, pending, result, id) {
  const edge = app.edge;
  const s = app.s();
  const meta = pending.meta;
  if (!result || typeof result !== 'object' || !result.targets || typeof result.targets !== 'object') {
    throw new UsageError(`the bridge's answer to ${id} has no per-target totals`);
  }
  const { applied, changes, missing } = applyAnswer(app, id, meta, result);
  if (changes.length) store.pushUndo(s, { id, label: meta.title, time: edge.now(), changes });
  const seenApplied = hideBody(app, meta.whisper, {}, applied);
  const card = (names, groups, shown = applied) => cards.mobCard(result, {
    id, title: meta.title, names, groups, applied: shown, undo: changes.length > 0 ? id : null,
  });
  // A request sent before players' names were kept (meta.seen) shows what it has to the GM only.
  const seen = meta.seen && typeof meta.seen === 'object' ? meta.seen : null;
  const gmCard = card(meta.names, meta.groups);
  if (seen) app.postCard({ playerid: meta.playerid }, card(seen.names, seen.groups, seenApplied), meta.whisper, gmCard);
  else app.postCard({ playerid: 'gm' }, gmCard, true);
  if (missing.length) app.error(null, `not applied, the token is gone: ${missing.join(', ')}`);
}

relaylink.register('attack.bulk', applyMob);

module.exports = { sendMob, applyMob, applyAnswer };
