'use strict';
// Old-school sides (OS-1 … OS-6): the twin of the Python package src/fracas/rulesets/oldschool/.

const { LimitError, SchemaError } = require('../errors');
const { structsOf, rulesetInfo, pyRepr } = require('../schema');
const { checkRange } = require('../plan');
const { STANDARD_DICE, say } = require('../facts');
const rows = require('../rows');
const { LIMITS } = require('../contract');

const { name: NAME, title: TITLE } = rulesetInfo('old-school');
const { AttackRequest, Target, InitiativeRequest, MoraleRequest } = structsOf(NAME);

// The strike compiler is translated from the Python's CLIENT_STRIKE functions.
const { checkAttacker, checkTarget, compileStrike } = require('../strikes')[NAME];

function strikeResult(meta, out, faces) {
  const f = meta.facts;
  const roll = out.roll;
  return {
    target: meta.target, method: f.method, range: f.range, rear: f.rear, attack_roll: roll,
    natural: roll === 1 || roll === 20 ? roll : null, attack_bonus: f.attack_bonus, attack_total: out.attack,
    ac: f.ac, shield_ignored: f.shield_ignored, hit: Boolean(out.hit), damage_dice: faces,
    damage_bonus: f.damage_bonus, damage: out.damage,
  };
}

function targetResult(entry, target, strikes) {
  entry.hits = strikes.filter(([, out]) => out.hit).length;
}

const initiative = {
  Request: InitiativeRequest,
  what: 'initiative',
  compile(req) {
    if (req.sides.length < 2) throw new SchemaError('$.sides', say('side_initiative_sides'));
    if (req.sides.length > LIMITS.OS_MAX_SIDES) {
      throw new LimitError('$.sides', say('too_many', { count: req.sides.length, what: 'sides', most: LIMITS.OS_MAX_SIDES }));
    }
    const seen = new Set();
    req.sides.forEach((side, i) => {
      if (seen.has(side.id)) throw new SchemaError(`$.sides[${i}].id`, say('duplicate_combatant', { id: pyRepr(side.id) }));
      seen.add(side.id);
    });
  },
  roll(req, dice, seed, injected) {
    const sides = req.sides.map((s) => ({ id: s.id, roll: null, tiebreaks: [], wait: s.wait }));
    const rolling = sides.filter((e) => !e.wait);
    for (const entry of rolling) entry.roll = rows.rollOrSay(dice, 6, 'side initiative');
    const order = [];
    for (const face of rows.distinctDescending(rolling.map((e) => e.roll))) {
      const tied = rolling.filter((e) => e.roll === face);
      if (req.ties === 'simultaneous' || tied.length === 1) {
        order.push(tied.map((e) => e.id));
        continue;
      }
      const ranked = rows.breakTies(tied, () => rows.rollOrSay(dice, 6, 'a side initiative re-roll'), '$.sides');
      for (const e of ranked) order.push([e.id]);
    }
    for (const e of sides) if (e.wait) order.push([e.id]);
    return { ruleset: NAME, seed, injected, ties: req.ties, sides, order };
  },
};

const morale = {
  Request: MoraleRequest,
  what: 'the morale check',
  compile(req) {
    checkRange(req.morale, 2, 12, '$.morale', 'morale');
    checkRange(req.modifier, -2, 2, '$.modifier', 'modifier');
    checkRange(req.successes, 0, 2, '$.successes', 'successes');
  },
  roll(req, dice, seed, injected) {
    const out = {
      ruleset: NAME, seed, injected, morale: req.morale, modifier: req.modifier, checked: false, dice: [], total: null,
      breaks: false, successes: req.successes, fights_to_death: req.morale === 12 || req.successes >= 2,
    };
    if (out.fights_to_death) return out;
    const faces = [rows.rollOrSay(dice, 6, 'the morale check'), rows.rollOrSay(dice, 6, 'the morale check')];
    const total = faces[0] + faces[1];
    const breaks = total > req.morale + req.modifier;
    const successes = req.successes + (breaks ? 0 : 1);
    Object.assign(out, { checked: true, dice: faces, total, breaks, successes, fights_to_death: successes >= 2 });
    return out;
  },
};

module.exports = {
  name: NAME, title: TITLE, attackRule: 'OS-6', largestDie: Math.max(...STANDARD_DICE), AttackRequest, Target,
  checkAttacker, checkTarget, compileStrike, strikeResult, targetResult, initiative, morale,
};
