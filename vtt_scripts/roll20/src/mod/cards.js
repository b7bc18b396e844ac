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

function strikeBody(s) {
  const lines = [strikeSummary(s)];
  let dice = s.dice.map(die).join(' ');
  if (s.discarded !== null) dice += ` · dropped ${span(STYLE.drop, `${s.discarded}`)}`;
  lines.push(`dice: ${dice}`);
  if (s.crit_chain.length) {
    const chain = s.crit_chain.map((c) => `${die(c)}${c.hit ? ` +${c.damage}` : ''}`).join(' → ');
    lines.push(`crit: ${chain}`);
  }
  lines.push(strikeDamage(s));
  return lines.join('<br>');
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
      line += ` · rolled ${save.roll} → ${save.total}, ${save.passed ? 'passed' : `failed: incapacitated for ${save.incapacitated_actions} action${save.incapacitated_actions === 1 ? '' : 's'}`}`;
    }
  }
  if (applied && applied.after !== undefined) line += applied.hidden ? '<br>damage applied' : `<br>Body ${applied.before} → ${applied.after}`;
  else if (applied && applied.skipped && entry.damage) line += `<br>${span(STYLE.note, `not applied: ${esc.text(applied.skipped)}`)}`;
  return line;
}

/** The card of one resolved attack (result dict of docs/ENGINE.md section 7). */
function attackCard(result, ctx) {
  const rows = [];
  result.strikes.forEach((s, i) => {
    rows.push([`${i + 1} → ${ctx.names[s.target] || s.target}`, strikeBody(s)]);
  });
  for (const tid of Object.keys(result.targets)) {
    rows.push([ctx.names[tid] || tid, targetBody(result.targets[tid], ctx.applied && ctx.applied[tid])]);
  }
  rows.push(['seed', `${esc.text(String(result.seed))}${result.injected ? ' (dice given)' : ''}` +
    `<br>${span(STYLE.note, `replay: ${esc.button('request', `!fracas request ${ctx.id}`)} → fracas replay FILE`)}` +
    (ctx.undo ? ` ${esc.button('undo', '!fracas undo')}` : '')]);
  return template(`${ctx.attackerName} attacks`, rows);
}

/** The card of an ER-18 initiative roll. */
function initiativeCard(result, ctx) {
  const rows = result.order.map((e, i) => {
    let line = `${span(STYLE.big, `${e.total}`)} = d10 ${e.roll} ${signed(e.modifier)}`;
    if (e.tiebreaks.length) line += ` · tie broken by d20 ${e.tiebreaks.join(', ')}`;
    return [`${i + 1}. ${ctx.names[e.id] || e.id}`, line];
  });
  rows.push(['seed', `${esc.text(String(result.seed))}${ctx.undo ? ` ${esc.button('undo', '!fracas undo')}` : ''}`]);
  return template('Initiative (ER-18)', rows);
}

/** The compact card of a bulk (mob) result: totals per target, no dice. */
/** A count from an answer that came through chat: a whole number, or "?" (never markup). */
function count(value) {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : '?';
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
    const applied = ctx.applied && ctx.applied[tid];
    if (applied && applied.after !== undefined) line += applied.hidden ? '<br>damage applied' : `<br>Body ${applied.before} → ${applied.after}`;
    else if (applied && applied.skipped && t.damage) line += `<br>${span(STYLE.note, `not applied: ${esc.text(applied.skipped)}`)}`;
    rows.push([ctx.names[tid] || tid, line]);
  }
  rows.push(['mob', ctx.groups.map((g) => `${esc.text(g)}`).join('<br>')]);
  rows.push(['seed', `${esc.text(String(result.seed))} · request ${esc.text(ctx.id)}` +
    `${ctx.undo ? ` ${esc.button('undo', '!fracas undo')}` : ''}`]);
  return template(ctx.title, rows);
}

/** A short whispered notice (errors, confirmations). */
function notice(title, lines, kind = 'info') {
  const color = kind === 'error' ? '#a12a2a' : '#333';
  const body = lines.map((l) => `<div>${l}</div>`).join('');
  return `<div style="border:1px solid ${color};padding:4px;background:#fff">` +
    `<div style="font-weight:bold;color:${color}">${esc.text(title)}</div>${body}</div>`;
}

module.exports = { attackCard, initiativeCard, mobCard, notice, template };
