'use strict';
// `!fracas counterspell` (Worldwalker WW-8): the selected token counters the caster's spell,
// resolved offline by the JavaScript twin of the Python resolver (src/ports/worldwalker.js `counterspell`),
// as `!fracas compete` resolves ER-19 (specials.js).

const { UsageError, integer } = require('./usage');
const { SheetReader } = require('./sheet');
const { attackOptions, findAttacker, oneValue } = require('./attack');
const { tokenOf } = require('./specials');
const cards = require('./cards');
const permissions = require('./permissions');
const { counterspell } = require('../rulesets');

// WW-8 has no limit on a rating but the engine's bonus range; the resolver checks it again.
const { BONUS_RANGE: BONUS } = require('../facts'); // the engine's bonus range (the spec)
const hints = require('./hints');
// The options a player may not type unless the GM allows typed numbers (as compete's --bonus).
const NUMBERS = ['rating', 'caster-skill', 'modifier', 'caster-modifier'];

/** A side's rating in the school: the typed number, else its sheet's `school_<name>` attribute. */
function ratingOf(reader, school, typed, option) {
  if (typed !== undefined) return typed;
  const v = reader.number('school_prefix', school);
  if (v === null) {
    throw new UsageError(`${reader.name} has no "${reader.config.attrs.school_prefix}${school}" attribute: ` +
      `give its ${school} rating with --${option}`);
  }
  return v;
}

/**
 * `!fracas counterspell --school sorcery --caster @{target|token_id} --distance 30`: the
 * selected token (or --counterspeller ID) against the caster, d20 + school rating each (WW-8).
 */
function counterspellCommand(app, msg, cmd) {
  if (cmd.positional.length) throw new UsageError(`!fracas counterspell takes --options, not "${cmd.positional.join(' ')}"`);
  const o = {};
  const dice = [];
  for (const option of cmd.options) {
    switch (option.name) {
      case 'school': o.school = oneValue(option).toLowerCase(); break;
      case 'caster': o.caster = oneValue(option); break;
      case 'counterspeller': o.counterspeller = oneValue(option); break;
      case 'distance': o.distance = integer(oneValue(option), '--distance', 0, 1000000); break;
      case 'rating': o.rating = integer(oneValue(option), '--rating', 1, BONUS[1]); break;
      case 'caster-skill': o.casterSkill = integer(oneValue(option), '--caster-skill', ...BONUS); break;
      case 'modifier': o.modifier = integer(oneValue(option), '--modifier', ...BONUS); break;
      case 'caster-modifier': o.casterModifier = integer(oneValue(option), '--caster-modifier', ...BONUS); break;
      case 'seed': case 'rolls': case 'whisper': case 'public': dice.push(option); break;
      default: throw new UsageError(`!fracas counterspell does not know --${option.name} (see !fracas help)`);
    }
  }
  permissions.checkNumbers(app, msg, cmd.options.filter((x) => NUMBERS.includes(x.name)).map((x) => x.name));
  const options = attackOptions(dice);
  permissions.checkDice(app, msg, options);
  if (!o.school) throw new UsageError('give the school of the spell: --school sorcery');
  if (!/^[a-z][a-z0-9_-]{0,39}$/.test(o.school)) {
    throw new UsageError(`--school: "${o.school}" is not a school name (letters, digits, - and _, up to 40)`);
  }
  if (!o.caster) throw new UsageError('give the caster: --caster @{target|token_id}');
  if (o.distance === undefined) throw new UsageError('give the distance to the caster in feet: --distance 30 (60 ft at most, WW-8)');
  if (o.counterspeller && !app.edge.getGraphic(o.counterspeller)) {
    throw new UsageError(`no token with the id "${o.counterspeller}" (--counterspeller)`);
  }
  const counterToken = findAttacker(app, msg, { attacker: o.counterspeller });
  const casterToken = tokenOf(app, msg, o.caster, 'caster');
  if (counterToken.id === casterToken.id) throw new UsageError('a counterspell answers another\'s spell: pick another --caster');
  const config = app.s().config;
  const counter = new SheetReader(app.edge, config, counterToken);
  const caster = new SheetReader(app.edge, config, casterToken);
  const rating = ratingOf(counter, o.school, o.rating, 'rating');
  const request = {
    ruleset: hints.withKind('counterspell')[0], // the ruleset with counterspells (WW-8)
    school: o.school,
    caster: { id: casterToken.id, skill: ratingOf(caster, o.school, o.casterSkill, 'caster-skill'), modifier: o.casterModifier || 0 },
    counterspeller: {
      id: counterToken.id, schools: { [o.school]: rating },
      distance: o.distance, modifier: o.modifier || 0,
    },
  };
  if (options.rolls) request.rolls = options.rolls;
  const names = { [counterToken.id]: counter.name, [casterToken.id]: caster.name };
  msg.fracasNames = names;
  const result = counterspell(request, { seed: options.seed !== undefined ? options.seed : app.newSeed() });
  // The players' card names a GM-layer side "a hidden creature"; the GM's names it.
  const tokens = { [counterToken.id]: counterToken, [casterToken.id]: casterToken };
  const seen = permissions.playerNames(names, tokens, null, '', app.edge).names;
  app.postCard(msg, cards.counterspellCard(result, { names: seen }), options.whisper, cards.counterspellCard(result, { names }));
  return result;
}

module.exports = { counterspellCommand };
