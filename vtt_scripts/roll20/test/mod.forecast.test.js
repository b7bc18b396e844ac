'use strict';
// `!fracas forecast` in the emulated sandbox: the scenario it sends (`fight.forecast` through
// the relay) matches the scene (sides, numbers, hidden tokens), the GM's card and the players'
// card from an answer shaped as the contract says (fracas.simulate's result without timing,
// plus `sweep` with vary), the buttons, the refusals and the bridge's errors. The answer is
// built here as the contract describes it; with a Python that has fracas, one test answers
// with the engine's own forecast (fracas.forecast) of the very request the Mod sent.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { plain, assertSafe, relayRequests, relayAnswer } = require('./world');
const { Emulator } = require('./emulator');
const { pythonPath, pythonHasFracas, skipUnlessCI, REPO_ROOT } = require('./helpers');

/**
 * The scene: on page-1 a hero (Pat's), a goblin players see named, a goblin whose nameplate
 * they do not see, a hidden assassin on the GM layer, a goblin already down, a torch (no
 * character), a goblin drawn on the map layer; on page-2 a rat.
 */
function scene() {
  const emu = new Emulator();
  const pat = emu.addPlayer('Pat');
  const hero = emu.addCharacter('Hero', {
    strength: 6, agility: 4, ac: 15, fracas_strikes: '--dice 3 --style cleaving --weight 2 --type edged',
  }, { controlledby: pat.id });
  const goblin = emu.addCharacter('Goblin', {
    strength: 2, agility: 3, ac: 12, resistant: 'poison', fracas_strikes: '--dice 2 --style slashing --weight 1 --type edged',
  });
  const assassin = emu.addCharacter('Assassin', {
    strength: 4, agility: 6, ac: 14, fracas_strikes: '--dice 2 --style piercing --weight 0 --type piercing',
  });
  const named = { showplayers_name: true };
  const tokens = {
    hero: emu.addToken({ name: 'Hero', represents: hero.id, bar1_value: '25', bar1_max: '30', controlledby: pat.id, ...named }),
    g1: emu.addToken({ name: 'Goblin', represents: goblin.id, bar1_value: '8', bar1_max: '8', ...named }),
    g2: emu.addToken({ name: 'Goblin', represents: goblin.id, bar1_value: '5', bar1_max: '8' }), // nameplate hidden
    assassin: emu.addToken({ name: 'Secret Assassin', represents: assassin.id, bar1_value: '12', bar1_max: '12', layer: 'gmlayer' }),
    down: emu.addToken({ name: 'Dead Goblin', represents: goblin.id, bar1_value: '0', bar1_max: '8', ...named }),
    torch: emu.addToken({ name: 'Torch', ...named }),
    drawn: emu.addToken({ name: 'Goblin statue', represents: goblin.id, bar1_value: '8', layer: 'map' }),
  };
  emu.create('page', { _id: 'page-2' });
  tokens.rat = emu.addToken({ _pageid: 'page-2', name: 'Rat', represents: goblin.id, bar1_value: '3', bar1_max: '3' });
  return { emu, pat, tokens };
}

/** The one fight.forecast request among `out`. */
function forecastRequest(out) {
  const reqs = relayRequests(out);
  assert.equal(reqs.length, 1, out.map((o) => o.raw).join('\n'));
  assert.equal(reqs[0].method, 'fight.forecast');
  return reqs[0];
}

/**
 * An answer as the contract (notes/forecast-contract, bridge/README.md) shapes it: simulate's
 * result without timing; `rates` side → win rate, `fall` member id → down rate; `sweep` added as is.
 */
function answer(req, rates, fall = {}, sweep = undefined) {
  const { scenario, runs, seed } = req.params;
  const sides = Object.keys(scenario.sides);
  const result = {
    scenario: scenario.name, ruleset: scenario.ruleset, seed, runs, completed: runs, interrupted: false,
    sides: {}, draws: { count: 0, rate: 0, rate_ci95: [0, 0] },
    rounds: { mean: 4.31, median: 4, min: 2, max: 9, histogram: { 2: 40, 3: 210, 4: 380, 5: 220, 6: 100, 7: 30, 8: 15, 9: 5 } },
    combatants: {}, fight_loop: { compiled_fights: runs, python_fights: 0, python_why: null }, stopped_by: null,
  };
  let drawn = 1;
  for (const side of sides) {
    const r = rates[side];
    drawn -= r;
    result.sides[side] = {
      wins: Math.round(r * runs), win_rate: r, win_rate_ci95: [Math.max(0, r - 0.03), Math.min(1, r + 0.03)],
      combatants: scenario.sides[side].length, survivors_mean: 1.2,
    };
    for (const g of scenario.sides[side]) {
      const down = fall[g.name] !== undefined ? fall[g.name] : 0.1;
      result.combatants[g.name] = {
        side, group: g.name, dealt_mean: 6.5, taken_mean: 7.25, survived_rate: 1 - down, fled_rate: 0, down_rate: down,
      };
    }
  }
  result.draws.rate = Math.max(0, Math.round(drawn * 1000) / 1000);
  result.draws.count = Math.round(result.draws.rate * runs);
  result.draws.rate_ci95 = [Math.max(0, result.draws.rate - 0.01), result.draws.rate + 0.01];
  if (sweep !== undefined) result.sweep = sweep;
  return { jsonrpc: '2.0', id: req.id, result };
}

const text = (outs) => outs.map((o) => plain(o.text)).join('\n');
/** A card's text, a line per block (div, table row) and a space per cell. */
const lines = (html) => plain(html.replace(/<\/(div|tr)>/g, '\n').replace(/<\/td>/g, ' '));

test('nothing selected: the GM\'s page, party against foes; each token one group with its sheet\'s numbers and its Body now', () => {
  const { emu, tokens } = scene();
  tokens.hero.set('statusmarkers', 'prone'); // markers are not read: a fight applies damage only (as !fracas round)
  const out = emu.chat(emu.gm, '!fracas forecast --seed 7');
  const req = forecastRequest(out);
  const { scenario } = req.params;
  assert.equal(req.params.seed, 7);
  assert.equal(req.params.runs, 1000);
  assert.equal(scenario.ruleset, 'enchanted-realms');
  assert.deepEqual(Object.keys(scenario.sides), ['party', 'foes']);
  // One group per token, named by its id (the answer's member ids are then the token ids).
  assert.deepEqual(scenario.sides.party.map((g) => g.name), [tokens.hero.id]);
  // The down goblin, the torch, the statue on the map layer and the rat on another page are not in it;
  // the assassin on the GM layer is.
  assert.deepEqual(scenario.sides.foes.map((g) => g.name), [tokens.g1.id, tokens.g2.id, tokens.assassin.id]);
  assert.deepEqual(scenario.sides.foes.map((g) => g.label), ['Goblin #1', 'Goblin #2', 'Secret Assassin']);
  for (const g of [...scenario.sides.party, ...scenario.sides.foes]) assert.equal(g.count, undefined, 'count 1 (the default)');
  // The numbers as the attack readers give them: the Body now (bar1_value), not its maximum.
  const [hero] = scenario.sides.party;
  assert.equal(hero.hp, 25);
  assert.deepEqual(hero.attacker, { strength: 6, agility: 4 });
  assert.deepEqual(hero.target, { ac: 15, body_max: 30 });
  assert.deepEqual(hero.attacks, [{ method: 'melee', style: 'cleaving', dice: 3, damage_type: 'edged', weight: 2 }]);
  const g2 = scenario.sides.foes[1];
  assert.equal(g2.hp, 5);
  assert.deepEqual(g2.target, { ac: 12, resistant: ['poison'], body_max: 8 });
  assert.equal(scenario.sides.foes[2].hp, 12);
  // The GM is told what was sent and what was left out; players hear nothing (only the GM sees relay frames).
  assert.match(text(out), /1000 fights of 4 combatants \(the page: tokens players control against the rest\)/);
  assert.match(text(out), /left out, already down: Dead Goblin/);
  assert.ok(out.every((o) => o.to === 'gm'), out.map((o) => o.raw).join('\n'));
  assertSafe(assert, emu);
});

test('selected tokens against the rest of their page; --turns; --side by hand', () => {
  const { emu, tokens } = scene();
  let req = forecastRequest(emu.chat(emu.gm, '!fracas forecast', { selected: [tokens.g1.id, tokens.g2.id] }));
  assert.deepEqual(Object.fromEntries(Object.entries(req.params.scenario.sides).map(([s, g]) => [s, g.map((x) => x.name)])),
    { selected: [tokens.g1.id, tokens.g2.id], rest: [tokens.hero.id, tokens.assassin.id] });
  // The turn order: players' tokens the party, the rest the foes (as !fracas round splits them).
  emu.campaign().set('turnorder', JSON.stringify([tokens.g2.id, tokens.hero.id, '-1'].map((id) => ({ id, pr: 5, custom: '' }))));
  req = forecastRequest(emu.chat(emu.gm, '!fracas forecast --turns --runs 200'));
  assert.equal(req.params.runs, 200);
  assert.deepEqual(Object.fromEntries(Object.entries(req.params.scenario.sides).map(([s, g]) => [s, g.map((x) => x.name)])),
    { party: [tokens.hero.id], foes: [tokens.g2.id] });
  req = forecastRequest(emu.chat(emu.gm, `!fracas forecast --side heroes ${tokens.hero.id} --side ambush ${tokens.assassin.id},${tokens.g1.id}`));
  assert.deepEqual(Object.fromEntries(Object.entries(req.params.scenario.sides).map(([s, g]) => [s, g.map((x) => x.name)])),
    { heroes: [tokens.hero.id], ambush: [tokens.assassin.id, tokens.g1.id] });
  // Nothing selected: the page the GM looks at (the GM's _lastpage), not the players' page.
  const twin = emu.addToken({ _pageid: 'page-2', name: 'Hero', represents: tokens.hero.get('represents'), bar1_value: '9',
    controlledby: tokens.hero.get('controlledby') });
  emu.gm.data._lastpage = 'page-2';
  req = forecastRequest(emu.chat(emu.gm, '!fracas forecast'));
  assert.deepEqual(Object.fromEntries(Object.entries(req.params.scenario.sides).map(([s, g]) => [s, g.map((x) => x.name)])),
    { party: [twin.id], foes: [tokens.rat.id] });
  emu.gm.data._lastpage = '';
  // --use NAME: the strikes of fracas_strikes_NAME.
  const heroSheet = tokens.hero.get('represents');
  let out = emu.chat(emu.gm, `!fracas forecast --use bow --side a ${tokens.hero.id} --side b ${tokens.g1.id}`);
  assert.match(text(out), /Hero has no strikes: put them in its "fracas_strikes_bow" attribute/);
  for (const sheet of [heroSheet, tokens.g1.get('represents')]) {
    emu.create('attribute', { _characterid: sheet, name: 'fracas_strikes_bow', current: '--dice 2 --style archery --type piercing' });
  }
  req = forecastRequest(emu.chat(emu.gm, `!fracas forecast --use bow --side a ${tokens.hero.id} --side b ${tokens.g1.id}`));
  assert.deepEqual(req.params.scenario.sides.a[0].attacks, [{ method: 'range', style: 'archery', dice: 2, damage_type: 'piercing' }]);
  // Another ruleset: the sheet's fracas_<field> attributes, as !fracas round reads them.
  const ct = emu.addCharacter('Brute', { fracas_level: 3, fracas_bonus: 2, fracas_die: 'd6', fracas_dex: 2, fracas_armor: 1 });
  const brute = emu.addToken({ name: 'Brute', represents: ct.id, bar1_value: '20', bar2_value: '9' });
  const knight = emu.addCharacter('Knight', { fracas_level: 5, fracas_bonus: 3, fracas_die: 'd8', fracas_dex: 3, fracas_armor: 2 });
  const kay = emu.addToken({ name: 'Kay', represents: knight.id, bar1_value: '24' });
  emu.chat(emu.gm, '!fracas config --injury-bar 2');
  req = forecastRequest(emu.chat(emu.gm, `!fracas forecast --ruleset cartyrion --side a ${kay.id} --side b ${brute.id}`));
  assert.deepEqual(req.params.scenario.sides.b[0], {
    name: brute.id, label: 'Brute', hp: 20, injury: 9, attacker: { level: 3, bonus: 2 }, target: { dex: 2, armor: 1 },
    attacks: [{ method: 'melee', die: 'd6' }],
  });
  assert.deepEqual(req.params.scenario.initiative, { party: 'a' }); // CT-1: no side is a player's: the first
  assertSafe(assert, emu);
});

test('the GM\'s card names everyone and has the buttons; the players\' card, shared, leaves out the GM layer and names no unnamed creature', () => {
  const { emu, tokens } = scene();
  const req = forecastRequest(emu.chat(emu.gm, '!fracas forecast --seed 7'));
  const fall = { [tokens.g2.id]: 0.91, [tokens.assassin.id]: 0.8, [tokens.hero.id]: 0.24, [tokens.g1.id]: 0.6 };
  const outs = relayAnswer(emu, answer(req, { party: 0.62, foes: 0.35 }, fall));
  assert.equal(outs.length, 1);
  const keptFirst = JSON.parse(JSON.stringify(emu.state.fracas.forecasts[0]));
  const [gm] = outs;
  assert.equal(gm.to, 'gm');
  const card = lines(gm.text);
  assert.match(card, /^Forecast: party vs foes$/m);
  assert.match(card, /^1,000 fights · the page: tokens players control against the rest$/m);
  assert.match(card, /^party 62% \(59–65%\)$/m);
  assert.match(card, /^foes 35% \(32–38%\)$/m);
  assert.match(card, /^draws 3% \(2–4%\)$/m);
  assert.match(card, /^rounds: 4\.3 on average \(median 4, 2–9\)$/m);
  // Who is likely to fall, most likely first, the GM's names (the hidden ones too): down, damage taken.
  const order = ['Goblin #2 (foes)\n 91% 7.3', 'Secret Assassin (foes)\n 80% 7.3', 'Goblin #1 (foes)\n 60% 7.3', 'Hero (party)\n 24% 7.3'];
  let at = -1;
  for (const line of order) {
    const found = card.indexOf(line);
    assert.ok(found > at, `${line} in order in:\n${card}`);
    at = found;
  }
  assert.match(card, /1 on the GM layer: never on the players' card/);
  assert.match(card, /seed 7/);
  assert.match(gm.text, new RegExp(`\\[share\\]\\(!fracas forecast --share ${req.id}\\)`));
  // The vary button asks Roll20 for the token when it is clicked (@{target|…} written as entities,
  // as Condefinition.js line 1198 writes its "pick a target" button).
  assert.ok(gm.text.includes(`[vary](!fracas forecast --from ${req.id} --vary &#64;&#123;target&#124;Whose group count to vary?&#124;token_id&#125;)`), gm.text);
  assert.equal(emu.state.fracas.forecasts.length, 1);
  // The last three forecasts are kept for their buttons.
  for (let i = 0; i < 3; i++) {
    const next = forecastRequest(emu.chat(emu.gm, '!fracas forecast'));
    relayAnswer(emu, answer(next, { party: 0.5, foes: 0.5 }));
  }
  assert.equal(emu.state.fracas.forecasts.length, 3);
  assert.match(text(emu.chat(emu.gm, `!fracas forecast --share ${req.id}`)), new RegExp(`no forecast "${req.id}" kept \\(the last 3 are`));
  emu.state.fracas.forecasts.unshift(keptFirst);

  // Shared: a public card, without the GM layer's creature, and the unnamed goblin unnamed.
  const shared = emu.chat(emu.gm, `!fracas forecast --share ${req.id}`);
  const pub = shared.filter((o) => !o.to);
  assert.equal(pub.length, 1, shared.map((o) => o.raw).join('\n'));
  const players = lines(pub[0].text);
  assert.match(players, /^party 62% \(59–65%\)$/m);
  assert.ok(players.includes('an unnamed creature (foes)\n 91% 7.3'), players);
  assert.ok(players.includes('Goblin #1 (foes)\n 60% 7.3'), players);
  assert.ok(!/Assassin|Secret|80%/.test(players), players);
  assert.ok(!/Goblin #2/.test(players), players);
  assert.ok(!/\[|GM layer|left out|seed/.test(players), `no buttons, no GM notes: ${players}`);
  assertSafe(assert, emu);
});

test('--share posts the players\' card when the answer comes; a player asking is refused, nothing sent', () => {
  const { emu, pat } = scene();
  const req = forecastRequest(emu.chat(emu.gm, '!fracas forecast --share'));
  const outs = relayAnswer(emu, answer(req, { party: 0.5, foes: 0.5 }));
  assert.equal(outs.filter((o) => o.to === 'gm').length, 1);
  const pub = outs.filter((o) => !o.to);
  assert.equal(pub.length, 1);
  assert.ok(!/Secret Assassin/.test(plain(pub[0].text)));
  const refused = emu.chat(pat, '!fracas forecast');
  assert.equal(relayRequests(refused).length, 0);
  assert.match(text(refused), /!fracas forecast is for the GM: the GM sees the forecast and may share its card with the players/);
  assert.ok(refused.every((o) => o.players && o.players.includes(pat.id)), 'the refusal goes to the player');
  // Nor may a player post a kept card.
  assert.equal(emu.chat(pat, `!fracas forecast --share ${req.id}`).filter((o) => !o.to).length, 0);
});

test('--vary TOKEN: the tokens alike it become one group whose count is swept; the card shows the followed side\'s chance at each count', () => {
  const { emu, tokens } = scene();
  // A third goblin like the first (same sheet, same Body, nameplate shown): the two are one group of 2.
  const g3 = emu.addToken({ name: 'Goblin', represents: tokens.g1.get('represents'), bar1_value: '8', bar1_max: '8', showplayers_name: true });
  const plainRun = forecastRequest(emu.chat(emu.gm, '!fracas forecast'));
  const req = forecastRequest(emu.chat(emu.gm, `!fracas forecast --vary ${tokens.g1.id} --seed 3`));
  assert.deepEqual(req.params.vary, { path: '$.sides.foes[0].count', values: '1..6', target: 0.5, side: 'party' });
  assert.equal(req.params.runs, 500);
  const foes = req.params.scenario.sides.foes;
  assert.deepEqual(foes.map((g) => [g.name, g.count, g.label]),
    [[tokens.g1.id, 2, 'Goblin'], [tokens.g2.id, undefined, 'Goblin #2'], [tokens.assassin.id, undefined, 'Secret Assassin']]);
  const { name, label, ...numbers } = plainRun.params.scenario.sides.foes.find((g) => g.name === g3.id);
  assert.deepEqual(Object.assign({}, foes[0], { name: undefined, label: undefined, count: undefined }),
    Object.assign({ name: undefined, label: undefined, count: undefined }, numbers));
  const values = [1, 2, 4, 7, 10];
  const rates = [0.95, 0.8, 0.7, 0.44, 0.2];
  const sweep = {
    scenario: 'Roll20 forecast', ruleset: 'enchanted-realms', seed: 3, runs: 500,
    vary: [{ path: '$.sides.foes[0].count', values }], sides: ['party', 'foes'],
    points: values.map((v, i) => ({
      index: i, values: { '$.sides.foes[0].count': v }, seed: 3 + i, completed: 500,
      sides: { party: { wins: 1, win_rate: rates[i], win_rate_ci95: [rates[i] - 0.04, rates[i] + 0.04], combatants: 1, survivors_mean: 1 },
        foes: { wins: 1, win_rate: 1 - rates[i], win_rate_ci95: [0.01, 0.1], combatants: 2 + v, survivors_mean: 1 } },
      draws: { count: 0, rate: 0, rate_ci95: [0, 0.01] }, rounds: { mean: 4, median: 4, min: 2, max: 8 },
      fight_loop: { compiled_fights: 500, python_fights: 0, python_why: null },
    })),
    completed_points: 5, interrupted: false, stopped_by: null,
    target: { side: 'party', win_rate: 0.5, along: '$.sides.foes[0].count', rows: [{ at: {}, crossings: [{ at: 6.2, between: [4, 7] }] }] },
  };
  // The answer's members: the group of 2 is "<id> 1" and "<id> 2" (simulate's member ids).
  const reply = answer(req, { party: 0.6, foes: 0.4 }, {}, sweep);
  const [one] = Object.values(reply.result.combatants).filter((c) => c.group === tokens.g1.id);
  delete reply.result.combatants[tokens.g1.id];
  reply.result.combatants[`${tokens.g1.id} 1`] = Object.assign({}, one, { down_rate: 0.9, taken_mean: 8 });
  reply.result.combatants[`${tokens.g1.id} 2`] = Object.assign({}, one, { down_rate: 0.7, taken_mean: 6 });
  const [gm] = relayAnswer(emu, reply);
  const card = lines(gm.text);
  assert.match(card, /^party's chance by the number of Goblin \(foes; now 2\):$/m);
  assert.match(card, /^7\s+44%/m);
  assert.match(card, /^50% at a count of about 6\.2$/m);
  assert.ok(card.includes('Goblin (×2, each) (foes)\n 80% 7'), card);
  // The players' card has no sweep.
  const pub = emu.chat(emu.gm, `!fracas forecast --share ${req.id}`).filter((o) => !o.to);
  assert.ok(!/chance by the number/.test(plain(pub[0].text)));
  assert.ok(lines(pub[0].text).includes('Goblin (×2, each) (foes)\n 80% 7'), lines(pub[0].text));
  // The vary button's command, as Roll20 sends it once the GM clicks a token: the kept scenario
  // (one group a token again), swept on the token clicked.
  const again = forecastRequest(emu.chat(emu.gm, `!fracas forecast --from ${req.id} --vary ${tokens.hero.id} --values 1,2,3 --target 0.25`));
  assert.deepEqual(again.params.vary, { path: '$.sides.party[0].count', values: '1,2,3', target: 0.25, side: 'foes' });
  const byName = (sc) => Object.fromEntries(Object.values(sc.sides).flat().map((g) => [g.name, g]));
  assert.deepEqual(byName(again.params.scenario), byName(plainRun.params.scenario));
  assertSafe(assert, emu);
});

test('a swept group of unnamed tokens is "unnamed creatures" on the players\' card; one on the GM layer is not on it', () => {
  for (const [which, expected] of [['g2', /^unnamed creatures \(×2, each\) \(foes\)$/m], ['assassin', null]]) {
    const { emu, tokens } = scene();
    const twin = tokens[which];
    emu.addToken({ name: twin.get('name'), represents: twin.get('represents'), bar1_value: twin.get('bar1_value'),
      bar1_max: twin.get('bar1_max'), layer: twin.get('layer') });
    const req = forecastRequest(emu.chat(emu.gm, `!fracas forecast --vary ${twin.id}`));
    const reply = answer(req, { party: 0.5, foes: 0.5 }, {});
    for (const k of [1, 2]) {
      reply.result.combatants[`${twin.id} ${k}`] = { side: 'foes', group: twin.id, dealt_mean: 1, taken_mean: 9, survived_rate: 0.1,
        fled_rate: 0, down_rate: 0.9 };
    }
    delete reply.result.combatants[twin.id];
    const [gm] = relayAnswer(emu, reply);
    assert.match(lines(gm.text), new RegExp(`^${twin.get('name').replace(/ .*/, '')}.* \\(×2, each\\) \\(foes\\)$`, 'm'));
    const pub = lines(emu.chat(emu.gm, `!fracas forecast --share ${req.id}`).filter((o) => !o.to)[0].text);
    if (expected) assert.match(pub, expected);
    else assert.ok(!/×2|Assassin|90%/.test(pub), pub);
  }
});

test('refusals name the token and the field; nothing is sent', () => {
  const cases = [
    [(s) => s.tokens.g1.set('bar1_value', ''), '!fracas forecast', /Goblin #1 \(foes\): bar 1 holds no number, so its Body is unknown/],
    [(s) => s.emu.attribute(s.tokens.g1.get('represents'), 'ac').set('current', 'x'), '!fracas forecast',
      /Goblin: the attribute "ac" is "x", not a whole number/],
    [(s) => s.emu.attribute(s.tokens.hero.get('represents'), 'fracas_strikes').set('current', ''), '!fracas forecast', /Hero has no strikes/],
    [(s) => s.emu.attribute(s.tokens.hero.get('represents'), 'fracas_strikes').set('current', '--dice 9 --style cleaving --type edged'),
      '!fracas forecast', /Hero \(party\): strike 1\.dice: .*9.*ER-3/],
    [(s) => s.tokens.hero.set('layer', 'map'), '!fracas forecast', /a forecast needs two sides with someone standing .* party has nobody/],
    [() => {}, '!fracas forecast --sideways', /does not know --sideways/],
    [() => {}, '!fracas forecast --values 1..4', /--values and --target belong to --vary TOKEN/],
    [(s) => s, (s) => `!fracas forecast --side a ${s.tokens.hero.id}`, /--side names one side/],
    [(s) => s, (s) => `!fracas forecast --side a ${s.tokens.hero.id} --side b ${s.tokens.torch.id}`,
      /Torch \(--side b\) represents no character, so its numbers are unknown/],
    [(s) => s, (s) => `!fracas forecast --side a ${s.tokens.hero.id} --side b ${s.tokens.hero.id}`, /Hero is on two sides/],
    [() => {}, '!fracas forecast --runs 0', /--runs must be 1 to 10000000/],
    [(s) => s, (s) => `!fracas forecast --vary ${s.tokens.rat.id}`, /--vary .*: that token is not in the fight/],
    [() => {}, '!fracas forecast --from r20-gone-1', /no forecast "r20-gone-1" kept/],
    [() => {}, '!fracas forecast --share r20-gone-1', /no forecast "r20-gone-1" kept/],
    [(s) => s, (s) => `!fracas forecast --ruleset cartyrion --side a ${s.tokens.hero.id} --side b ${s.tokens.g1.id} --side c ${s.tokens.g2.id}`,
      /a Cartyrion fight has exactly two sides \(CT-1\)/],
  ];
  for (const [arrange, command, expected] of cases) {
    const s = scene();
    arrange(s);
    const out = s.emu.chat(s.emu.gm, typeof command === 'function' ? command(s) : command);
    assert.equal(relayRequests(out).length, 0, `${command}: sent`);
    assert.match(text(out), expected);
    assertSafe(assert, s.emu);
  }
});

test('the bridge\'s errors: the budget\'s refusal with a button for what fits, a field by its token, never a crash', () => {
  const { emu, tokens } = scene();
  let req = forecastRequest(emu.chat(emu.gm, '!fracas forecast --runs 90000'));
  // As bridge/forecast.py check_budget words it (-32003, data.most_runs).
  const budget = '$.params.runs: 90,000 fights × 4 combatants is 360,000 units of work, over the bridge\'s forecast budget of ' +
    '100,000 (max_forecast_work; fracas serve --limit max_forecast_work=N); ask for at most 25,000 fights';
  let outs = relayAnswer(emu, { jsonrpc: '2.0', id: req.id, error: { code: -32003, message: budget,
    data: { path: '$.params.runs', reason: budget.slice(15), limit: 100000, limit_name: 'max_forecast_work', estimate: 360000, most_runs: 25000 } } });
  assert.match(text(outs), /The bridge's forecast budget refused .*ask for at most 25,000 fights/);
  assert.ok(outs[0].text.includes(`[forecast 25000 fights](!fracas forecast --from ${req.id} --runs 25000)`), outs[0].text);
  assert.equal(outs[0].to, 'gm');
  // The button's command sends the same scenario with what fits.
  const retry = forecastRequest(emu.chat(emu.gm, `!fracas forecast --from ${req.id} --runs 25000`));
  assert.equal(retry.params.runs, 25000);
  assert.deepEqual(retry.params.scenario, req.params.scenario);
  // -32602 with a path: the token and its field.
  req = forecastRequest(emu.chat(emu.gm, '!fracas forecast'));
  outs = relayAnswer(emu, { jsonrpc: '2.0', id: req.id, error: { code: -32602,
    message: '$.params.scenario.sides.foes[1].attacker: ER-18 initiative needs agility',
    data: { path: '$.params.scenario.sides.foes[1].attacker', reason: 'ER-18 initiative needs agility' } } });
  assert.match(text(outs), /The bridge cannot play .*: Goblin #2 \(foes\), attacker: ER-18 initiative needs agility/);
  // An answer that is no result is reported, not a crash; an error of another shape too.
  req = forecastRequest(emu.chat(emu.gm, '!fracas forecast'));
  outs = relayAnswer(emu, { jsonrpc: '2.0', id: req.id, result: { sides: 'nope' } });
  assert.match(text(outs), /has no sides/);
  req = forecastRequest(emu.chat(emu.gm, '!fracas forecast'));
  outs = relayAnswer(emu, { jsonrpc: '2.0', id: req.id, error: { code: -32010, message: 'the bridge is shutting down' } });
  assert.match(text(outs), /refused forecast .*shutting down \(code -32010\)/);
  assert.equal(tokens.g1.get('bar1_value'), '8', 'a forecast changes no token');
  assertSafe(assert, emu);
});

test('answer numbers that are not numbers show as "?", never as markup', () => {
  const { emu } = scene();
  const req = forecastRequest(emu.chat(emu.gm, '!fracas forecast'));
  const reply = answer(req, { party: 0.5, foes: 0.5 });
  reply.result.sides.party.win_rate = '<b>1</b>';
  reply.result.rounds.mean = '<img src=x>';
  reply.result.seed = '<i>7</i>';
  const [gm] = relayAnswer(emu, reply);
  assert.ok(!/<b>1<\/b>|<img|<i>/.test(gm.text), gm.text);
  assert.match(lines(gm.text), /^party \? \(47–53%\)$/m);
  assert.match(lines(gm.text), /^rounds: \? on average/m);
  assert.match(lines(gm.text), /^seed \? · /m);
  assertSafe(assert, emu);
});

/**
 * What Roll20's chat shows from a Mod script, as the card uses it: <div>, <span>, <table>, <tr>,
 * <td>, <b>, <br> with inline styles whose properties real chat output uses (APIHeartBeat.js lines
 * 236-271: width %, height, background-color, display:inline-block, float, border, font-size,
 * line-height; go-fish.js lines 637-640; HuntersMark/huntersmark.js lines 49-55: tables). No <svg>,
 * <style>, classes, images or scripts: the chart needs none.
 */
const TAGS = new Set(['div', 'span', 'table', 'tr', 'td', 'b', 'br']);
const PROPS = new Set(['display', 'width', 'height', 'background-color', 'font-size', 'line-height', 'white-space', 'overflow',
  'vertical-align', 'border', 'border-left', 'border-bottom', 'border-collapse', 'float', 'color', 'font-weight', 'margin-top',
  'padding', 'padding-left', 'padding-right', 'text-align']);

test('the card is plain chat HTML: known tags, inline styles of known properties, no external asset', () => {
  const { emu, tokens } = scene();
  const req = forecastRequest(emu.chat(emu.gm, `!fracas forecast --vary ${tokens.g1.id}`));
  const [gm] = relayAnswer(emu, answer(req, { party: 0.62, foes: 0.35 }, { [tokens.g2.id]: 0.5 }, {
    points: [{ values: { x: 2 }, sides: { party: { win_rate: 0.4, win_rate_ci95: [0.35, 0.45] } } }], crossings: [],
  }));
  const shared = emu.chat(emu.gm, `!fracas forecast --share ${req.id}`).filter((o) => !o.to);
  for (const html of [gm.text, shared[0].text]) {
    for (const m of html.matchAll(/<\/?([a-zA-Z0-9]+)([^>]*)>/g)) {
      assert.ok(TAGS.has(m[1].toLowerCase()), `tag <${m[1]}>`);
      const attrs = m[2].trim();
      if (!attrs) continue;
      const style = /^style="([^"]*)"$/.exec(attrs);
      assert.ok(style, `only a style attribute: ${attrs}`);
      for (const decl of style[1].split(';').filter(Boolean)) {
        assert.ok(PROPS.has(decl.split(':')[0].trim()), `style property ${decl}`);
        assert.ok(!/url\(|expression|javascript/i.test(decl), decl);
      }
    }
  }
});

test('the Mod\'s request answered by the engine\'s own forecast: the card shows its numbers', (t) => {
  if (!pythonHasFracas()) return skipUnlessCI(t, 'no Python with fracas to answer as the bridge');
  const { emu, tokens } = scene();
  const req = forecastRequest(emu.chat(emu.gm, '!fracas forecast --runs 300 --seed 11'));
  const run = spawnSync(pythonPath(), ['-c', 'import json, sys, fracas; print(json.dumps(fracas.forecast(json.load(sys.stdin)).to_dict()))'],
    { cwd: REPO_ROOT, input: JSON.stringify(req.params), encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.deepEqual(Object.keys(result.combatants).sort(), [tokens.hero.id, tokens.g1.id, tokens.g2.id, tokens.assassin.id].sort());
  const [gm] = relayAnswer(emu, { jsonrpc: '2.0', id: req.id, result });
  const card = lines(gm.text);
  assert.match(card, new RegExp(`^party ${Math.round(result.sides.party.win_rate * 100)}% `, 'm'));
  assert.match(card, /^300 fights · /m);
  assert.match(card, /^seed 11 · /m);
});
