'use strict';
// A CPU budget for the sandbox every Mod script shares: the worst commands the issue
// measured (odds of 32 strikes of 5 cleaving dice at crit range 2 ×2 took 7.1 s of CPU;
// with 8 --nearby, 4.7 s) are measured here by the work meter of the exact odds
// (src/odds.js units, 15 to 390 per microsecond of CPU on the test machine), not by a
// clock: no command may do more than the budget (2,500,000 units, at most about 170 ms there).
// Past it, the odds go to the bridge when the relay is linked, or are refused, clearly.
const test = require('node:test');
const assert = require('node:assert/strict');
const vm = require('node:vm');
const { world, plain, assertSafe } = require('./world');
const { ODDS_BUDGET } = require('../src/mod/odds');
const P = require('../src/protocol');

const HEAVY = Array.from({ length: 32 }, () => '--dice 5 --style cleaving --weight 2 --type edged --crit-range 2').join(' ');

function budgetWorld() {
  const w = world();
  const { emu } = w;
  // The player's archer, for stray shots among many nearby creatures (ER-17).
  const archer = emu.addCharacter('Archer', { agility: 6, fracas_strikes: Array.from({ length: 8 },
    () => '--dice 5 --style archery --type piercing --crit --crit-range 2').join(' ') }, { controlledby: w.player.id });
  w.tokens.archer = emu.addToken({ name: 'Archer', represents: archer.id, controlledby: w.player.id });
  w.crowd = Array.from({ length: 8 }, (_, i) => emu.addToken({ name: `Bystander ${i + 1}`,
    represents: w.characters.goblin.id, bar1_value: '12', bar1_max: '12' }));
  // The player's knight carries the heavy strikes on the sheet (what players may use by default).
  emu.attribute(w.characters.knight.id, 'fracas_strikes').set('current', HEAVY);
  w.work = () => vm.runInContext('Fracas.stats().odds_work', emu.context);
  return w;
}

/** Run a command; return [work it did, what it said]. */
function measured(w, who, command, selected) {
  const before = w.work();
  const out = w.emu.chat(who, command, { selected });
  return [w.work() - before, out.map((o) => plain(o.text)).join('\n'), out];
}

test('the worst odds commands stay within the budget: refused clearly without the relay', () => {
  const w = budgetWorld();
  const { emu, tokens, player } = w;
  emu.chat(emu.gm, '!fracas config --players-numbers on');
  const nearby = `--nearby ${w.crowd.map((t) => t.id).join(' ')}`;
  const worst = [
    [emu.gm, `!fracas odds --target ${tokens.goblin.id} ${HEAVY} --count 2`, [tokens.orc.id]],
    [player, `!fracas odds --target ${tokens.goblin.id} --count 2`, [tokens.knight.id]],
    [player, `!fracas odds --target ${tokens.goblin.id} ${HEAVY} --count 10000`, [tokens.knight.id]],
    [player, `!fracas odds --target ${tokens.goblin.id} ${nearby} --friendly-fire on --cover three-quarters`, [tokens.archer.id]],
    [emu.gm, `!fracas odds --target ${tokens.goblin.id} ${nearby} --friendly-fire on --count 3`, [tokens.archer.id]],
  ];
  for (const [who, command, selected] of worst) {
    const [work, said] = measured(w, who, command, selected);
    assert.ok(work <= ODDS_BUDGET, `${command}: ${work} units of work, the budget is ${ODDS_BUDGET}`);
    assert.match(said, /too much work for the Roll20 sandbox .*fewer strikes, dice or --count, or link the fracas relay|P\(hit\)|the most is|at most/,
      `${command}: ${said}`);
  }
  // At least the 7.1 s command was stopped by the budget (not answered).
  const [work, said] = measured(w, emu.gm, `!fracas odds --target ${tokens.goblin.id} ${HEAVY} --count 2`, [tokens.orc.id]);
  assert.match(said, /too much work for the Roll20 sandbox/);
  assert.ok(work > 0 && work <= ODDS_BUDGET);
  // An ordinary question is answered in the sandbox, well within the budget.
  const [small, answer] = measured(w, player, `!fracas odds --target ${tokens.goblin.id} --dice 2 --style slashing --type edged`, [tokens.knight.id]);
  assert.match(answer, /P\(hit\)/);
  assert.ok(small < ODDS_BUDGET / 10, `${small} units for one small strike`);
  assertSafe(assert, emu);
});

test('with the relay linked, odds past the budget go to the bridge (attack.odds) and the card comes back', () => {
  const w = budgetWorld();
  const { emu, tokens, player } = w;
  emu.state.fracas.relay.last_hello = { time: 0, bridge: 'ws://127.0.0.1:1', version: '0.1.0' };
  const [work, said, out] = measured(w, player, `!fracas odds --target ${tokens.goblin.id} --count 2`, [tokens.knight.id]);
  assert.ok(work <= ODDS_BUDGET);
  assert.match(said, /asked the bridge/);
  const r = new P.Reassembler();
  let rpc = null;
  for (const o of out) {
    const frame = P.parseFrame(o.text);
    const whole = frame && r.add(frame);
    if (whole) rpc = JSON.parse(whole.text);
  }
  assert.equal(rpc.method, 'attack.odds');
  assert.equal(rpc.params.count, 2);
  // A player's request carries no Body the player may not see (the goblin is an NPC).
  assert.deepEqual(rpc.params.remaining, {});
  // The bridge's answer (its shape) is shown to the player who asked.
  const result = { ruleset: 'enchanted-realms', count: 2, targets: { [tokens.goblin.id]: {
    p_hit: 0.99, p_crit: 0.5, mean: 40.5, sd: 3, p_at_least: {}, distribution: [[40, 0.5], [41, 0.5]] } } };
  const answer = [];
  for (const f of P.frames('res', rpc.id, JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result }), 500, emu.state.fracas.relay.secret)) {
    answer.push(...emu.chat(emu.gm, `!fracas-relay ${f}`));
  }
  assert.equal(answer.length, 1);
  assert.equal(answer[0].to, 'pat');
  assert.match(plain(answer[0].text), /Odds: Sir Kay ×2 .*Goblin=P\(hit\) 99%/s);
  assertSafe(assert, emu);
});
