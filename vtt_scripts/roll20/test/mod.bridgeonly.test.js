'use strict';
// A ruleset the engine registers without a Roll20 port (its manifest's clients leave out
// roll20: contract.js says `roll20: false`): the Mod script resolves nothing of it offline,
// sends its attacks and odds to the bridge through the relay, and says so. The fixture is
// the Mod bundle with one more ruleset in its contract, as `python -m fracas.spec` writes
// it for the package docs/examples/d6pool (a d6 pool: each die of 5 or 6 hits for 1;
// test/fixtures/d6pool_contract.json, which `--check` keeps current; relay.browser.test.js
// plays the same package through a real bridge).
const test = require('node:test');
const assert = require('node:assert/strict');
const { world, card, plain, assertSafe, relayRequests: requests, relayAnswer: answer } = require('./world');
const { Emulator } = require('./emulator');
const { bundleWithRulesets, d6PoolContract } = require('./helpers');
const P = require('../src/protocol');

const POOL = d6PoolContract();
const TITLE = POOL.entry.title;

/** The built fracas.js with the d6 pool in its generated contract, as a script file. */
const poolScript = () => bundleWithRulesets([POOL]);

test('a ruleset without a Roll20 port: the attack goes to the bridge, the Mod says so, the answer is applied once', () => {
  const w = world({ script: poolScript() });
  const { emu, tokens } = w;
  emu.create('attribute', { _characterid: w.characters.orc.id, name: 'fracas_extra', current: '4' });
  const out = emu.chat(emu.gm, `!fracas attack --ruleset d6-pool --target ${tokens.goblin.id} --dice 3`, { selected: [tokens.orc.id] });
  const notice = out.filter((o) => !P.parseFrame(o.text)).map((o) => plain(o.text)).join('\n');
  assert.match(notice, new RegExp(`${TITLE} has no offline resolver: sent to the bridge as a\\S+ \\(1 relay frame\\)`));
  const [sent] = requests(out);
  assert.equal(sent.method, 'attack.resolve');
  assert.deepEqual(sent.params.attacker, { extra: 4 }, 'attacker fields from the sheet, named by the ruleset\'s structs');
  assert.deepEqual(sent.params.strikes, [{ dice: 3, target: tokens.goblin.id }], 'no ER/rows defaults (method) it does not have');
  assert.equal(sent.params.ruleset, 'd6-pool');
  assert.equal(tokens.goblin.get('bar1_value'), '12', 'nothing applied before the bridge answers');

  const result = { ruleset: 'd6-pool', seed: sent.params.seed, strikes: [{ target: tokens.goblin.id, faces: [5, 6, 2], hits: 2, hit: true, damage: 2 }],
    targets: { [tokens.goblin.id]: { damage: 2 }, elsewhere: { damage: 50 } } };
  const shown = answer(emu, { jsonrpc: '2.0', id: sent.id, result });
  assert.equal(String(tokens.goblin.get('bar1_value')), '10');
  const c = card(shown);
  const fields = Emulator.fields(c.text);
  assert.equal(plain(fields.name), `Orc attacks (${TITLE})`);
  assert.equal(plain(fields['1 → Goblin']), '✓ hit · 2 damage');
  assert.equal(plain(fields.Goblin), '2 damage · bar lowered', 'a public card hides an NPC\'s Body');
  assert.ok(!Object.keys(fields).includes('elsewhere') && !Object.values(fields).some((v) => plain(v).includes('50 damage')),
    'a target the request did not name is ignored');
  // The same answer again (a resend, a replayed chat): never applied twice.
  answer(emu, { jsonrpc: '2.0', id: sent.id, result });
  assert.equal(String(tokens.goblin.get('bar1_value')), '10');
  assertSafe(assert, emu);
});

test("a ruleset without a Roll20 port: odds come from the bridge; the script's offline API refuses it", () => {
  const w = world({ script: poolScript() });
  const { emu, tokens } = w;
  const out = emu.chat(emu.gm, `!fracas odds --ruleset d6-pool --target ${tokens.goblin.id} --dice 2 --extra 3`, { selected: [tokens.orc.id] });
  assert.match(out.filter((o) => !P.parseFrame(o.text)).map((o) => plain(o.text)).join('\n'),
    new RegExp(`${TITLE} has no offline resolver: asked the bridge \\(request \\S+\\)`));
  const [sent] = requests(out);
  assert.equal(sent.method, 'attack.odds');
  assert.equal(sent.params.ruleset, 'd6-pool');
  // The script's API resolves offline only: it refuses the ruleset, saying why, in the spec's words.
  const api = require('node:vm').runInContext('Fracas', emu.context);
  assert.throws(() => api.resolve({ ruleset: 'd6-pool', attacker: {}, strikes: [{ dice: 2, target: 'g' }], targets: { g: {} } }, { seed: 1 }),
    (err) => err.path === '$.ruleset' && err.reason === `the ${TITLE} ruleset has no offline resolver in the Roll20 Mod script: only the bridge resolves it`);
  // The built-in rulesets still resolve offline, in the same sandbox.
  const own = emu.chat(emu.gm, `!fracas attack --ruleset old-school --target ${tokens.goblin.id} --attack-bonus 2 --damage 1d6 --target-ac 12`,
    { selected: [tokens.orc.id] });
  assert.equal(requests(own).length, 0);
  assert.match(plain(card(own).text), /attacks \(Old-school\)/);
  assertSafe(assert, emu);
});

test('a bridge-only ruleset whose attack is not attacker + strikes + targets is refused with the reason', () => {
  // The seam's coin toss (tests/seam/coins.py): {coins, target, targets}.
  const coins = { name: 'coin-toss', title: 'Coin toss (tests only)', requests: { attack: 'CoinAttack' }, roll20: false };
  const structs = { CoinAttack: [['coins', 'int'], ['target', 'str'], ['targets', { dict: { struct: 'Guarded' } }],
    ['ruleset', 'str', 'coin-toss'], ['seed', { optional: 'int' }, null], ['rolls', { optional: { list: 'int' } }, null]],
  Guarded: [['guard', 'int', 0]] };
  const w = world({ script: bundleWithRulesets([{ entry: coins, structs }]) });
  const out = w.emu.chat(w.emu.gm, `!fracas attack --ruleset coin-toss --target ${w.tokens.goblin.id}`, { selected: [w.tokens.orc.id] });
  assert.equal(requests(out).length, 0);
  assert.match(plain(out[0].text), /the Coin toss \(tests only\) ruleset's attack is not an attacker, strikes and targets/);
  assertSafe(assert, w.emu);
});
