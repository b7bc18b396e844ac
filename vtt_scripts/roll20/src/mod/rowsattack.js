'use strict';
// `!fracas attack` for Worldwalker, Cartyrion and the old-school rules (chosen with
// --ruleset NAME or the campaign's `!fracas config --ruleset NAME`):
//
//   !fracas attack --ruleset cartyrion --target @{target|token_id} --die d6 --power
//
// Each request field has an option of the same name (`_` written `-`): attacker and
// strike fields on the command (an attacker field missing there is read from the
// attacker's sheet attribute fracas_<field>), target fields from each target's
// sheet attribute fracas_<field>, or --target-<field> for every target. One strike
// per target. The result is resolved by the JavaScript engine (same dice as Python
// for a seed), applied to the bar (Cartyrion injury to `--injury-bar` when set) and
// posted as a card.

const { UsageError, SheetError, integer, onOff } = require('./usage');
const { SheetReader } = require('./sheet');
const cards = require('./cards');
const store = require('./store');
const esc = require('./escape');
const { applyDamage } = require('./apply');
const permissions = require('./permissions');
const { selectedTokens, parseSeed } = require('./tokens');
const { sendMob } = require('./bulk');
const rulesets = require('../rulesets');
const rows = require('../rows');
const { STRUCTS } = require('../contract');
const served = require('./served');
const hints = require('./hints');

/** Ruleset `name`'s request structs: contract.js's, else the bridge's (served.js). */
const structsOf = (name) => STRUCTS[name] || served.structs(name);

/** The struct a nested field of `part` ('attacker', 'target') holds, for ruleset `name`: its fields. */
function nestedStruct(name, part, field) {
  const structs = structsOf(name) || {};
  const shape = attackShape(name) || { attacker: 'Attacker', strike: 'Strike', target: 'Target' };
  let type = ((structs[shape[part]] || []).find(([f]) => f === field) || [])[1];
  while (type && type.optional !== undefined) type = type.optional;
  return (type && type.struct && structs[type.struct]) || [];
}

/** The kind of the nested struct's field `field` ('int', 'bool', 'str'). */
function nestedKind(fields, field) {
  const type = (fields.find(([f]) => f === field) || [])[1];
  return (type && kindOf(type)) || 'str';
}

/**
 * The command's options that build a nested part of a request (contract.js CLIENT, from the
 * ruleset's manifest): each switch's flag and modifiers for each part it is on (`--two-weapon
 * --talent T`, the target's `--target-two-weapon …`), each choice's options and modifiers
 * (`--block N | --dodge N`, `--block-hand`), as option field → kind.
 */
function commandOf(name) {
  const { switches = {}, choices = {} } = hints.hints(name);
  const out = {};
  for (const [field, choice] of Object.entries(choices)) {
    const struct = nestedStruct(name, choice.part, field);
    for (const option of choice.options) out[option] = nestedKind(struct, choice.value);
    for (const [option, [member]] of Object.entries(choice.members || {})) out[option] = nestedKind(struct, member);
  }
  for (const [field, sw] of Object.entries(switches)) {
    for (const part of sw.parts) {
      const prefix = part === 'target' ? 'target_' : '';
      const struct = nestedStruct(name, part, field);
      out[`${prefix}${field}`] = 'bool';
      for (const [option, [member]] of Object.entries(sw.members || {})) out[`${prefix}${option}`] = nestedKind(struct, member);
    }
  }
  return out;
}

/**
 * A switch's nested object from the command (e.g. WW-6's `two_weapon` from `--two-weapon` with
 * `--light-off-hand` and `--talent`; the target's with the `--target-` ones), or null without
 * its flag. A modifier given without its flag is a usage error, as in the Python CLI.
 */
function switchOf(field, sw, command, prefix) {
  const members = Object.entries(sw.members || {});
  if (!command[`${prefix}${field}`]) {
    for (const [option] of members) {
      const value = command[`${prefix}${option}`];
      if (value !== undefined && value !== false) {
        throw new UsageError(`--${dash(prefix + option)} describes ${prefix ? "the target's " : ''}${sw.what}: ` +
          `give --${dash(prefix + field)} too (${sw.rule})`);
      }
    }
    return null;
  }
  const out = {};
  for (const [option, [member, absent]] of members) {
    const value = command[`${prefix}${option}`];
    out[member] = value === undefined ? absent : value;
  }
  return out;
}

/** The nested fields of `part` ('attacker', 'target') the command's switches and choices build, into `values`. */
function nestedInto(name, part, values, command) {
  const { switches = {}, choices = {} } = hints.hints(name);
  for (const [field, choice] of Object.entries(choices)) {
    if (choice.part !== part) continue;
    const given = choice.options.filter((option) => command[option] !== undefined);
    if (given.length > 1) throw new UsageError(`give ${choice.options.map((o) => `--${dash(o)}`).join(' or ')}, not both`);
    if (given.length) values[field] = { [choice.key]: given[0], [choice.value]: command[given[0]] };
    for (const [option, [member, needs, says, rule]] of Object.entries(choice.members || {})) {
      if (command[option] === undefined) continue;
      if (!values[field]) throw new UsageError(`--${dash(option)} ${says}: give --${dash(needs)} too (${rule})`);
      values[field][member] = command[option]; // e.g. a dodge with a hand: the resolver names it (WW-5, WW-6)
    }
  }
  for (const [field, sw] of Object.entries(switches)) {
    if (!sw.parts.includes(part)) continue;
    const made = switchOf(field, sw, command, part === 'target' ? 'target_' : '');
    if (made) values[field] = made;
  }
  return values;
}

/** A request field's kind for an option ('int', 'bool', 'str'), or null for a nested one. */
function kindOf(type) {
  if (typeof type === 'string') return type === 'int' || type === 'bool' || type === 'str' ? type : null;
  if (type.optional !== undefined) return kindOf(type.optional);
  if (type.literal !== undefined) return 'str';
  if (type.union !== undefined) return 'str'; // e.g. old-school cover: a number or "full"
  return null;
}

/**
 * The structs of ruleset `name`'s attack request (contract.js): {attacker, strike, target}
 * struct names, or null when its attack is not `attacker` + `strikes` + `targets` (the shape
 * every built-in ruleset's attack has, and the one this Mod script builds).
 */
function attackShape(name) {
  const structs = structsOf(name) || {};
  const request = structs.AttackRequest || [];
  const field = (wanted) => (request.find(([f]) => f === wanted) || [])[1];
  const attacker = field('attacker');
  const strikes = field('strikes');
  if (!field('targets') || !attacker || !attacker.struct || !strikes || !strikes.list || !strikes.list.struct) return null;
  return { attacker: attacker.struct, strike: strikes.list.struct, target: 'Target' };
}

/** Field name → kind, by part of the request, for ruleset `name`: from its request structs
 * (contract.js, generated from the Python engine), so a new field or ruleset needs no edit here. */
function fieldsOf(name) {
  const structs = structsOf(name);
  const shape = attackShape(name) || { attacker: 'Attacker', strike: 'Strike', target: 'Target' };
  const scalar = (struct, skip = []) => Object.fromEntries((structs[struct] || [])
    .filter(([field, type]) => !skip.includes(field) && kindOf(type)).map(([field, type]) => [field, kindOf(type)]));
  return {
    attacker: scalar(shape.attacker), strike: scalar(shape.strike, ['target']), target: scalar(shape.target),
    command: commandOf(name),
  };
}
const BUILT = Object.fromEntries(Object.keys(STRUCTS).map((name) => [name, fieldsOf(name)]));
/** Field kinds by ruleset: contract.js's, and a served ruleset's made when asked for. */
const FIELDS = new Proxy(BUILT, {
  get: (built, name) => (typeof name === 'string' && !Object.prototype.hasOwnProperty.call(built, name) && served.structs(name)
    ? fieldsOf(name) : built[name]),
});
const COMMON = ['ruleset', 'attacker', 'target', 'seed', 'rolls', 'no-apply', 'whisper', 'public', 'current-page'];
// A player's command may give only these without !fracas config --players-numbers on.
const PLAYER_COMMON = COMMON;
// Options `!fracas odds` adds (they are refused by `!fracas attack`).
const ODDS_OPTIONS = ['count', 'at-least'];

const dash = (field) => field.replace(/_/g, '-');

/** A strike is melee unless the command or sheet says otherwise (when the ruleset's strikes have a method). */
const defaultMethod = (spec) => (spec.strike.method ? { method: 'melee' } : {});

function value(kind, option, where) {
  if (kind === 'bool') return option.values.length ? onOff(option.values.join(' '), where) : true;
  if (option.values.length !== 1) throw new UsageError(`${where} takes one value`);
  const text = option.values[0];
  if (kind === 'int') return integer(text, where, -100000, 100000);
  return text;
}

function sheetValue(kind, text, where) {
  const t = String(text).trim();
  if (kind === 'int') {
    if (!/^[+-]?\d{1,6}$/.test(t)) throw new UsageError(`${where} is "${t}", not a whole number`);
    return Number(t);
  }
  if (kind === 'bool') return onOff(t, where);
  return t;
}

/** The attack request and command options from `cmd` for ruleset `name`. */
function parse(name, options, extra = []) {
  const spec = FIELDS[name];
  const out = { attacker: {}, strike: {}, target: {}, command: {}, targets: [], apply: true, whisper: undefined };
  for (const option of options) {
    if (extra.includes(option.name)) continue;
    const field = option.name.replace(/-/g, '_');
    const where = `--${option.name}`;
    if (option.name === 'ruleset') continue;
    if (option.name === 'target') {
      if (!option.values.length) throw new UsageError('--target takes a token id');
      out.targets.push(...option.values);
    } else if (option.name === 'attacker') {
      out.attackerId = value('str', option, where);
    } else if (option.name === 'seed') {
      out.seed = parseSeed(value('str', option, where));
    } else if (option.name === 'rolls') {
      out.rolls = option.values.join(',').split(/[\s,]+/).filter(Boolean).map((f) => integer(f, '--rolls', 1, 100));
      if (!out.rolls.length) throw new UsageError('--rolls takes the faces in draw order, e.g. --rolls 5,3,4');
    } else if (option.name === 'no-apply') {
      out.apply = option.values.length ? !onOff(option.values[0], where) : false;
    } else if (option.name === 'current-page') {
      out.currentPage = option.values.length ? onOff(option.values.join(' '), where) : true;
    } else if (option.name === 'whisper' || option.name === 'public') {
      out.whisper = option.name === 'whisper';
    } else if (option.name.startsWith('target-') && spec.target[field.slice(7)]) {
      out.target[field.slice(7)] = value(spec.target[field.slice(7)], option, where);
    } else if (spec.attacker[field]) {
      out.attacker[field] = value(spec.attacker[field], option, where);
    } else if (spec.strike[field]) {
      out.strike[field] = value(spec.strike[field], option, where);
    } else if (spec.command[field]) {
      out.command[field] = value(spec.command[field], option, where);
    } else {
      const known = COMMON.concat(Object.keys(spec.attacker), Object.keys(spec.strike), Object.keys(spec.command),
        Object.keys(spec.target).map((f) => `target-${f}`)).map(dash);
      throw new UsageError(`unknown option --${option.name} for the ${name} ruleset (options: ${known.map((k) => `--${k}`).join(' ')})`);
    }
  }
  return out;
}

/** Fields of `spec` read from a token's sheet attributes fracas_<field>, where the command gave none. */
function fromSheet(app, token, spec, given) {
  const reader = new SheetReader(app.edge, app.s().config, token);
  const out = {};
  for (const field of Object.keys(spec)) {
    if (given[field] !== undefined) {
      out[field] = given[field];
      continue;
    }
    const text = reader.character ? app.edge.attribute(reader.character.id, `fracas_${field}`) : null;
    if (text !== null && text !== undefined && String(text).trim() !== '') {
      try {
        out[field] = sheetValue(spec[field], text, `${reader.name}'s attribute "fracas_${field}"`);
      } catch (err) {
        throw err instanceof UsageError ? new SheetError(err.message, token) : err;
      }
    }
  }
  if (out.cover !== undefined && /^\d+$/.test(String(out.cover))) out.cover = Number(out.cover);
  return { values: out, name: reader.name };
}

/** One strike of the card: a d20 strike (its result has an attack roll) against what the
 * ruleset's hints say (`against`: "vs TN 15"), else a damage pool (dice, explosions, pools). */
function strikeLine(ruleset, s) {
  if (s.attack_roll === undefined) {
    let line = `${s.dice}${esc.text(s.die)}: ${s.faces.join(' ') || '—'}`;
    if (s.exploded) line += ` (${s.exploded} exploded${s.explosions_cut ? ', then cut' : ''})`;
    line += ` · ${s.bonus + s.magic_bonus >= 0 ? '+' : ''}${s.bonus + s.magic_bonus} − ${s.dex + s.armor} → ${s.damage} ${s.pool}`;
    if (s.sneak_check) line += ` · sneak check ${s.sneak_check.total} vs ${s.sneak_check.dc}: ${s.sneak_check.passed ? 'passed' : 'failed'}`;
    if (s.parry) line += ` · ${esc.text(s.parry.kind)} parry stops ${s.parry.absorbed}${s.parry.broken ? ' (broken)' : ''}`;
    if (s.stamina_cost) line += ` · costs ${s.stamina_cost.cost} stamina`;
    return line;
  }
  const natural = s.natural ? ` (natural ${s.natural})` : '';
  const field = hints.hints(ruleset).against;
  const against = field && s[field] !== undefined ? ` vs ${esc.text(field.toUpperCase())} ${s[field]}` : '';
  let line = `d20 ${s.attack_roll}${natural} ${s.attack_bonus >= 0 ? '+' : ''}${s.attack_bonus} = ${s.attack_total}${against}: ${s.hit ? '✓ hit' : '✗ miss'}`;
  if (s.reaction) line += ` · ${esc.text(s.reaction.kind)} ${s.reaction.total}: ${s.reaction.negated ? 'negated' : 'fails'}`;
  if (s.damage_dice.length) line += ` · damage ${s.damage_dice.join('+')} ${s.damage_bonus >= 0 ? '+' : ''}${s.damage_bonus}`;
  return `${line} → ${s.damage}`;
}

/** Each --target token's fields (its fracas_<field> attributes, --target-<field> winning): {names, tokens, targets}. */
function readTargets(app, name, o, ids, msg, page = null) {
  const spec = FIELDS[name];
  const names = {};
  const tokens = {};
  const targets = {};
  for (const id of ids) {
    if (targets[id]) continue;
    const token = app.edge.getGraphic(id);
    if (!token) throw new UsageError(`no token with the id "${id}" (--target)`);
    if (msg) permissions.checkTarget(app, msg, token, id);
    if (msg) permissions.checkPage(app, msg, token, id, '--target', page);
    // --target-FIELD is for a token without a character; only the GM's replaces a sheet's value.
    const read = fromSheet(app, token, spec.target, !msg || permissions.mayOverride(app, msg, token) ? o.target : {});
    nestedInto(name, 'target', read.values, o.command);
    names[id] = read.name;
    tokens[id] = token;
    targets[id] = read.values;
  }
  return { names, tokens, targets };
}

/** The request of a Worldwalker, Cartyrion or old-school command: {request, names, tokens, attacker, o}. */
function buildRowsAttack(app, msg, cmd, name, attackerToken, extra = []) {
  const spec = FIELDS[name];
  permissions.checkNumbers(app, msg, cmd.options.map((x) => x.name).filter((n) => !PLAYER_COMMON.includes(n) && !extra.includes(n)));
  const o = parse(name, cmd.options, extra);
  permissions.checkDice(app, msg, o);
  if (!o.targets.length) throw new UsageError('no target: add --target @{target|token_id}');
  if (o.targets.length > 50) throw new UsageError(`${o.targets.length} targets: the most is 50`);
  const attacker = fromSheet(app, attackerToken, spec.attacker, o.attacker);
  attacker.values = nestedInto(name, 'attacker', Object.assign({}, attacker.values), o.command);
  const page = o.currentPage ? (attackerToken.get('_pageid') || null) : null;
  const { names, tokens, targets } = readTargets(app, name, o, o.targets, msg, page);
  // Strike fields the command did not give come from the attacker's sheet (fracas_<field>),
  // as attacker fields do: all a player's attack may use without --players-numbers.
  const strike = Object.assign(defaultMethod(spec), fromSheet(app, attackerToken, spec.strike, o.strike).values);
  const request = {
    ruleset: name, attacker: attacker.values,
    strikes: Object.keys(targets).map((id) => Object.assign({}, strike, { target: id })), targets,
  };
  if (o.rolls) request.rolls = o.rolls;
  return { request, names, tokens, attacker, o };
}

function rowsAttackCommand(app, msg, cmd, name, attackerToken) {
  const edge = app.edge;
  const s = app.s();
  const config = s.config;
  const { request, names, tokens, attacker, o } = buildRowsAttack(app, msg, cmd, name, attackerToken);
  const pools = hints.pools(name);
  const seed = o.seed !== undefined ? o.seed : app.newSeed();
  const result = rulesets.resolve(request, { seed });

  const id = app.newId('a');
  const applied = {};
  const changes = [];
  if (o.apply) {
    for (const tid of Object.keys(result.targets)) {
      const entry = result.targets[tid];
      // A target's damage in pools (the ruleset's hints, CT-4): the first on the Body bar, the
      // second on the injury bar when the campaign has one; else all of it on the Body bar.
      const parts = pools && config.injury_bar
        ? [[config.bar, entry[pools[0]]], [config.injury_bar, entry[pools[1]]]] : [[config.bar, entry.damage]];
      for (const [bar, amount] of parts) {
        if (!amount) continue;
        const done = applyDamage(edge, Object.assign({}, config, { bar }), tokens[tid], amount);
        (applied[tid] = applied[tid] || []).push(Object.assign({ bar }, done));
        if (done.change) changes.push(done.change);
      }
    }
    if (changes.length) store.pushUndo(s, { id, label: `${attacker.name}'s attack`, time: edge.now(), changes });
  }
  store.pushLog(s, { id, request, seed: typeof seed === 'bigint' ? seed.toString() : seed });
  const seenApplied = permissions.hideBody(app, o.whisper, tokens, applied, msg);
  const card = (seen, attackerName, shown) => {
    const rows = result.strikes.map((st, i) => [`${i + 1} → ${seen[st.target]}`, strikeLine(name, st)]);
    for (const tid of Object.keys(result.targets)) {
      const entry = result.targets[tid];
      let text = `${entry.damage} damage`;
      if (pools) text += ` (${pools.map((pool) => `${esc.text(pool)} ${entry[pool]}`).join(', ')})`;
      for (const a of shown[tid] || []) {
        text += a.skipped ? ` · bar ${a.bar}: ${esc.text(a.skipped)}`
          : a.hidden ? ` · bar ${a.bar} lowered` : ` · bar ${a.bar} ${a.before} → ${a.after}`;
      }
      rows.push([seen[tid], text]);
    }
    if (result.attacker && result.attacker.stamina_cost) rows.push([attackerName, `spends ${result.attacker.stamina_cost} stamina`]);
    rows.push(['seed', `${esc.text(String(result.seed))}${result.injected ? ' (physical dice)' : ''} ` +
      `${esc.button('request', `!fracas request ${id}`)}${changes.length ? ` ${esc.button('undo', `!fracas undo ${id}`)}` : ''}`]);
    return cards.template(`${attackerName} attacks (${hints.title(name)})`, rows);
  };
  const { names: seen, attacker: attackerSeen } = permissions.playerNames(names, tokens, attackerToken, attacker.name, app.edge);
  app.postCard(msg, card(seen, attackerSeen, seenApplied), o.whisper, card(names, attacker.name, applied));
  return result;
}

/**
 * `!fracas mob --ruleset NAME …`: the selected tokens, grouped by character, attack the
 * targets through the bridge (attack.bulk, summary), as `!fracas mob` does for
 * Enchanted Realms. Each character's attacker fields come from its fracas_<field>
 * attributes (the command's options win); the strike from the command's options.
 */
function rowsMobCommand(app, msg, cmd, name) {
  const edge = app.edge;
  const spec = FIELDS[name];
  const rules = rulesets.OTHERS[name];
  const title = rulesets.entry(name).title;
  const o = parse(name, cmd.options, ['each']);
  if (o.rolls) throw new UsageError('physical dice are for single attacks; a mob attack rolls its own');
  const each = cmd.options.some((opt) => opt.name === 'each');
  const targetIds = Array.from(new Set(o.targets));
  if (!targetIds.length) throw new UsageError('no target: add --target @{target|token_id} (repeat for more)');
  const tokens = selectedTokens(edge, msg).filter((t) => !targetIds.includes(t.id));
  if (!tokens.length) throw new UsageError('select the attacking tokens (the targets are not counted)');
  if (tokens.length > 500) throw new UsageError(`${tokens.length} tokens selected, the most is 500`);
  const { names, targets } = readTargets(app, name, o, targetIds, msg);
  const strike = Object.assign(defaultMethod(spec), o.strike);
  // Keyed by character names, which may be "__proto__" or "constructor": maps without a prototype.
  const profiles = Object.create(null);
  const profileOf = new Map();
  const counts = Object.create(null);
  const usedNames = new Set();
  // Target ids and profile ids of GM-layer tokens (players' cards hide their names).
  const hidden = targetIds.filter((id) => { const t = edge.getGraphic(id); return !!t && t.get('layer') === 'gmlayer'; });
  const unnamed = [];
  tokens.forEach((token, k) => {
    const represents = token.get('represents');
    const key = represents || token.id;
    let pid = profileOf.get(key);
    if (pid === undefined) {
      const read = fromSheet(app, token, spec.attacker, o.attacker);
      const character = represents ? edge.getCharacter(represents) : null;
      const base = (character && character.get('name')) || read.name;
      pid = String(base);
      for (let n = 2; usedNames.has(pid) && n < 1000; n++) pid = `${base} #${n}`;
      usedNames.add(pid);
      profileOf.set(key, pid);
      profiles[pid] = { attacker: nestedInto(name, 'attacker', Object.assign({}, read.values), o.command), strikes: [strike] };
      counts[pid] = Object.create(null);
    }
    if (token.get('layer') === 'gmlayer') hidden.push(pid);
    else if (permissions.unnamedAs(token, edge)) unnamed.push(pid); // its nameplate is not the players'
    const aimed = each ? targetIds : [targetIds[k % targetIds.length]];
    for (const tid of aimed) counts[pid][tid] = (counts[pid][tid] || 0) + 1;
  });
  return sendMob(app, msg, {
    ruleset: name, label: `Mob (${title})`, tokens: tokens.length, profiles, counts, targetIds, targets, names, hidden, unnamed,
    // Checked here first when this script has the ruleset's port; else the bridge checks it.
    options: o, compile: rules ? (single) => rows.compileAttack(rules, single, { seed: 0 }) : () => {},
  });
}

module.exports = { rowsAttackCommand, rowsMobCommand, buildRowsAttack, fromSheet, FIELDS, parse, attackShape, ODDS_OPTIONS };
