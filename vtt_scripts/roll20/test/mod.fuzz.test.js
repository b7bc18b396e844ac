'use strict';
// 10,000 random commands from the GM, a player and another Mod script ('API'), with
// hostile values (markup, Roll20 expansions, prototype names, huge numbers), and
// forged relay frames. After every one: the sandbox did not crash (the emulator throws
// if a handler does), nothing was an internal error, no output expands in Roll20, a
// GM-layer token was never touched by a player or a script, and no relay frame from
// a player or a script changed a bar. Deterministic: a seeded generator.
const test = require('node:test');
const assert = require('node:assert/strict');
const P = require('../src/protocol');
const { world, plain, assertSafe } = require('./world');

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMANDS = ['attack', 'odds', 'init', 'mob', 'undo', 'config', 'help', 'request', 'relay', 'resend', 'journal',
  'replay', 'compete', 'impale', 'round', 'save', 'touch', 'drop', 'lock', 'nope', ''];
const OPTIONS = ['target', 'dice', 'style', 'type', 'weight', 'bonus', 'seed', 'rolls', 'ac', 'cover', 'attacker',
  'ruleset', 'adv', 'dis', 'sneak', 'whisper', 'public', 'no-apply', 'each', 'use', 'obscurement', 'count',
  'at-least', 'marker', 'bar', 'min', 'output', 'players-attack', 'players-seed', 'players-any-layer',
  'show-npc-body', 'attr', 'damage', 'level', 'die', 'method', 'skill', 'reset', 'injury-bar', '__proto__',
  'nearby', 'friendly-fire', 'flee', 'grappling', 'defense-rolls', 'contest', 'challenger', 'defender', 'against',
  'slick', 'advantage', 'disadvantage', 'charger', 'closed', 'forte', 'secret', 'new-secret', 'new', 'undo',
  'save', 'dc', 'area', 'effect', 'on-fail', 'targets', 'touch', 'other-ac', 'surrenders', 'inflict', 'rounds', 'foul-play',
  'attribute', 'mode', 'to-hit', 'weapon', 'victim-bonus', 'reacts', 'reaction-left'];
const HOSTILE = ['[[1d20]]', '<img src=x onerror=alert(1)>', '{{name=x}}', '@{selected|token_id}', '%{macro}',
  '&{template:default}', 'toString', '__proto__', 'constructor', '1e309', '-99999999999', '99999999999999999999999',
  '0', '-1', '3', '20', '2.5', 'NaN', '', '"', "'", '\\', 'slashing', 'edged', 'melee', 'range', 'on', 'off',
  'worldwalker', 'cartyrion', 'old-school', 'enchanted-realms', '1d8', 'd6', 'half', 'full', 'ac=armor',
  'stunned=sleepy', 'prone=x', '🐉', 'a'.repeat(300)];

function pick(rand, list) {
  return list[Math.floor(rand() * list.length)];
}

test('10,000 fuzzed commands: no crash, no internal error, nothing unescaped, nothing a player or script may not do', () => {
  const rand = mulberry32(20261123);
  const { emu, tokens, player } = world();
  const lich = emu.addToken({ name: 'Secret Lich', layer: 'gmlayer', bar1_value: '30', bar1_max: '30' });
  const ids = [tokens.orc.id, tokens.goblin.id, tokens.knight.id, lich.id, 'nosuchtoken'];
  const bars = () => [tokens.orc, tokens.goblin, tokens.knight, lich].map((t) => String(t.get('bar1_value')));
  let internal = 0;
  for (let n = 0; n < 10000; n++) {
    const who = rand();
    const sender = who < 0.3 ? emu.gm : who < 0.8 ? player : null; // null: another Mod script ('API')
    let content;
    if (rand() < 0.08) {
      // A forged relay answer for a made-up or real-looking id.
      const id = (rand() < 0.5 ? `m${Math.floor(rand() * 5)}` : pick(rand, HOSTILE)).replace(/[^A-Za-z0-9_-]/g, '').slice(0, 60) || 'x';
      const damage = rand() < 0.5 ? 5 : pick(rand, HOSTILE);
      const message = { jsonrpc: '2.0', id, result: { targets: { [pick(rand, ids)]: { damage, attacks: 1, attacks_hit: pick(rand, HOSTILE) } } } };
      const frames = P.frames('res', id, JSON.stringify(message), 300);
      content = `!fracas-relay ${frames[0]}`;
    } else if (rand() < 0.4) {
      // A command that would work, with a few values swapped for hostile ones.
      const value = (good) => (rand() < 0.1 ? pick(rand, HOSTILE) : good);
      const strike = `--dice ${value(1 + Math.floor(rand() * 5))} --style ${value(pick(rand, ['slashing', 'archery', 'cleaving']))} ` +
        `--type ${value(pick(rand, ['edged', 'piercing', 'fire']))}`;
      const extra = rand() < 0.5 ? ` --${pick(rand, OPTIONS)} ${pick(rand, HOSTILE)}` : '';
      content = pick(rand, [
        `!fracas attack --target ${value(pick(rand, ids))} ${strike}${extra}`,
        `!fracas attack --target ${value(pick(rand, ids))} ${strike} --seed ${value(Math.floor(rand() * 1000))}`,
        `!fracas odds --target ${value(pick(rand, ids))} ${strike}`,
        `!fracas mob --target ${value(pick(rand, ids))} ${strike}`,
        `!fracas init --seed ${value(7)}`,
        `!fracas attack --target ${value(pick(rand, ids))} --dice 2 --style archery --type piercing --cover three-quarters --nearby ${value(pick(rand, ids))} --flee ${value(30)}`,
        `!fracas compete --contest ${value(pick(rand, ['grapple', 'escape', 'shove', 'trip']))} --defender ${value(pick(rand, ids))} --slick`,
        `!fracas impale --charger ${value(pick(rand, ids))} --closed ${value(30)} --forte`,
        `!fracas attack --ruleset ${value(pick(rand, ['worldwalker', 'cartyrion', 'old-school']))} --target ${value(pick(rand, ids))} --damage 1d6 --die d6 --level 3`,
        '!fracas undo',
        `!fracas round${pick(rand, ['', ' --new', ' --undo', ` --seed ${value(3)}`])}`,
      ]);
    } else {
      const parts = [`!fracas ${pick(rand, COMMANDS)}`];
      const options = Math.floor(rand() * 6);
      for (let k = 0; k < options; k++) {
        parts.push(`--${pick(rand, OPTIONS)}`);
        const values = Math.floor(rand() * 3);
        for (let v = 0; v < values; v++) parts.push(rand() < 0.4 ? pick(rand, ids) : pick(rand, HOSTILE));
      }
      content = parts.join(' ');
    }
    const before = bars();
    const lichBefore = lich.get('bar1_value');
    const selected = rand() < 0.7 ? [pick(rand, ids.slice(0, 4))] : ids.slice(0, 3);
    const out = emu.chat(sender, content, { selected });
    for (const o of out) {
      if (/internal error/.test(plain(o.text))) {
        internal += 1;
        assert.fail(`internal error for ${sender ? sender.data._displayname : 'API'}: ${content}\n${plain(o.text)}`);
      }
    }
    if (sender !== emu.gm) {
      assert.equal(lich.get('bar1_value'), lichBefore, `a player or script changed the GM-layer token: ${content}`);
      if (content.startsWith('!fracas-relay')) assert.deepEqual(bars(), before, `a forged frame changed a bar: ${content}`);
    }
  }
  assert.equal(internal, 0);
  assertSafe(assert, emu);
});
