'use strict';
// Chat cards: results turned into Roll20's default roll template. Rendering never
// changes a result; each card kind is one function. All user text goes through
// escape.text(); numbers come from the engine.

const esc = require('./escape');

const STYLE = {
  hit: 'color:#17692e;font-weight:bold',
  miss: 'color:#a12a2a',
  drop: 'color:#888;text-decoration:line-through',
  note: 'color:#666;font-size:90%',
  big: 'font-size:115%;font-weight:bold',
};

function span(style, html) {
  return `<span style="${style}">${html}</span>`;
}

function signed(n) {
  return n < 0 ? `−${-n}` : `+${n}`;
}

/** A roll template card from a title and [label, html] rows. */
function template(title, rows) {
  const fields = rows.map(([label, html]) => `{{${esc.text(label).replace(/=/g, '&#61;')}=${html}}}`);
  return `&{template:default} {{name=${esc.text(title)}}} ${fields.join(' ')}`;
}

// Colour and a mark both say hit or miss (the colour alone is lost on some readers).
function die(d) {
  return span(d.hit ? STYLE.hit : STYLE.miss, `${d.face}`) + span(STYLE.note, `(${d.total})`) + (d.hit ? '✓' : '✗');
}

function strikeSummary(s) {
  if (s.defense_dc !== null && s.defense_dc !== undefined) {
    // ER-22: the player's defense dice, each + AC against the monster's DC.
    const pool = s.dice.length + (s.discarded !== null ? 1 : 0);
    return `${pool} defense d20 ${esc.text(s.style)}, ${esc.text(s.damage_type)} · +${s.ac} (AC) vs DC ${s.defense_dc}` +
      ' · a point per die not avoided';
  }
  const flags = [];
  if (s.advantage) flags.push('advantage');
  if (s.disadvantage) flags.push('disadvantage');
  if (s.sneak === true) flags.push('sneak attack');
  if (s.sneak === 'advantage-only') flags.push('sneak (advantage only)');
  if (s.crit_range !== null && s.crit_range < 20) flags.push(`crit ${s.crit_range}–20`);
  if (s.crit_range === null) flags.push('no crits');
  const pool = s.dice.length + (s.discarded !== null ? 1 : 0);
  return `${pool}d20 ${esc.text(s.style)} ${esc.text(s.method)}, ${esc.text(s.damage_type)} · ` +
    `${signed(s.to_hit)} vs AC ${s.ac}${flags.length ? ` · ${flags.join(', ')}` : ''}`;
}

function strikeDamage(s) {
  if (s.hits === 0) return `${span(STYLE.miss, 'miss')} → 0`;
  const parts = [`${s.hits} hit${s.hits === 1 ? '' : 's'}`];
  const chainDamage = s.crit_chain.reduce((sum, c) => sum + c.damage, 0);
  if (chainDamage) parts.push(`${chainDamage} crit`);
  const rest = s.base - s.hits - chainDamage; // the weapon's weight (crit-proof and petrified targets lower base)
  if (rest > 0) parts.push(`${rest} weight`);
  let line = `base ${s.base} (${parts.join(', ')})`;
  if (s.modifier !== null) line += ` ${signed(s.modifier)} modifier`;
  const resist = { resistant: 'halved: resistant', vulnerable: 'doubled: vulnerable', immune: 'immune' }[s.resistance];
  if (resist) line += ` · ${resist} to ${esc.text(s.damage_type)}`;
  line += ` → ${span(STYLE.big, `${s.damage}`)}`;
  if (s.undodgeable) line += ` ${span(STYLE.note, `(${s.undodgeable} undodgeable)`)}`;
  return line;
}

function strikeBody(s, names) {
  const lines = [strikeSummary(s)];
  let dice = s.dice.map(die).join(' ');
  if (s.discarded !== null) dice += ` · dropped ${span(STYLE.drop, `${s.discarded}`)}`;
  lines.push(`dice: ${dice}`);
  if (s.crit_chain.length) {
    const chain = s.crit_chain.map((c) => `${die(c)}${c.hit ? ` +${c.damage}` : ''}`).join(' → ');
    lines.push(`crit: ${chain}`);
  }
  lines.push(strikeDamage(s));
  if (s.stray) lines.push(strayLine(s.stray, names));
  else if (s.friendly_fire) lines.push(span(STYLE.note, 'friendly fire: a miss strays to the creatures nearby'));
  return lines.join('<br>');
}

/** ER-17: where a missed shot went (the d10, the creature in that slot, the shifted dice). */
function strayLine(st, names) {
  const who = st.creature === null ? null : (names && names[st.creature]) || st.creature;
  if (who === null || st.ac === null) {
    return `stray: d10 ${st.roll} · ${who === null ? 'an empty slot: hits nothing' : `${esc.text(who)}, behind full cover: hits nothing`}`;
  }
  const dice = st.dice.map((d) => span(d.hit ? STYLE.hit : STYLE.miss, `${d.face}+2=${d.shifted}`) +
    span(STYLE.note, `(${d.total})`) + (d.hit ? '✓' : '✗')).join(' ');
  let line = `stray: d10 ${st.roll} → ${esc.text(who)} (AC ${st.ac}) · ${dice}`;
  if (st.crit_chain.length) line += ` · crit: ${st.crit_chain.map((c) => `${c.face}${c.hit ? ` +${c.damage}` : '✗'}`).join(' → ')}`;
  line += st.hits ? ` → ${span(STYLE.big, `${st.damage}`)} to ${esc.text(who)}` : ' → misses';
  return line;
}

function targetBody(entry, applied) {
  const types = Object.keys(entry.by_type).filter((t) => entry.by_type[t]);
  let line = `${span(STYLE.big, `${entry.damage}`)} damage`;
  if (types.length > 1) line += ` (${types.map((t) => `${esc.text(t)} ${entry.by_type[t]}`).join(', ')})`;
  if (entry.undodgeable) line += ` · ${entry.undodgeable} undodgeable`;
  if (entry.shock_save_dc !== null) {
    line += `<br>shock: Resilience save DC ${entry.shock_save_dc}`;
    const save = entry.shock_save;
    if (save) {
      const lost = `incapacitated for ${save.incapacitated_actions} action${save.incapacitated_actions === 1 ? '' : 's'}`;
      const failed = save.situation && save.situation.automatic_failure;
      line += failed ? ` · fails automatically (${esc.text(failed)}, ER-14): ${lost}`
        : ` · rolled ${save.dice.join('/')} → ${save.total}, ${save.passed ? 'passed' : `failed: ${lost}`}`;
    }
  }
  const release = entry.grapple_release;
  if (release) {
    // ER-21: one Strength feat per strike that dealt body damage, until the first failure.
    for (const feat of release.feats) {
      line += `<br>grappling: Strength feat DC ${feat.dc}`;
      if (feat.held !== null && feat.roll === null) {
        line += ` · fails automatically (${esc.text(release.situation.automatic_failure)}, ER-14): ${span(STYLE.miss, 'lets go')}`;
      } else if (feat.roll !== null) {
        line += ` · rolled ${feat.dice.join('/')} ${signed(feat.modifier)} = ${feat.total}, ` +
          (feat.held ? 'keeps the hold' : span(STYLE.miss, 'lets go'));
      }
    }
  }
  return line + appliedLine(applied, entry.damage);
}

/** What applyDamage did to a target's bar, as a card line: the Body before and after (or only
 * that it was applied, on a card that may not show Body), or why not when there was damage. */
function appliedLine(applied, damage) {
  if (applied && applied.after !== undefined) return applied.hidden ? '<br>damage applied' : `<br>Body ${applied.before} → ${applied.after}`;
  if (applied && applied.skipped && damage) return `<br>${span(STYLE.note, `not applied: ${esc.text(applied.skipped)}`)}`;
  return '';
}

/** The card of one resolved attack (result dict of docs/ENGINE.md section 7). */
function attackCard(result, ctx) {
  const rows = [];
  if (result.flee) {
    rows.push(['flee attack', `the target moved ${result.flee.moved} ft (${result.flee.speed}): ${result.flee.dice}d20`]);
  }
  if (result.defense_rolls) rows.push(['defense rolls', 'the target rolls: d20 + AC against DC 21 + to-hit']);
  result.strikes.forEach((s, i) => {
    rows.push([`${i + 1} → ${ctx.names[s.target] || s.target}`, strikeBody(s, ctx.names)]);
  });
  for (const tid of Object.keys(result.targets)) {
    rows.push([ctx.names[tid] || tid, targetBody(result.targets[tid], ctx.applied && ctx.applied[tid])]);
  }
  rows.push(['seed', `${esc.text(String(result.seed))}${result.injected ? ' (dice given)' : ''}` +
    `<br>${span(STYLE.note, `replay: ${esc.button('request', `!fracas request ${ctx.id}`)} → fracas replay FILE`)}` +
    (ctx.undo ? ` ${esc.button('undo', `!fracas undo ${ctx.undo}`)}` : '')]);
  return template(`${ctx.attackerName} attacks`, rows);
}

/** The card of an ER-18 initiative roll. */
function initiativeCard(result, ctx) {
  const rows = result.order.map((e, i) => {
    let line = `${span(STYLE.big, `${e.total}`)} = d10 ${e.roll} ${signed(e.modifier)}`;
    if (e.tiebreaks.length) line += ` · tie broken by d20 ${e.tiebreaks.join(', ')}`;
    return [`${i + 1}. ${ctx.names[e.id] || e.id}`, line];
  });
  rows.push(['seed', `${esc.text(String(result.seed))}${ctx.undo ? ` ${esc.button('undo', `!fracas undo ${ctx.undo}`)}` : ''}`]);
  return template('Initiative (ER-18)', rows);
}

/** The compact card of a bulk (mob) result: totals per target, no dice. */
/** A count from an answer that came through chat: a whole number, or "?" (never markup). */
function count(value) {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : '?';
}

/**
 * What bulk did not roll for one group of the answer (`attack.bulk` BulkGroup, Enchanted
 * Realms): ER-13 shock saves due and ER-17 strays of missed shots, when not 0; '' else. The
 * answer's groups are the request's `attacks`, in order, as `ctx.groups` lists them.
 */
function leftOut(group) {
  if (!group || typeof group !== 'object') return '';
  const notes = [];
  const shock = count(group.shock_checks);
  if (shock !== '?' && shock > 0) notes.push(`${shock} shock save${shock === 1 ? '' : 's'} not rolled (ER-13)`);
  const strays = count(group.strays_omitted);
  if (strays !== '?' && strays > 0) notes.push(`strays of ${strays} missed shot${strays === 1 ? '' : 's'} omitted (ER-17)`);
  return notes.length ? ` ${span(STYLE.note, `· ${notes.join(' · ')}`)}` : '';
}

function mobCard(result, ctx) {
  const rows = [];
  for (const tid of Object.keys(result.targets || {})) {
    if (ctx.names && !Object.prototype.hasOwnProperty.call(ctx.names, tid)) continue; // not a target of the request
    const raw = result.targets[tid] || {};
    const t = {};
    for (const key of Object.keys(raw)) t[key] = count(raw[key]);
    const attacks = Number(t.attacks) || 0;
    let line = `${span(STYLE.big, `${t.damage}`)} damage from ${attacks} attack${attacks === 1 ? '' : 's'}` +
      ` · ${t.attacks_hit} hit`;
    // Enchanted Realms crits; the other rulesets' own totals (blocks, stamina/injury, explosions).
    if (t.crits !== undefined) line += ` · ${t.crits} crit${t.crits === 1 ? '' : 's'}`;
    if (t.negated) line += ` · ${t.negated} blocked or dodged`;
    if (t.injury !== undefined) line += ` · stamina ${t.stamina}, injury ${t.injury}`;
    if (t.exploded) line += ` · ${t.exploded} explosion${t.exploded === 1 ? '' : 's'}`;
    if (t.longest_chain > 1) line += ` · longest crit chain ${t.longest_chain}`;
    if (t.undodgeable) line += ` · ${t.undodgeable} undodgeable`;
    line += appliedLine(ctx.applied && ctx.applied[tid], t.damage);
    rows.push([ctx.names[tid] || tid, line]);
  }
  rows.push(['mob', ctx.groups.map((g, i) => esc.text(g) + leftOut((result.groups || [])[i])).join('<br>')]);
  rows.push(['seed', `${esc.text(String(result.seed))} · request ${esc.text(ctx.id)}` +
    `${ctx.undo ? ` ${esc.button('undo', `!fracas undo ${ctx.undo}`)}` : ''}`]);
  return template(ctx.title, rows);
}

/** The `{{label=html}}` fields of a roll template card, in order (name first). */
function templateFields(text) {
  return String(text).match(/\{\{(?:(?!\}\}).)*\}\}/gs) || [];
}

/**
 * The GM's one whispered card beside a public card `shown`: the fields of the GM's version
 * `gmCard` that the public one does not carry as they are (real names, Body, the buttons),
 * under the same title marked "(GM)"; null when nothing is left out. A card that is no roll
 * template (a notice) goes whole when it differs.
 */
function gmCompanion(shown, gmCard) {
  if (!String(gmCard).startsWith('&{template:')) return gmCard === shown ? null : gmCard;
  const fields = templateFields(gmCard);
  const name = fields.find((f) => f.startsWith('{{name='));
  const have = new Set(templateFields(shown));
  const rows = fields.filter((f) => f !== name && !have.has(f));
  if (!rows.length) return null;
  const title = name ? `${name.slice(0, -2)} (GM)}}` : '{{name=fracas (GM)}}';
  return `&{template:default} ${title} ${rows.join(' ')}`;
}

/** A short whispered notice (errors, confirmations). */
function notice(title, lines, kind = 'info') {
  const color = kind === 'error' ? '#a12a2a' : '#333';
  const body = lines.map((l) => `<div>${l}</div>`).join('');
  return `<div style="border:1px solid ${color};padding:4px;background:#fff">` +
    `<div style="font-weight:bold;color:${color}">${esc.text(title)}</div>${body}</div>`;
}

/** The card of an ER-19 competition: both sides, their odds, every roll, the outcome. */
function competeCard(result, ctx) {
  const rows = [];
  for (const side of ['challenger', 'defender']) {
    const c = result[side];
    const parts = [`${esc.text(c.attribute)} ${signed(c.modifier)}`];
    if (c.bonus) parts.push(`bonus ${signed(c.bonus)}`);
    for (const s of c.situation) parts.push(`${esc.text(s.why)} ${signed(s.value)}`);
    const from = (list) => (list.length ? ` (${esc.text(list.join(', '))})` : '');
    let edge = c.advantage ? ` · advantage${from(c.advantage_from)}` : c.disadvantage ? ` · disadvantage${from(c.disadvantage_from)}` : '';
    if (c.automatic_failure) edge = ` · ${esc.text(c.automatic_failure)}: fails automatically (ER-14)`;
    rows.push([ctx.names[side] || c.id, `d12 ${signed(c.total_modifier)} (${parts.join(', ')})${edge}` +
      `<br>${span(STYLE.note, `${(100 * c.win_chance).toFixed(1)}% to win`)}`]);
  }
  const rolls = result.rounds.map((r) => `${r.challenger.dice.join('/')}→${r.challenger.total} vs ` +
    `${r.defender.dice.join('/')}→${r.defender.total}${r.challenger.total === r.defender.total ? ' (tie)' : ''}`);
  rows.push(['d12', rolls.join('<br>')]);
  let outcome = result.outcome;
  for (const side of ['challenger', 'defender']) {
    if (ctx.names[side]) outcome = outcome.split(result[side].id).join(ctx.names[side]);
  }
  rows.push(['outcome', span(STYLE.big, esc.text(outcome))]);
  const inc = result.incidental;
  if (inc) { // "ER Grappling: Uncommon Conditions"
    const pct = (p) => `${(100 * p).toFixed(1)}%`;
    let line = `${esc.text(inc.strike)} (${esc.text(inc.damage_type)}): raw ${inc.raw === null ? '—' : inc.raw}` +
      ` · ${inc.dealt ? `${inc.damage} damage` : 'no damage'}${inc.delivered ? ` · ${esc.text(inc.special || 'poison')} delivered: its save` : ''}` +
      `<br>${span(STYLE.note, `${pct(inc.p_dealt)} to hurt${inc.p_delivered ? `, ${pct(inc.p_delivered)} to deliver` : ''}` +
      `${inc.p_release !== null ? `, ${pct(inc.p_release)} to free` : ''}`)}`;
    if (inc.release) {
      const r = inc.release;
      line += `<br>Strength feat DC ${r.dc}: ${r.roll === null ? 'the table rolls it' : `${r.dice.join('/')}→${r.total} · ${r.held ? 'holds' : 'lets go'}`}`;
    }
    line += appliedLine(ctx.applied, inc.damage);
    rows.push(['savage form', line]);
  }
  rows.push(['seed', `${esc.text(String(result.seed))}${ctx.undo ? ` ${esc.button('undo', `!fracas undo ${ctx.undo}`)}` : ''}`]);
  return template(`Competition: ${result.contest} (ER-19)`, rows);
}

/** The card of a WW-8 counterspell: both d20s, the outcome in names, the exact chance it had. */
function counterspellCard(result, ctx) {
  const name = (id) => ctx.names[id] || id;
  const cs = result.counterspeller;
  const ca = result.caster;
  const rows = [
    [`${name(cs.id)} (counters)`, `d20 ${cs.roll} ${signed(cs.skill)} ${esc.text(result.school)}${cs.modifier ? ` ${signed(cs.modifier)}` : ''}` +
      ` = ${span(STYLE.big, `${cs.total}`)} · ${cs.distance} ft away`],
    [`${name(ca.id)} (casts)`, `d20 ${ca.roll} ${signed(ca.skill)} ${esc.text(result.school)}${ca.modifier ? ` ${signed(ca.modifier)}` : ''}` +
      ` = ${span(STYLE.big, `${ca.total}`)}`],
  ];
  // The resolver's outcome names the ids: each becomes the name this card shows.
  let outcome = result.outcome;
  for (const id of [cs.id, ca.id]) outcome = outcome.split(id).join(name(id));
  rows.push(['outcome', span(STYLE.big, esc.text(outcome))]);
  rows.push(['chance', `${(100 * result.p_countered).toFixed(1)}% to counter (exactly ${esc.text(result.p_countered_exact)}; a tie leaves the spell cast)`]);
  rows.push(['seed', esc.text(String(result.seed))]);
  return template(`Counterspell (WW-8): ${result.school}`, rows);
}

/** The card of an ER-23 impalement: the strike at the charger, and whether the charge is void. */
function impaleCard(result, ctx) {
  const rows = [];
  const s = result.impalement.strikes[0];
  rows.push([`${ctx.pikeman} → ${ctx.charger}`, strikeBody(s, {})]);
  const ch = result.charger;
  let line = `${span(STYLE.big, `${ch.damage}`)} damage`;
  const applied = ctx.applied;
  if (applied && applied.after !== undefined) line += applied.hidden ? ' · damage applied' : ` · Body ${applied.before} → ${applied.after}`;
  line += result.charge_void ? `<br>${span(STYLE.big, 'incapacitated: the charge is void')}`
    : '<br>still standing: the charge goes on';
  rows.push([ctx.charger, line]);
  rows.push(['seed', `${esc.text(String(result.seed))}${ctx.undo ? ` ${esc.button('undo', `!fracas undo ${ctx.undo}`)}` : ''}`]);
  return template(`Impalement (ER-23): ${result.dice}d20 before the charge`, rows);
}

module.exports = {
  attackCard, initiativeCard, mobCard, competeCard, impaleCard, counterspellCard, notice, template, gmCompanion, strikeBody, span, signed, STYLE,
};
