'use strict';
// `!fracas mob`: many attackers at once, resolved by `fracas serve` (attack.bulk,
// detail "summary") through the browser relay. The selected tokens are grouped by
// character (and by the conditions their markers show) into profiles; each token
// attacks one of the targets in turn (or every target, with --each). The answer
// applies per-target totals, with undo, and posts one compact card.

const { UsageError } = require('./usage');
const { SheetReader } = require('./sheet');
const strikes = require('./strikes');
const args = require('./args');
const { attackOptions, rulesetOf } = require('./attack');
const { selectedTokens } = require('./tokens');
const { rowsMobCommand } = require('./rowsattack');
const { sendMob, applyMob } = require('./bulk');
const { compileAttack } = require('../engine');
const permissions = require('./permissions');
const { DEFAULT_RULESET } = require('../contract');
const { ownClient } = require('../registry');

const MOB_OPTIONS = ['each', 'seed', 'cover', 'ac', 'no-apply', 'whisper', 'public', 'use', 'obscurement'];
const MAX_TOKENS = 500;

function profileStrikes(app, reader, collected, use) {
  if (collected.strikes.length) {
    return collected.strikes.map((st, i) => strikes.finish(st, collected.defaults, i));
  }
  const attr = app.s().config.attrs.strikes + (use ? `_${use}` : '');
  const text = reader.character ? app.edge.attribute(reader.character.id, attr) : null;
  if (text === null || text === undefined || String(text).trim() === '') {
    throw new UsageError(`${reader.name} has no strikes: put them in its "${attr}" attribute, or give --dice …`);
  }
  let sheet;
  try {
    sheet = strikes.collect(args.parseOptions(text));
  } catch (err) {
    throw new UsageError(`${reader.name}'s "${attr}" attribute: ${err.message}`);
  }
  if (!sheet.strikes.length || sheet.rest.length) throw new UsageError(`${reader.name}'s "${attr}" attribute has no usable --dice strikes`);
  const defaults = Object.assign({}, sheet.defaults, collected.defaults);
  return sheet.strikes.map((st, i) => strikes.finish(st, defaults, i));
}

function mobCommand(app, msg, cmd) {
  const edge = app.edge;
  const s = app.s();
  const config = s.config;
  const ruleset = rulesetOf(app, cmd);
  if (!ownClient(ruleset)) return rowsMobCommand(app, msg, cmd, ruleset);
  const collected = strikes.collect(cmd.options.filter((o) => o.name !== 'ruleset'));
  const targetIds = Array.from(new Set(collected.defaults.targets || []));
  delete collected.defaults.targets;
  if (collected.strikes.some((st) => st.targets)) throw new UsageError('!fracas mob takes --target before any --dice');
  const each = collected.rest.some((o) => o.name === 'each');
  const options = attackOptions(collected.rest.filter((o) => o.name !== 'each'), MOB_OPTIONS);
  if (!targetIds.length) throw new UsageError('no target: add --target @{target|token_id} (repeat for more)');
  const tokens = selectedTokens(edge, msg).filter((t) => !targetIds.includes(t.id));
  if (!tokens.length) throw new UsageError('select the attacking tokens (the targets are not counted)');
  if (tokens.length > MAX_TOKENS) throw new UsageError(`${tokens.length} tokens selected, the most is ${MAX_TOKENS}`);

  const names = {};
  const targets = {};
  const targetTokens = {};
  const hidden = []; // target ids and profile ids of GM-layer tokens (players' cards hide their names)
  const unnamed = []; // profile ids of groups with a token whose nameplate players do not see
  for (const id of targetIds) {
    const token = edge.getGraphic(id);
    if (!token) throw new UsageError(`no token with the id "${id}" (--target)`);
    const reader = new SheetReader(edge, config, token);
    names[id] = reader.name;
    targetTokens[id] = token;
    if (token.get('layer') === 'gmlayer') hidden.push(id);
    targets[id] = reader.target({ cover: options.cover, ac: options.ac });
  }

  // Profiles: one per character and set of conditions, in selection order.
  // Keyed by character names, which may be "__proto__" or "constructor": maps without a prototype.
  const profiles = Object.create(null);
  const profileOf = new Map(); // group key → profile id
  const counts = Object.create(null); // profile id → target id → count
  const usedNames = new Set();
  tokens.forEach((token, k) => {
    const reader = new SheetReader(edge, config, token);
    const attacker = reader.attacker(options.obscurement ? { obscurement: options.obscurement } : {});
    const key = `${reader.character ? reader.character.id : token.id}|${(attacker.conditions || []).join(',')}`;
    let pid = profileOf.get(key);
    if (pid === undefined) {
      const base = (reader.character && reader.character.get('name')) || reader.name;
      pid = attacker.conditions ? `${base} (${attacker.conditions.join(', ')})` : String(base);
      for (let n = 2; usedNames.has(pid) && n < 1000; n++) pid = `${base} #${n}`;
      usedNames.add(pid);
      profileOf.set(key, pid);
      profiles[pid] = { attacker, strikes: profileStrikes(app, reader, collected, options.use) };
      counts[pid] = Object.create(null);
    }
    if (token.get('layer') === 'gmlayer') hidden.push(pid);
    // A GM's creature whose nameplate players do not see: its group is unnamed on public cards
    // (one such token is enough: the group's name is its character's).
    else if (permissions.unnamedAs(token, edge)) unnamed.push(pid);
    const aimed = each ? targetIds : [targetIds[k % targetIds.length]];
    for (const tid of aimed) counts[pid][tid] = (counts[pid][tid] || 0) + 1;
  });

  return sendMob(app, msg, {
    ruleset: DEFAULT_RULESET, label: 'Mob', tokens: tokens.length, profiles, counts, targetIds, targets, names, hidden, unnamed,
    options, compile: (single) => compileAttack(single, { seed: 0 }),
  });
}

module.exports = { mobCommand, applyMob, profileStrikes, sendMob };
