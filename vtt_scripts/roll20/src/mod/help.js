'use strict';
// `!fracas help`: the whispered help, and the "Help: fracas" handout kept current.

const esc = require('./escape');

const { VERSION, RULESETS, DEFAULT_RULESET } = require('../contract');
const { ownClient } = require('../registry');
const hints = require('./hints');
const HANDOUT = 'Help: fracas';

const T = (s) => esc.text(s);
const code = (s) => `<code>${T(s)}</code>`;
const item = (cmd, what) => `<li>${code(cmd)} — ${what}</li>`;

/** The help items, [command line, what it does (HTML)], in the order the help lists them. */
function items(config) {
  // The other rulesets and their options, from the contract (each manifest's [client] help).
  const others = RULESETS.map((r) => r.name).filter((name) => !ownClient(name));
  const options = others.filter((name) => hints.hints(name).help).map((name) => `${hints.title(name)} ${hints.hints(name).help}`);
  const home = hints.title(DEFAULT_RULESET);
  const counter = hints.withKind('counterspell');
  return [
    ['!fracas attack --target @{target|token_id} --dice 2 --style slashing --weight 1 --type edged',
      'the selected token (or --attacker ID) attacks. --dice starts a strike; the options after it belong to it: ' +
      '--method melee|range|savage, --style, --type (damage type), --weight 0-2|light|medium|heavy, --bonus N, ' +
      '--crit / --no-crit, --crit-range 19, --adv, --disadv, --sneak [advantage-only], --reach, --sneak-ok, --target ID. ' +
      'Without --dice the strikes come from the attacker\'s sheet attribute ' + code(config.attrs.strikes) +
      ' (or ' + code(`${config.attrs.strikes}_NAME`) + ' with --use NAME), written with the same options.'],
    ['!fracas attack … --cover half|three-quarters|full --obscurement N --advantage --disadvantage --seed N --rolls 12,7,3 --ac N --no-apply --whisper --current-page',
      'cover for the targets, the attacker\'s obscurement penalty, advantage for the whole action, a seed or the faces of physical dice, ' +
      'an AC for tokens without a sheet, a preview without damage, a whispered card; --current-page: only targets on the attacker\'s page.'],
    [`!fracas attack --ruleset ${others.join('|')} --target ID …`,
      'another ruleset (or the campaign\'s, !fracas config --ruleset). Every request field is an option of its name: ' +
      `${T(options.join('; '))}. ` +
      'Attacker fields missing from the command and every target field come from sheet attributes ' + code('fracas_FIELD') +
      ' (e.g. ' + code('fracas_armor') + '), or --target-FIELD N for every target. !fracas mob --ruleset NAME takes the same options.'],
    ['!fracas attack … --nearby ID ID … --friendly-fire on|off --flee FEET --grappling ID --defense-rolls on|off',
      `the table situations (${T(home)}): creatures near the targets, in slot order 1-8, that a missed shot may ` +
      'hit instead (ER-17: by default under three-quarters cover, by a blind attacker or at an invisible target); a flee ' +
      'attack at a creature that moved FEET (ER-20: 20-70 a normal strike, 75+ one d20); a target that holds someone ' +
      'makes its Strength feat when hurt (ER-21); the target\'s player rolls defense dice (ER-22; the campaign default: ' +
      '!fracas config --defense-rolls on).'],
    ['!fracas compete --contest grapple|escape|shove|trip|plain --defender @{target|token_id}',
      'a competition (ER-19): the selected token (or --challenger ID) against the defender, d12 + Strength modifier each ' +
      '(--use agility / --against agility for Agility), with the size, speed, slick (--slick) and prone modifiers; ' +
      '--advantage challenger|defender, --disadvantage …, --bonus N. Ties are rolled again; the card shows each side\'s odds. ' +
      'A grapple or escape victim\'s savage form: --savage defender claw:edged bite:piercing:poison (claws over a bite; a ' +
      'raw 8+ hurts a grappler without one for 1 point, a 12 delivers the poison; an escape lost calls for the ' +
      'grappler\'s DC 11 Strength feat), and the grappler\'s --resistant|--vulnerable|--immune challenger TYPE…. ' +
      'The point lands on the grappler\'s bar with undo (--no-apply leaves it).'],
    ['!fracas counterspell --school NAME --caster @{target|token_id} --distance FEET [--counterspeller ID] [--rating N] [--caster-skill N] [--modifier N] [--caster-modifier N]',
      `a counterspell (${T(hints.titles(counter))} WW-8): the selected token (or` + ' --counterspeller ID) against the caster, d20 + its rating ' +
      'in the spell\'s school each, within 60 ft; the counterspeller must beat the caster (a tie leaves the spell cast). ' +
      'Ratings come from the sheets\' ' + code('school_NAME') + ' attributes (e.g. ' + code('school_sorcery') + '), or ' +
      '--rating / --caster-skill; the card shows both rolls and the exact chance the counterspell had.'],
    ['!fracas impale --charger @{target|token_id} --closed 30 [--forte] [--weight N] [--bonus N]',
      'impalement (ER-23): the selected pikeman\'s 3d20 (4d20 with weapon forte) at a charger that closed 25 ft or more, ' +
      'before its charge; the damage is applied (undo works) and the card says whether the charge is void (0 Body).'],
    ['!fracas save --save agility|resilience|strength --dc 13 [--targets ID ID …] [--area] [--effect TEXT] [--on-fail asleep,…] [--cover LEVEL|ID=LEVEL] [--bonus N] [--advantage] [--disadvantage]',
      'saves (ER-12, ER-14, ER-16), rolled by the bridge (through the relay: this script has no save resolver): the selected tokens ' +
      '(or --targets) each roll d20 + the attribute\'s modifier from their sheet (Resilience: ' + code(config.attrs.save_bonus) +
      ') against the DC, with their markers\' conditions; --area with cover: +2/+5/+5 on an Agility save. A failed save puts ' +
      'the --on-fail conditions on the token as markers (undo takes them off). The card shows each one\'s exact chance and how many fail.'],
    ['!fracas touch --touch hit|sleight --target @{target|token_id} [--dice N] [--bonus N] [--advantage] [--other-ac N]',
      'a touch attack (ER Touch attacks), rolled by the bridge: the selected caster (or --attacker ID) touches the target with a hit ' +
      'for no damage (its skill dice against the AC) or a sleight-of-hand feat (DC 10 + the target\'s Agility modifier + --other-ac, ' +
      'unnoticed at 4 over); the card says whether it touched, with the exact odds.'],
    ['!fracas drop --target @{target|token_id} [--dice … strike options] [--surrenders off] | !fracas drop --inflict HELD --target ID [--rounds N] [--foul-play] [--attribute strength]',
      'getting the drop (ER-13), rolled by the bridge: the selected token\'s sneak attack (its sheet strikes, or --dice …) whose damage ' +
      'is held, not dealt (with --surrenders off, a victim that cannot surrender, it is dealt); the GM\'s inflict button, or --inflict, ' +
      'deals it later, the victim\'s feat against DC 20 (one less a round, at least 14; advantage with --foul-play) halving it; ' +
      'damage applied (undo works), the shock save it calls for named.'],
    ['!fracas lock --mode lock|disarm|blitz --target @{target|token_id} [--reacts] [--to-hit N] [--weapon light|medium|heavy] [--type T] [--advantage]',
      'weapon lock, disarm or shield-blitz (ER Weapon Lock, ER-19), rolled by the bridge: the selected token\'s d20 + to-hit (its ' +
      'Strength score and size bonus, or --to-hit) against the victim\'s AC; with --reacts the victim pulls free (Strength) or pays ' +
      '2/3/4 Body and resists a disarm (Agility), the attacker at advantage; a blitz is a d20 of blunt damage. Body applied, undo works.'],
    ['!fracas throw --item ITEM --target @{target|token_id} [--skill none|ranged|hurling] [--damage 2d6+1 --type T] [--cover LEVEL] [--bonus N] [--advantage]',
      'throwing items and throwing magic (ER Throwing Items), rolled by the bridge: the selected thrower (or --attacker ID) throws ' +
      'acid splash, bonfire blend, explosive oil, firebreather\'s oil, holy water (the table\'s damage), other or magic (give --damage and --type) ' +
      'at the target\'s AC: 1/2/3 d20 by skill, each raw face against the AC, any hit enough (magic: one d20 + Agility); the target\'s ' +
      'resistances and markers from its sheet. The damage comes off its bar (undo works); the card gives P(hit) and the mean damage, exact.'],
    ['!fracas slam --target @{target|token_id} [--damage-type T] [--into ID --distance FT] [--height FT] [--to-hit N] [--advantage]',
      'a grappler\'s slam (ER Grappling), rolled by the bridge: the selected grappler (or --attacker ID), two or more sizes larger ' +
      'than the victim it holds (--target), hurls it for its Strength bonus in blunt damage (--damage-type for the terrain) and frees it; ' +
      'ten feet or taller (huge and up, or --height 10) it may slam it --into another token within 10 ft: 3d20 + --to-hit against its AC, ' +
      'any hit enough, the Strength bonus in blunt damage. Sizes and Strength from the sheets. Both damages applied, undo works; the card gives P(hit).'],
    ['!fracas odds … (the options of !fracas attack) [--count N] [--at-least N]',
      'the exact odds of that attack, whispered to you: P(hit), P(crit), mean, the likeliest damage, and the chance ' +
      'each target drops (its Body bar is read); --count N for N identical attacks (a mob). Nothing is rolled or applied.'],
    ['!fracas init', 'ER-18 initiative (d10 + Agility modifier + ' + code(config.attrs.initiative_bonus) +
      ', ties by d20 roll-offs) for the selected tokens, into the turn order. --bonus N adds to all. --ruleset NAME: ' +
      'that ruleset\'s per-combatant initiative, rolled by the fracas bridge (through the relay) from each token\'s ' +
      'fracas_<field> attributes (the fields its manifest\'s [client] initiative_flags names; a plug-in\'s the bridge serves).'],
    ['!fracas mob --target ID [--target ID…] [--each]',
      'the selected tokens, grouped by character, attack the targets through the fracas bridge (the relay browser extension): ' +
      'each token attacks one target in turn, or every target with --each. Totals are applied; undo works.'],
    ['!fracas round [--new] [--undo] [--seed N]',
      'a whole fight on the fracas bridge (through the relay): --new makes it from the tokens in the turn order (the ' +
      'tokens players control are the party, the rest the foes) and plays round 1; each !fracas round plays the next ' +
      'round by the ruleset\'s initiative, morale and phases, with the bars as they are now, and sets the bars and dead ' +
      'markers; --undo takes the last round back.'],
    ['!fracas forecast [--turns | --side NAME ID ID …] [--runs N] [--seed N] [--vary TOKEN [--values 1..12] [--target 0.5]] [--share]',
      'how deadly is this fight? The bridge (through the relay) plays it --runs times (1000; 500 a point with --vary) ' +
      'and whispers you a card: each side\'s chance to win with its 95% interval, draws, rounds, who is likely to fall. ' +
      'Sides: the selected tokens against the rest of their page; nothing selected, the page\'s tokens players control ' +
      'against the rest; --turns the turn order split the same way; --side by hand. Each token is one combatant, read ' +
      'from its sheet as !fracas round reads it, with its Body now. --vary TOKEN sweeps that token\'s count (the card ' +
      'says at what count the other side\'s chance crosses --target); the card\'s vary button asks for the token. ' +
      'Players see nothing unless you share (the share button, or --share): their card leaves out GM-layer tokens and names ' +
      'no creature whose nameplate they do not see.'],
    ['!fracas undo [ID]', "takes back one card's changes by delta (its undo button names it); alone, the newest card not undone."],
    ['!fracas config', 'shows the settings; change them with --bar 1-4, --min N, --below-min on|off, --output public|whisper, ' +
      '--players-attack on|off, --players-numbers on|off (players may type strike options, --ac, --target-FIELD), --trust-scripts on|off (commands other Mod scripts send act as the GM), --defense-rolls on|off (ER-22: players roll against the GM\'s creatures), --players-seed on|off (players may give --seed/--rolls), --players-any-layer on|off (players may target tokens off the token layer), --show-npc-body on|off (public cards show NPCs\' Body), ' +
      '--attr FIELD=NAME (e.g. --attr ac=armor_class), --marker CONDITION=MARKER, ' +
      '--relay-chunk N, --relay-timeout S, --ruleset NAME (the default of !fracas attack), --injury-bar 1-4|off (' + T(hints.titles(hints.withPools())) + ' injury), --reset.'],
    ['!fracas request ID', 'whispers the request of an earlier attack (for fracas attack FILE --seed N).'],
    ['!fracas relay [--secret | --new-secret]', 'shows whether the relay extension is connected and what it is waiting for; ' +
      '--secret whispers the relay secret to paste into the extension\'s popup (--new-secret makes another); ' +
      '!fracas resend ID sends a request again.'],
    ['!fracas resend ID', 'sends a relay request that got no answer again (the bridge answers a repeated id once).'],
    ['!fracas journal ID', 'shows what the bridge journaled for a request id (through the relay).'],
    ['!fracas replay ID', 'replays a journaled request on the bridge and says whether it matches.'],
    ['!fracas help', 'this help (also in the handout "Help: fracas"); !fracas COMMAND --help shows one command\'s.'],
  ];
}

/** Who may do what, in one paragraph (the README says the same). */
function trustHtml() {
  return '<p><b>Who may do what.</b> The GM runs every command. A player may attack, ask odds, compete, counterspell, impale, ' +
    'touch, lock, throw, slam, get the drop and roll saves with tokens they control, on the page they are on, with their character\'s sheet strikes against the targets\' ' +
    'sheets; typed numbers (strike options, --ac, --target-FIELD, --cover…) only with !fracas config --players-numbers on, ' +
    'dice (--seed, --rolls) only with --players-seed on. A command another Mod script sends is not the GM\'s: it acts for ' +
    'the player named with --api-as PLAYER_ID (TokenMod\'s convention), or for nobody, unless the GM turns ' +
    '!fracas config --trust-scripts on.</p>';
}

function helpHtml(config) {
  return [
    `<div style="border:1px solid #333;background:#fff;padding:4px">`,
    `<div style="font-weight:bold;font-size:120%">fracas ${VERSION} — ${T(hints.title(DEFAULT_RULESET))} combat</div>`,
    '<p>Rolls every die pool, crit chain and resistance, shows the dice, applies damage, and can undo it. ',
    'Every card shows its seed: the Python engine (<code>fracas</code>) replays it exactly.</p>',
    '<b>Commands</b><ul>',
    ...items(config).map(([cmd, what]) => item(cmd, what)),
    '</ul>',
    trustHtml(),
    '<b>Sheet attributes read</b> (names as configured): ',
    T(Object.keys(config.attrs).map((k) => `${k}: ${config.attrs[k]}`).join(', ')),
    `. AC by damage type: ${code(`${config.attrs.ac_prefix}edged`)} and so on. Conditions come from token markers named like the condition `,
    '(prone, blind, invisible, …) or as set with --marker.',
    `<p>Damage goes to bar ${config.bar}${config.below_min ? '' : `, never below ${config.min}`}.</p>`,
    '</div>',
  ].join('');
}

/** Create or refresh the help handout when this version has not written it yet. */
function ensureHandout(edge, s) {
  if (s.help_version === VERSION) return false;
  const handout = edge.handout(HANDOUT);
  if (!handout) return false;
  handout.set('notes', helpHtml(s.config));
  s.help_version = VERSION;
  return true;
}

/** `!fracas NAME --help`: the help items of one command. */
function commandHelp(config, name) {
  const own = items(config).filter(([cmd]) => cmd.split(' ')[1] === name);
  return [
    `<div style="border:1px solid #333;background:#fff;padding:4px">`,
    `<div style="font-weight:bold">fracas ${T(name)}</div><ul>`,
    ...own.map(([cmd, what]) => item(cmd, what)),
    '</ul>',
    ['attack', 'odds', 'compete', 'counterspell', 'impale', 'save', 'touch', 'drop', 'lock', 'throw', 'slam'].includes(name) ? trustHtml() : '',
    '</div>',
  ].join('');
}

module.exports = { helpHtml, commandHelp, ensureHandout, VERSION, HANDOUT };
