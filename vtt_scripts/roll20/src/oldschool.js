'use strict';
// Old-school sides (OS-1 … OS-6): the twin of src/fracas/rulesets/oldschool/.

const { LimitError, RulesError, SchemaError } = require('./errors');
const { structsOf, rulesetInfo, pyRepr } = require('./schema');
const { checkRange } = require('./plan');
const {
  LAYOUT: L, STANDARD_DICE, OS_MAX_COVER, OS_FLEEING_BONUS, OS_RANGE_MOD, BONUS_RANGE, say,
} = require('./facts');
const rows = require('./rows');
const { LIMITS } = require('./contract');

const { name: NAME, title: TITLE } = rulesetInfo('old-school');
const B = BONUS_RANGE;
const { Attacker, AttackRequest, Target, InitiativeRequest, MoraleRequest } = structsOf(NAME);

function checkAttacker(attacker, path) {
  // Every field of the attacker is a bonus or modifier in the same range (OS-6).
  for (const name of Object.keys(Attacker.fields)) checkRange(attacker[name], ...B, `${path}.${name}`, name);
  return attacker;
}

function checkTarget(target, path) {
  checkRange(target.ac, -100, 200, `${path}.ac`, 'AC');
  checkRange(target.shield, 0, 100, `${path}.shield`, 'shield');
  if (target.cover !== 'full' && !(target.cover >= 0 && target.cover <= OS_MAX_COVER)) {
    throw new RulesError(`${path}.cover`, say('os_cover', { value: target.cover }));
  }
  return target;
}

function compileStrike(strike, path, attacker, apath, target, tpath) {
  const [dice, faces, modifier] = rows.parseDamage(strike.damage, `${path}.damage`, STANDARD_DICE, TITLE, 'OS-6');
  checkRange(strike.modifier, ...B, `${path}.modifier`, 'modifier');
  const melee = strike.method === 'melee';
  let range = strike.range;
  let bonus;
  let cover;
  if (melee) {
    if (range !== null) throw new RulesError(`${path}.range`, say('os_range_melee'));
    bonus = attacker.str_mod;
    cover = 0;
  } else {
    range = range || 'medium';
    if (range === 'beyond') throw new RulesError(`${path}.range`, say('os_range_beyond'));
    if (target.cover === 'full') throw new RulesError(`${tpath}.cover`, say('os_full_cover'));
    bonus = attacker.dex_mod + OS_RANGE_MOD[range];
    cover = target.cover;
  }
  // OS-3: the fleeing bonus and the ignored shield are for opponents in melee only.
  const fledFrom = melee && Boolean(target.fleeing);
  bonus += attacker.attack_bonus + strike.modifier + (fledFrom ? OS_FLEEING_BONUS : 0) - cover;
  const noShield = strike.rear || fledFrom;
  const ac = target.ac - (noShield ? target.shield : 0);
  const flat = modifier + (melee ? attacker.str_mod : 0);
  const cols = rows.row({ HIT: L.X_HIT_OS, BONUS: bonus, TN: ac, DICE: dice, FACES: faces, FLAT: flat, MIN: 1 });
  const facts = {
    method: strike.method, range, rear: strike.rear, attack_bonus: bonus, ac,
    shield_ignored: Boolean(noShield && target.shield > 0), damage_bonus: flat,
  };
  return [cols, { target: '', path, facts }];
}

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
