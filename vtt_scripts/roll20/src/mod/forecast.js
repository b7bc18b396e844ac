'use strict';
// `!fracas forecast`: how deadly is the fight on the map? The tokens become a scenario, the
// bridge plays it many times (`fight.forecast`, through the relay) and the GM gets a card:
// each side's chance to win with its 95 % interval, draws, rounds, who is likely to fall,
// a small chart, and buttons to vary one group's count or to share the card with the players.
//
//   !fracas forecast                      the selected tokens against the rest of their page;
//                                         nothing selected: the GM's page, player tokens
//                                         (party) against the GM's (foes)
//   !fracas forecast --turns              the turn tracker's tokens, party against foes
//   !fracas forecast --side NAME ID ID …  sides named by hand (twice or more)
//   … --runs N --seed N --ruleset NAME --use NAME --share
//   … --vary TOKEN [--values 1..12] [--target 0.5]   sweep that token's group count
//   !fracas forecast --from ID …          the scenario of an earlier forecast again (its buttons)
//   !fracas forecast --share ID           post an earlier forecast's players' card
//
// One group per token (count 1), named by the token id (the result's member ids are then the
// token ids) and labelled with its name; its numbers are read from its sheet exactly as
// `!fracas round` reads them (round.js combatantOf: the attack readers), its health is the
// Body bar now. GM-layer tokens and tokens whose nameplate players do not see take part; the
// players' card never names them (GM-layer ones are left out of it altogether).

const { UsageError, integer } = require('./usage');
const { tokenName } = require('./sheet');
const cards = require('./cards');
const { forecastCard } = require('./forecastcard');
const esc = require('./escape');
const bigjson = require('../bigjson');
const relaylink = require('./relaylink');
const permissions = require('./permissions');
const { asNumber, bodyHolder } = require('./apply');
const { parseSeed } = require('./tokens');
const { combatantOf } = require('./round');
const rulesets = require('../rulesets');
const { compileAttack } = require('../engine');
const rows = require('../rows');
const hints = require('./hints');

/** A fight's side count in words, as its error says it. */
const WORDS = { 2: 'two', 3: 'three', 4: 'four' };

const OPTIONS = ['runs', 'seed', 'ruleset', 'use', 'turns', 'side', 'vary', 'values', 'target', 'share', 'from'];
const MAX_TOKENS = 300; // tokens in one forecast (one group each)
const MAX_RUNS = 10000000; // as `fracas simulate --runs`; the bridge's own budget may ask for fewer
const RUNS = 1000; // fights by default
const SWEEP_RUNS = 500; // fights per point by default when --vary sweeps a count
const MAX_COUNT = 2000; // a scenario's most combatants (docs/ENCOUNTERS.md)
const KEEP = 3; // earlier forecasts kept for their buttons (vary, share)
const SIDE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,31}$/;
const TOKEN_ID = /^[-A-Za-z0-9_]{1,64}$/;
const VALUES = /^(\d{1,4}\.\.\d{1,4}(:\d{1,4})?|\d{1,4}(,\d{1,4}){0,99})$/;
const ON_PAGE = ['objects', 'gmlayer']; // the token layer and the GM layer (API:Objects, Graphic layer)

function oneValue(option) {
  if (option.values.length !== 1) throw new UsageError(`--${option.name} takes one value`);
  return option.values[0];
}

/** The command's options, checked: {runs, seed, ruleset, use, turns, sides, vary, values, target, share, from}. */
function parseOptions(cmd) {
  if (cmd.positional.length) throw new UsageError(`!fracas forecast takes --options, not "${cmd.positional.join(' ')}"`);
  const o = { sides: [], share: false };
  const once = new Set();
  for (const option of cmd.options) {
    if (!OPTIONS.includes(option.name)) {
      throw new UsageError(`!fracas forecast does not know --${option.name} (--${OPTIONS.join(', --')})`);
    }
    if (option.name !== 'side') {
      if (once.has(option.name)) throw new UsageError(`--${option.name} is given more than once`);
      once.add(option.name);
    }
    switch (option.name) {
      case 'runs': o.runs = integer(oneValue(option), '--runs', 1, MAX_RUNS); break;
      case 'seed': o.seed = parseSeed(oneValue(option)); break;
      case 'ruleset': o.ruleset = true; break; // read by attack.rulesetOf
      case 'use':
        o.use = oneValue(option);
        if (!/^[A-Za-z0-9_-]{1,40}$/.test(o.use)) throw new UsageError(`--use takes a short name, not "${o.use}"`);
        break;
      case 'turns':
        if (option.values.length) throw new UsageError('--turns takes no value');
        o.turns = true;
        break;
      case 'side': {
        const [name, ...rest] = option.values;
        if (!name || !SIDE_NAME.test(name)) {
          throw new UsageError(`--side takes a side name (a letter, then letters, digits or _; at most 32) and token ids, not "${name || ''}"`);
        }
        const ids = rest.join(' ').split(/[\s,]+/).filter(Boolean);
        if (!ids.length) throw new UsageError(`--side ${name} names no token: --side ${name} @{target|1|token_id} @{target|2|token_id} …`);
        for (const id of ids) if (!TOKEN_ID.test(id)) throw new UsageError(`--side ${name}: "${id}" is not a token id`);
        if (o.sides.some((s) => s.name === name)) throw new UsageError(`--side ${name} is given twice`);
        o.sides.push({ name, ids });
        break;
      }
      case 'vary':
        o.vary = oneValue(option);
        if (!TOKEN_ID.test(o.vary)) throw new UsageError(`--vary takes the id of a token of the fight (its group's count is varied), not "${o.vary}"`);
        break;
      case 'values':
        o.values = option.values.join('');
        if (!VALUES.test(o.values)) {
          throw new UsageError(`--values takes counts as a..b, a..b:step or a,b,c (e.g. 1..12), not "${o.values}"`);
        }
        break;
      case 'target': {
        const text = oneValue(option);
        const rate = /^(0(\.\d{1,4})?|1(\.0{1,4})?|\.\d{1,4})$/.test(text) ? Number(text) : NaN;
        if (!(rate >= 0 && rate <= 1)) throw new UsageError(`--target takes a win chance from 0 to 1 (e.g. 0.5), not "${text}"`);
        o.target = rate;
        break;
      }
      case 'share':
        if (option.values.length > 1) throw new UsageError('--share takes the id of an earlier forecast, or nothing');
        if (option.values.length) o.shareId = option.values[0];
        else o.share = true;
        break;
      case 'from': o.from = oneValue(option); break;
      default: break;
    }
  }
  if (o.shareId !== undefined && cmd.options.length > 1) throw new UsageError('--share ID posts an earlier forecast\'s card: it takes no other option');
  if ((o.values !== undefined || o.target !== undefined) && o.vary === undefined) {
    throw new UsageError('--values and --target belong to --vary TOKEN (the token whose group count is varied)');
  }
  if (o.sides.length === 1) throw new UsageError('--side names one side: give two or more (--side NAME ID ID … --side NAME ID …)');
  const ways = [o.sides.length ? '--side' : null, o.turns ? '--turns' : null, o.from !== undefined ? '--from' : null].filter(Boolean);
  if (ways.length > 1) throw new UsageError(`${ways.join(' and ')}: choose one way to make the sides`);
  if (o.from !== undefined && (o.ruleset || o.use !== undefined)) {
    throw new UsageError('--from reuses an earlier forecast\'s scenario as it was: --ruleset and --use do not apply');
  }
  return o;
}

/** Whether `token` takes part in a fight on its page: on the token or GM layer, for a character. */
function isCombatant(edge, token) {
  return ON_PAGE.includes(token.get('layer')) && !!edge.getCharacter(token.get('represents'));
}

/** The Body on `token`'s bar now, or null when the bar holds no number. */
function bodyNow(app, token) {
  const holder = bodyHolder(app.edge, app.s().config, token);
  return asNumber(holder.obj.get(holder.prop));
}

/** Whether `token` is out of the fight already (the dead marker, or no Body left). */
function isDown(app, token) {
  if (token.get('status_dead')) return true;
  const now = bodyNow(app, token);
  return now !== null && now <= 0;
}

/** The page the forecast is about: the selection's (one page), else the GM's. */
function pageOf(app, msg, selected) {
  const pages = Array.from(new Set(selected.map((t) => t.get('_pageid'))));
  if (pages.length > 1) throw new UsageError('the selected tokens are on different pages: select tokens of one page');
  if (pages.length) return pages[0];
  const page = app.edge.gmPage(msg.playerid);
  if (!page) throw new UsageError('no page to read: select the tokens of the fight, or use --turns or --side');
  return page;
}

/** Party (a player controls it, or its character) or foes (the GM's), as `!fracas round` splits. */
function byControl(app, tokens) {
  const sides = { party: [], foes: [] };
  for (const token of tokens) (permissions.isNpc(app.edge, token) ? sides.foes : sides.party).push(token);
  return sides;
}

/**
 * The sides as tokens: {sides: {name: [token]}, how (a phrase for the card)}. Tokens the GM
 * named (selected, --side, the turn tracker) must be combatants; the rest of a page are its
 * tokens on the token and GM layers that represent a character.
 */
function sidesFrom(app, msg, o) {
  const edge = app.edge;
  const named = (token, where) => {
    if (!edge.getCharacter(token.get('represents'))) {
      throw new UsageError(`${tokenName(edge, token)} (${where}) represents no character, so its numbers are unknown: ` +
        'link it to a character, or leave it out of the fight');
    }
    return token;
  };
  if (o.sides.length) {
    const seen = new Map();
    const sides = {};
    for (const side of o.sides) {
      sides[side.name] = side.ids.map((id) => {
        const token = edge.getGraphic(id);
        if (!token) throw new UsageError(`no token with the id "${id}" (--side ${side.name})`);
        if (seen.has(id)) throw new UsageError(`${tokenName(edge, token)} is on two sides (--side ${seen.get(id)} and --side ${side.name})`);
        seen.set(id, side.name);
        return named(token, `--side ${side.name}`);
      });
    }
    return { sides, how: 'sides named by hand' };
  }
  if (o.turns) {
    const ids = Array.from(new Set(edge.turnOrder().filter((e) => e && typeof e.id === 'string' && e.id !== '-1').map((e) => e.id)));
    const tokens = ids.map((id) => edge.getGraphic(id)).filter(Boolean).map((t) => named(t, 'the turn order'));
    if (!tokens.length) throw new UsageError('the turn order has no tokens: add the fighters to it (!fracas init, or the tracker)');
    return { sides: byControl(app, tokens), how: 'the turn order: tokens players control against the rest' };
  }
  const selected = [];
  for (const sel of Array.isArray(msg.selected) ? msg.selected.slice(0, 500) : []) {
    const token = sel && sel._type === 'graphic' ? edge.getGraphic(sel._id) : null;
    if (token && !selected.includes(token)) selected.push(named(token, 'selected'));
  }
  const page = pageOf(app, msg, selected);
  const rest = edge.pageTokens(page).filter((t) => !selected.includes(t) && isCombatant(edge, t));
  if (selected.length) return { sides: { selected, rest }, how: 'the selected tokens against the rest of the page' };
  return { sides: byControl(app, rest), how: 'the page: tokens players control against the rest' };
}

/**
 * Display labels: a token's name, "#2", "#3" … after names that repeat (in side order).
 * `seen`: what players may read of each token (permissions.unnamedAs), numbered, or null for a
 * GM-layer token (left out of their card).
 */
function labels(app, order) {
  const edge = app.edge;
  const names = {};
  const count = {};
  for (const token of order) { const n = tokenName(edge, token); count[n] = (count[n] || 0) + 1; }
  const nth = {};
  for (const token of order) {
    const n = tokenName(edge, token);
    nth[n] = (nth[n] || 0) + 1;
    names[token.id] = count[n] > 1 ? `${n} #${nth[n]}` : n;
  }
  const seen = {};
  const unnamed = order.filter((t) => t.get('layer') !== 'gmlayer' && permissions.unnamedAs(t, edge));
  let k = 0;
  for (const token of order) {
    if (token.get('layer') === 'gmlayer') seen[token.id] = null;
    else if (unnamed.includes(token)) {
      k += 1;
      seen[token.id] = unnamed.length > 1 ? `an unnamed creature (${k})` : 'an unnamed creature';
    } else seen[token.id] = names[token.id];
  }
  return { names, seen };
}

/** One scenario group for `token`: its sheet read as `!fracas round` reads it, its Body now. */
function groupOf(app, token, ruleset, use, label) {
  const config = app.s().config;
  const read = combatantOf(app, token, ruleset, use);
  const group = read.combatant;
  const now = bodyNow(app, token);
  group.hp = Math.max(1, Math.round(now));
  group.label = String(label).slice(0, 200);
  const pools = hints.pools(ruleset);
  if (pools && config.injury_bar) {
    // CT-4: Injury Points on the injury bar (!fracas config --injury-bar), as attacks apply them.
    const injury = asNumber(token.get(`bar${config.injury_bar}_value`));
    if (injury !== null && injury >= 1) group[pools[1]] = Math.round(injury);
  }
  return group;
}

/**
 * Each group checked with this script's resolver, where it has the ruleset: its strikes made
 * at itself, which checks its attacker fields, its strikes and its target fields at once, so a
 * sheet mistake is refused now, naming the token and the field (`attacker.strength`, `strike
 * 1.dice`, `target.ac`). The bridge checks every pair of enemies again.
 */
function checkGroups(ruleset, scenario, names) {
  const others = rulesets.OTHERS || {};
  const compile = rulesets.ownClient(ruleset) ? (req) => compileAttack(req, { seed: 0 })
    : others[ruleset] ? (req) => rows.compileAttack(others[ruleset], req, { seed: 0 }) : null;
  if (!compile) return;
  for (const [side, groups] of Object.entries(scenario.sides)) {
    for (const group of groups) {
      const req = {
        attacker: group.attacker,
        strikes: group.attacks.map((st) => Object.assign({}, st, { target: 't' })),
        targets: { t: group.target },
      };
      if (!rulesets.ownClient(ruleset)) req.ruleset = ruleset; // its own client's requests name none
      try {
        compile(req);
      } catch (err) {
        if (err.path === undefined) throw err;
        const field = String(err.path).replace(/^\$\.targets\.t/, 'target')
          .replace(/^\$\.strikes\[(\d+)\]/, (m, i) => `strike ${Number(i) + 1}`).replace(/^\$\.attacker/, 'attacker');
        throw new UsageError(`${names[group.name]} (${side}): ${field}: ${err.reason || err.message}; nothing was sent`);
      }
    }
  }
}

/** The scenario from the page, the turn order or --side: {scenario, meta}. */
function build(app, msg, o, ruleset) {
  const { sides: tokenSides, how } = sidesFrom(app, msg, o);
  const left = [];
  const sides = {};
  for (const [side, tokens] of Object.entries(tokenSides)) {
    sides[side] = [];
    for (const token of tokens) {
      if (isDown(app, token)) left.push(token);
      else sides[side].push(token);
    }
  }
  const all = Object.values(sides).flat();
  if (all.length > MAX_TOKENS) throw new UsageError(`${all.length} tokens in the fight, the most is ${MAX_TOKENS}`);
  const empty = Object.keys(sides).filter((side) => !sides[side].length);
  if (empty.length || Object.keys(sides).length < 2) {
    throw new UsageError(`a forecast needs two sides with someone standing (${how}); ${empty.join(' and ') || 'a side'} ` +
      `${empty.length > 1 ? 'have' : 'has'} nobody: select the fighters of one side, or use --turns or --side`);
  }
  const fight = hints.hints(ruleset);
  if (fight.fight_sides && Object.keys(sides).length !== fight.fight_sides) {
    throw new UsageError(`a ${hints.title(ruleset)} fight has exactly ${WORDS[fight.fight_sides] || fight.fight_sides} sides` +
      ` (${fight.fight_rule})`);
  }
  const { names, seen } = labels(app, all.concat(left));
  const scenario = { ruleset, name: 'Roll20 forecast', sides: {} };
  const sideOf = {};
  for (const [side, tokens] of Object.entries(sides)) {
    for (const token of tokens) {
      const body = bodyNow(app, token);
      if (body === null) {
        throw new UsageError(`${names[token.id]} (${side}): bar ${app.s().config.bar} holds no number, so its Body is unknown: ` +
          'give it one, or leave the token out of the fight');
      }
    }
    scenario.sides[side] = tokens.map((token) => groupOf(app, token, ruleset, o.use, names[token.id]));
    for (const token of tokens) sideOf[token.id] = side;
  }
  if (fight.fight_party) {
    // CT-1: one side is the party (the one whose tokens players control, else the first).
    const party = Object.keys(sides).find((side) => sides[side].some((t) => !permissions.isNpc(app.edge, t))) || Object.keys(sides)[0];
    scenario.initiative = { [fight.fight_party]: party };
  }
  checkGroups(ruleset, scenario, names);
  return {
    scenario,
    meta: {
      names, seen, sideOf, how, ruleset, sides: Object.keys(scenario.sides),
      left: left.map((t) => names[t.id]),
      hidden: all.filter((t) => t.get('layer') === 'gmlayer').map((t) => t.id),
    },
  };
}

/** The stored earlier forecast `id`, or a clear refusal. */
function stored(app, id) {
  const list = Array.isArray(app.s().forecasts) ? app.s().forecasts : [];
  const entry = list.find((e) => e && e.id === id);
  if (!entry) {
    throw new UsageError(`no forecast "${id}" kept (the last ${KEEP} are, with their buttons): run !fracas forecast again`);
  }
  return entry;
}

/**
 * The sweep of `--vary TOKEN`: {scenario, request, card}. The tokens alike the given one (its
 * side's groups with the same numbers and Body, shown to players alike) become one group of
 * that count, so the sweep answers "how many of these make the fight even?", fewer as well as
 * more; its values run from 1 up (by default to twice their count, at least 4 more and at least
 * 6, at most 40, in at most 20 points); the side followed is the first other side.
 */
function sweepOf(scenario, meta, o) {
  const sides = Object.keys(scenario.sides);
  const side = sides.find((s) => scenario.sides[s].some((g) => g.name === o.vary));
  if (side === undefined) throw new UsageError(`--vary ${o.vary}: that token is not in the fight (pick one of its tokens)`);
  const groups = scenario.sides[side];
  const group = groups.find((g) => g.name === o.vary);
  const spec = (g) => JSON.stringify(Object.assign({}, g, { name: null, label: null, count: null }));
  const shown = (id) => (meta.seen[id] === null ? 'hidden' : meta.seen[id] === meta.names[id] ? 'named' : 'unnamed');
  const alike = groups.filter((g) => !g.count && spec(g) === spec(group) && shown(g.name) === shown(group.name));
  const members = alike.map((g) => g.name);
  const label = String(meta.names[o.vary] || o.vary).replace(/ #\d+$/, '');
  const merged = Object.assign({}, group, { label });
  if (members.length > 1) merged.count = members.length;
  const list = [];
  for (const g of groups) {
    if (g === alike[0]) list.push(merged);
    else if (!members.includes(g.name)) list.push(g);
  }
  const out = Object.assign({}, scenario, { sides: Object.assign({}, scenario.sides, { [side]: list }) });
  const others = sides.filter((s) => s !== side);
  let values = o.values;
  if (values === undefined) {
    const top = Math.min(40, Math.max(6, 2 * members.length, members.length + 4));
    const step = Math.ceil(top / 20);
    values = step > 1 ? `1..${top}:${step}` : `1..${top}`;
  }
  const counts = values.includes('..') ? values.split(/\.\.|:/).slice(0, 2).map(Number) : values.split(',').map(Number);
  const bad = counts.find((n) => n < 1 || n > MAX_COUNT);
  if (bad !== undefined) throw new UsageError(`--values: a count is 1 to ${MAX_COUNT}, not ${bad}`);
  const follow = others[0];
  const target = o.target !== undefined ? o.target : 0.5;
  return {
    scenario: out,
    request: { path: `$.sides.${side}[${list.indexOf(merged)}].count`, values, target, side: follow },
    card: { token: o.vary, side, follow, target, name: label, count: members.length, members },
  };
}

/** A kept scenario as it was before a sweep made the alike tokens one group (keep()). */
function unmerged(scenario, meta) {
  const vary = meta.vary;
  if (!vary || !(vary.count > 1) || !scenario.sides || !Array.isArray(scenario.sides[vary.side])) return scenario;
  const list = [];
  for (const g of scenario.sides[vary.side]) {
    if (g && g.name === vary.token) {
      for (const id of vary.members) {
        const one = Object.assign({}, g, { name: id, label: String((meta.names && meta.names[id]) || id).slice(0, 200) });
        delete one.count;
        list.push(one);
      }
    } else list.push(g);
  }
  return Object.assign({}, scenario, { sides: Object.assign({}, scenario.sides, { [vary.side]: list }) });
}

function forecastCommand(app, msg, cmd) {
  const o = parseOptions(cmd);
  if (o.shareId !== undefined) return shareCommand(app, msg, o.shareId);
  let scenario;
  let meta;
  if (o.from !== undefined) {
    const entry = stored(app, o.from);
    scenario = JSON.parse(JSON.stringify(entry.scenario));
    meta = {
      names: entry.names, seen: entry.seen, sideOf: entry.sideOf, how: entry.how, ruleset: entry.ruleset,
      sides: Object.keys(scenario.sides), left: entry.left, hidden: entry.hidden, from: entry.id,
    };
  } else {
    const ruleset = require('./attack').rulesetOf(app, cmd);
    ({ scenario, meta } = build(app, msg, o, ruleset));
  }
  const params = { scenario, runs: o.runs !== undefined ? o.runs : o.vary !== undefined ? SWEEP_RUNS : RUNS };
  params.seed = o.seed !== undefined ? o.seed : app.newSeed();
  if (o.vary !== undefined) {
    const sweep = sweepOf(scenario, meta, o);
    params.scenario = sweep.scenario;
    params.vary = sweep.request;
    meta.vary = sweep.card;
  }
  Object.assign(meta, { playerid: msg.playerid, share: o.share, runs: params.runs });
  const sent = relaylink.send(app, 'fight.forecast', params, meta);
  const count = Object.values(scenario.sides).reduce((n, list) => n + list.length, 0); // tokens (one group each)
  app.whisper(msg.playerid, cards.notice('fracas forecast', [
    `${params.runs} fight${params.runs === 1 ? '' : 's'} of ${count} combatants (${esc.text(meta.how)}) sent to the bridge as ` +
    `${esc.text(sent.id)}${meta.vary ? `, the count of ${esc.text(meta.vary.name)} (now ${meta.vary.count}) varied over ` +
      `${esc.text(params.vary.values)}` : ''}; ` +
    'the card follows when it answers.',
  ].concat(meta.left.length ? [`left out, already down: ${meta.left.map(esc.text).join(', ')}`] : [])));
  return sent;
}

/** `!fracas forecast --share ID`: the players' card of an earlier forecast, in public chat. */
function shareCommand(app, msg, id) {
  const entry = stored(app, id);
  if (typeof entry.card !== 'string' || !entry.card) throw new UsageError(`forecast ${id} has no card to share (the bridge refused it)`);
  app.edge.send(entry.card);
  app.whisper(msg.playerid, cards.notice('fracas forecast', [`the players' card of ${esc.text(id)} is in the chat.`]));
}

/** Keep a forecast's scenario and players' card for its buttons (the last KEEP). */
function keep(app, pending, id, card) {
  const s = app.s();
  if (!Array.isArray(s.forecasts)) s.forecasts = [];
  let scenario = null;
  try {
    scenario = bigjson.parse(pending.text).params.scenario;
  } catch (err) {
    return;
  }
  const m = pending.meta;
  s.forecasts = s.forecasts.filter((e) => e && e.id !== id);
  s.forecasts.push({
    id, time: app.edge.now(), scenario: JSON.parse(JSON.stringify(unmerged(scenario, m))), names: m.names, seen: m.seen, sideOf: m.sideOf,
    how: m.how, ruleset: m.ruleset, left: m.left || [], hidden: m.hidden || [], card: card || null,
  });
  while (s.forecasts.length > KEEP) s.forecasts.shift();
}

/** fight.forecast answered: the GM's card (whispered), the players' card kept (and posted with --share). */
function onForecast(app, pending, result, id) {
  const meta = pending.meta;
  if (!result || typeof result !== 'object' || !result.sides || typeof result.sides !== 'object') {
    app.error(null, `the bridge's answer to forecast ${id} has no sides`);
    return;
  }
  const players = forecastCard(meta, result, { id, players: true });
  keep(app, pending, id, players);
  app.edge.whisper('gm', forecastCard(meta, result, { id, players: false }));
  if (meta.share) app.edge.send(players);
}

/** A path of the request (`$.params.scenario.sides.foes[2].target.ac`) in table words. */
function where(meta, scenario, path) {
  const m = /^\$\.params\.scenario\.sides\.([A-Za-z_][A-Za-z0-9_]*)\[(\d+)\](.*)$/.exec(path);
  if (m && scenario && scenario.sides && Array.isArray(scenario.sides[m[1]])) {
    const group = scenario.sides[m[1]][Number(m[2])];
    const name = group && meta.names && meta.names[group.name];
    if (name) {
      const field = m[3].replace(/^\./, '');
      const hint = !rulesets.ownClient(meta.ruleset) && /^(attacker|target|attacks\[\d+\])\.[a-z_]+$/.test(field)
        ? ` (its sheet attribute fracas_${field.split('.').pop()})` : '';
      return `${name} (${m[1]})${field ? `, ${field}${hint}` : ''}`;
    }
  }
  if (/^\$\.params\.vary/.test(path)) return `--vary (${path.replace(/^\$\.params\./, '')})`;
  if (/^\$\.params\.runs/.test(path)) return '--runs';
  return path;
}

/** fight.forecast refused: the budget's limit (with a button for what it allows), a field by its token. */
function onForecastError(app, pending, error, id) {
  const meta = pending.meta;
  let scenario = null;
  try {
    scenario = bigjson.parse(pending.text).params.scenario;
  } catch (err) {
    scenario = null;
  }
  keep(app, pending, id, null);
  const code = Number(error.code);
  const message = String(error.message || 'error');
  const data = error.data && typeof error.data === 'object' ? error.data : {};
  const lines = [];
  if (code === -32003) {
    lines.push(`The bridge's forecast budget refused ${esc.text(id)}: ${esc.text(message)}`);
    const most = /at most ([\d,]+) fights?/.exec(message);
    const fights = most ? Number(most[1].replace(/,/g, '')) : NaN;
    if (Number.isSafeInteger(fights) && fights >= 1) {
      const vary = meta.vary ? ` --vary ${meta.vary.token}` : '';
      lines.push(esc.button(`forecast ${fights} fights`, `!fracas forecast --from ${id} --runs ${fights}${vary}`));
    }
  } else if (code === -32602 && typeof data.path === 'string') {
    const reason = typeof data.reason === 'string' ? data.reason : message;
    lines.push(`The bridge cannot play ${esc.text(id)}: ${esc.text(where(meta, scenario, data.path))}: ${esc.text(reason)}`);
  } else {
    lines.push(`The bridge refused forecast ${esc.text(id)}: ${esc.text(message)} (code ${Number.isFinite(code) ? code : '?'})`);
  }
  app.whisper('gm', cards.notice('fracas forecast: not played', lines, 'error'));
}

relaylink.register('fight.forecast', onForecast, onForecastError);

module.exports = { forecastCommand, parseOptions, build, sweepOf, where, RUNS, SWEEP_RUNS, KEEP };
