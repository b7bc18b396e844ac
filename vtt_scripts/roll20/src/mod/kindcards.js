'use strict';
// The cards of the kinds the bridge rolls for this script (bridgekinds.js): save, touch, drop,
// lock, throw, slam, each one function from the answer (its layout checked first against contract.js) to
// the card's [label, html] rows, in cards.js's style, with the exact odds the answer carries.
// An answer comes through chat: every string is first made plain (clean) and every number
// checked, so nothing in it shows as markup.

const esc = require('./escape');
const { span, signed, strikeBody, STYLE } = require('./cards');

const SAFE = /^[A-Za-z0-9 _.,:;'()/+\-−]*$/;

/** A copy of an answer where a string that is not plain text is "?" (never markup). */
function clean(value, depth = 0) {
  if (depth > 12) return null;
  if (typeof value === 'string') return SAFE.test(value) && value.length <= 500 ? value : '?';
  if (typeof value === 'number') return Number.isFinite(value) ? value : '?';
  if (Array.isArray(value)) return value.slice(0, 1000).map((v) => clean(v, depth + 1));
  if (value && typeof value === 'object') {
    const out = {};
    for (const key of Object.keys(value)) out[key] = clean(value[key], depth + 1);
    return out;
  }
  return value;
}

/** A whole number from the answer, or "?". */
function n(value) {
  return Number.isSafeInteger(value) ? value : '?';
}

/** A chance as a percentage with its exact fraction: "55.0% (11/20)". */
function pct(p, exact) {
  const num = typeof p === 'number' && p >= 0 && p <= 1 ? `${(100 * p).toFixed(1)}%` : '?';
  const frac = typeof exact === 'string' && /^\d+(\/\d+)?$/.test(exact) ? ` (${exact})` : '';
  return `${num}${frac}`;
}

function list(values) {
  return (Array.isArray(values) ? values : []).map((v) => esc.text(v)).join('/');
}

/** The name a card gives a token id (the request's names), else the id. */
function nameOf(ctx, id) {
  return Object.prototype.hasOwnProperty.call(ctx.names || {}, id) ? ctx.names[id] : String(id);
}

/** Advantage, disadvantage and an automatic failure (ER-12, ER-14), with what caused them. */
function edgeNote(x) {
  if (!x || typeof x !== 'object') return '';
  const from = (l) => (Array.isArray(l) && l.length ? ` (${l.map(esc.text).join(', ')})` : '');
  if (x.automatic_failure) return ` · ${esc.text(x.automatic_failure)}: fails automatically (ER-14)`;
  if (x.advantage && !x.disadvantage) return ` · advantage${from(x.advantage_from)}`;
  if (x.disadvantage && !x.advantage) return ` · disadvantage${from(x.disadvantage_from)}`;
  return '';
}

function bodyNote(applied, damage) {
  if (!applied) return '';
  if (applied.after !== undefined) return applied.hidden ? ' · damage applied' : ` · Body ${applied.before} → ${applied.after}`;
  if (applied.skipped && damage) return ` · ${span(STYLE.note, `not applied: ${esc.text(applied.skipped)}`)}`;
  return '';
}

/** Replace token ids in an answer's sentence with the card's names. */
function named(text, ctx) {
  let out = String(text);
  for (const id of Object.keys(ctx.names || {})) out = out.split(id).join(ctx.names[id]);
  return out;
}

// --- save ----------------------------------------------------------------------------

function saveRows(raw, ctx) {
  const r = clean(raw);
  const rows = [];
  const onFail = Array.isArray(r.on_fail) ? r.on_fail : [];
  for (const t of r.targets) {
    let line;
    if (t.automatic_failure) {
      line = `${esc.text(t.automatic_failure)}: fails automatically (ER-14)`;
    } else {
      const parts = [`${esc.text(r.save)} ${signed(n(t.modifier))}`];
      if (t.bonus) parts.push(`bonus ${signed(n(t.bonus))}`);
      if (t.cover_bonus) parts.push(`${esc.text(t.cover)} cover ${signed(n(t.cover_bonus))} (ER-16)`);
      if (t.penalty) parts.push(`${esc.text(t.penalty.condition)} ${signed(-Math.abs(n(t.penalty.value)) || 0)}`);
      line = `d20 ${list(t.dice)} → ${n(t.kept)} ${signed(n(t.total_modifier))} = ${span(STYLE.big, `${n(t.total)}`)} vs DC ${n(r.dc)} ` +
        `(${parts.join(', ')})${edgeNote(t)}`;
    }
    line += `<br>${t.saved === true ? span(STYLE.hit, 'saved ✓') : span(STYLE.miss, 'failed ✗')} · ` +
      `${span(STYLE.note, `${pct(t.p_save, t.p_save_exact)} to save`)}`;
    if (t.saved === false && onFail.length) {
      const set = ctx.markers && ctx.markers[t.id];
      if (!ctx.apply) line += `<br>on a failure: ${onFail.map(esc.text).join(', ')} (not applied)`;
      else if (set && set.length) line += `<br>now ${set.map(esc.text).join(', ')} (marker set)`;
      else line += `<br>${onFail.map(esc.text).join(', ')} (already shown)`;
    }
    rows.push([nameOf(ctx, t.id), line]);
  }
  if (Array.isArray(r.p_failures) && r.targets.length > 1) {
    rows.push(['how many fail', r.p_failures.map((f) => `${n(f.failed)}: ${pct(f.p, f.p_exact)}`).join(' · ')]);
  }
  return rows;
}

// --- touch ---------------------------------------------------------------------------

function die(d) {
  return span(d.hit ? STYLE.hit : STYLE.miss, `${n(d.face)}`) + span(STYLE.note, `(${n(d.total)})`) + (d.hit ? '✓' : '✗');
}

function touchRows(raw, ctx) {
  const r = clean(raw);
  const rows = [];
  const who = `${ctx.actor ? esc.text(ctx.actor) : 'the caster'} → ${esc.text(nameOf(ctx, r.target))}`;
  if (r.hit) {
    const h = r.hit;
    let dice = (Array.isArray(h.dice) ? h.dice : []).map(die).join(' ');
    if (h.discarded !== null && h.discarded !== undefined) dice += ` · dropped ${span(STYLE.drop, `${n(h.discarded)}`)}`;
    const flags = [h.advantage ? 'advantage' : '', h.disadvantage ? 'disadvantage' : ''].filter(Boolean);
    rows.push([who, `a hit for no damage: ${signed(n(h.to_hit))} vs AC ${n(h.ac)}${flags.length ? ` · ${flags.join(', ')}` : ''}` +
      `<br>dice: ${dice}`]);
  }
  if (r.sleight) {
    const s = r.sleight;
    rows.push([who, `sleight of hand: d20 ${list(s.dice)} → ${n(s.kept)} ${signed(n(s.total_modifier))} = ${span(STYLE.big, `${n(s.total)}`)} ` +
      `vs DC ${n(s.dc)} (${n(s.base_dc)} ${signed(n(s.target_agility_mod))} Agility ${signed(n(s.target_other_ac))} other AC)` +
      `; unnoticed at ${n(s.clandestine_dc)}${edgeNote(s.situation)}`]);
  }
  let outcome = r.touched === true ? span(STYLE.hit, 'touched ✓') : span(STYLE.miss, 'not touched ✗');
  if (r.clandestine === true) outcome += ' · unnoticed';
  else if (r.clandestine === false && r.touched === true) outcome += ' · noticed';
  rows.push(['outcome', outcome]);
  let odds = `P(touch) ${pct(r.p_touch, r.p_touch_exact)}`;
  if (r.p_clandestine !== null && r.p_clandestine !== undefined) odds += ` · P(unnoticed) ${pct(r.p_clandestine, r.p_clandestine_exact)}`;
  rows.push(['odds', odds]);
  return rows;
}

// --- drop ----------------------------------------------------------------------------

function dropRows(raw, ctx) {
  const r = clean(raw);
  const rows = [];
  const victim = nameOf(ctx, r.victim);
  const applied = ctx.applied && ctx.applied[r.victim];
  if (r.attack) {
    r.attack.strikes.forEach((s, i) => rows.push([`${i + 1} → ${nameOf(ctx, s.target)}`, strikeBody(s, ctx.names)]));
    if (r.surrenders) {
      let line = `${span(STYLE.big, `${n(r.held)}`)} damage held: not dealt. ${esc.text(victim)} may surrender; ` +
        'dealing it later lets the victim roll a Strength or Agility feat (DC 20, one less a round, at least 14) to halve it.';
      if (ctx.actorId && Number.isSafeInteger(r.held)) {
        line += ` ${esc.button('inflict', `!fracas drop --inflict ${r.held} --target ${r.victim} --attacker ${ctx.actorId}`)}`;
      }
      rows.push([victim, line]);
    } else {
      rows.push([victim, `cannot surrender: the sneak attack's ${span(STYLE.big, `${n(r.inflicted)}`)} damage is dealt${bodyNote(applied, r.inflicted)}`]);
    }
    return rows;
  }
  const f = r.release;
  if (f) {
    let line;
    if (f.situation && f.situation.automatic_failure) line = `${esc.text(f.situation.automatic_failure)}: fails automatically (ER-14)`;
    else {
      line = `${esc.text(f.attribute)} feat d20 ${list(f.dice)} → ${n(f.kept)} ${signed(n(f.total_modifier))} = ${span(STYLE.big, `${n(f.total)}`)}` +
        ` vs DC ${n(f.dc)} (${n(f.rounds)} round${f.rounds === 1 ? '' : 's'} since the drop)${edgeNote(f.situation)}`;
    }
    line += `<br>${f.halved ? span(STYLE.hit, 'halved ✓') : span(STYLE.miss, 'not halved ✗')} · ` +
      span(STYLE.note, `P(half) ${pct(f.p_half, f.p_half_exact)} · mean ${typeof f.mean_inflicted === 'number' ? f.mean_inflicted.toFixed(2) : '?'}` +
        `${typeof f.mean_inflicted_exact === 'string' && /^\d+(\/\d+)?$/.test(f.mean_inflicted_exact) ? ` (${f.mean_inflicted_exact})` : ''} inflicted`);
    rows.push([`feat of ${victim}`, line]);
  }
  let dealt = `${n(r.held)} held → ${span(STYLE.big, `${n(r.inflicted)}`)} damage${bodyNote(applied, r.inflicted)}`;
  if (f && f.shock_save) {
    dealt += `<br>shock: Resilience save DC ${n(f.shock_save.dc)} (ER-13)`;
    if (Number.isSafeInteger(f.shock_save.dc)) {
      dealt += ` ${esc.button('roll it', `!fracas save --save resilience --dc ${f.shock_save.dc} --targets ${r.victim} --effect shock`)}`;
    }
  }
  rows.push([victim, dealt]);
  return rows;
}

// --- lock ----------------------------------------------------------------------------

function sideLine(side, ctx) {
  return `${esc.text(nameOf(ctx, side.id))} d12 ${signed(n(side.total_modifier))} (${esc.text(side.attribute)} ${signed(n(side.modifier))}` +
    `${side.bonus ? `, bonus ${signed(n(side.bonus))}` : ''})${edgeNote(side)} · ${typeof side.win_chance === 'number' ? `${(100 * side.win_chance).toFixed(1)}%` : '?'} to win`;
}

function lockRows(raw, ctx) {
  const r = clean(raw);
  const rows = [];
  const victim = nameOf(ctx, r.victim);
  const applied = ctx.applied && ctx.applied[r.victim];
  if (r.feat) {
    const f = r.feat;
    const natural = f.natural === 20 ? ' · natural 20: succeeds (ER-6)' : f.natural === 1 ? ' · natural 1: fails (ER-6)' : '';
    rows.push(['feat', `d20 ${list(f.dice)} → ${n(f.kept)} ${signed(n(f.total_modifier))} = ${span(STYLE.big, `${n(f.total)}`)} vs AC ${n(f.ac)}` +
      `${f.penalty ? ` (${esc.text(f.penalty.condition)} ${signed(-Math.abs(n(f.penalty.value)) || 0)})` : ''}${edgeNote(f)}${natural}` +
      `<br>${f.success ? span(STYLE.hit, 'success ✓') : span(STYLE.miss, 'failure ✗')} · ${span(STYLE.note, `P(success) ${pct(f.p_success, f.p_success_exact)}`)}`]);
  }
  if (r.rebuff_allowed === false) rows.push(['rebuff', span(STYLE.note, 'cannot be used against it')]);
  const re = r.reaction;
  if (re && re.rolled) {
    const lines = [];
    if (re.body_cost) {
      const c = re.body_cost;
      lines.push(`${esc.text(victim)} pays ${n(c.points)} Body to react (${esc.text(c.weapon)} ${esc.text(c.damage_type)} weapon` +
        `${c.resistance && c.resistance !== 'normal' ? `, ${esc.text(c.resistance)}` : ''})${bodyNote(applied, c.points)}`);
    }
    lines.push(`${esc.text(re.attribute)} competition (ER-19): ${sideLine(re.victim_side, ctx)}; ${sideLine(re.attacker_side, ctx)}`);
    lines.push((Array.isArray(re.rounds) ? re.rounds : []).map((x) => `${list(x.victim.dice)}→${n(x.victim.total)} vs ` +
      `${list(x.attacker.dice)}→${n(x.attacker.total)}${x.victim.total === x.attacker.total ? ' (tie)' : ''}`).join('<br>'));
    lines.push(span(STYLE.note, `P(${esc.text(victim)} wins) ${pct(re.p_victim_wins, re.p_victim_wins_exact)}`));
    rows.push(['reaction', lines.join('<br>')]);
  }
  if (r.blitz) {
    const b = r.blitz;
    rows.push(['shield-blitz', `d20 ${n(b.die)} ${esc.text(b.damage_type)}${b.resistance && b.resistance !== 'normal' ? ` (${esc.text(b.resistance)})` : ''}` +
      ` → ${span(STYLE.big, `${n(b.damage)}`)} damage${bodyNote(applied, b.damage)} · ${span(STYLE.note, `mean ${typeof b.mean === 'number' ? b.mean.toFixed(2) : '?'}`)}`]);
  }
  let outcome = `${span(STYLE.big, esc.text(r.outcome))}: ${esc.text(named(r.text, ctx))}`;
  if (r.mode !== 'blitz') outcome += `<br>${span(STYLE.note, `P(${r.mode === 'lock' ? 'locked' : 'disarmed'}) ${pct(r.p_effect, r.p_effect_exact)}`)}`;
  if (Number.isSafeInteger(r.free_cost_dice)) outcome += `<br>freeing the weapon costs its wielder ${r.free_cost_dice} attack dice`;
  rows.push(['outcome', outcome]);
  return rows;
}

// --- throw ---------------------------------------------------------------------------

/** A mean with its exact fraction: "3.20 (16/5)". */
function mean(value, exact) {
  return `${typeof value === 'number' ? value.toFixed(2) : '?'}${typeof exact === 'string' && /^\d+(\/\d+)?$/.test(exact) ? ` (${exact})` : ''}`;
}

function throwRows(raw, ctx) {
  const r = clean(raw);
  const rows = [];
  const target = nameOf(ctx, r.target);
  const applied = ctx.applied && ctx.applied[r.target];
  const p = r.thrown || {};
  const dice = Array.isArray(p.dice) ? p.dice : [];
  const hits = Array.isArray(p.hits) ? p.hits : [];
  const shown = dice.map((face, i) => (i === p.dropped
    ? `dropped ${span(STYLE.drop, `${n(face)}`)}`
    : span(hits[i] === true ? STYLE.hit : STYLE.miss, `${n(face)}`) + (hits[i] === true ? '✓' : '✗'))).join(' ');
  const skill = { none: 'no skill', ranged: 'ranged fighting', hurling: 'hurling' }[r.skill] || '?';
  const what = r.magic === true ? 'throwing magic' : esc.text(r.item);
  const added = p.agility_added ? ` (Agility ${signed(n(p.agility_added))} of it)` : '';
  const flags = [p.advantage ? `advantage${Array.isArray(p.advantage_from) && p.advantage_from.length ? ` (${p.advantage_from.map(esc.text).join(', ')})` : ''}` : '',
    p.disadvantage ? `disadvantage${Array.isArray(p.disadvantage_from) && p.disadvantage_from.length ? ` (${p.disadvantage_from.map(esc.text).join(', ')})` : ''}` : '']
    .filter(Boolean);
  rows.push([`${ctx.actor ? esc.text(ctx.actor) : 'the thrower'} → ${esc.text(target)}`,
    `${what} (${skill}): ${n(p.counted)} d20 ${signed(n(p.to_hit))}${added} vs AC ${n(p.ac)}${flags.length ? ` · ${flags.join(', ')}` : ''}` +
    `<br>dice: ${shown} · ${n(hits.filter((h) => h === true).length)} hit${hits.filter((h) => h === true).length === 1 ? '' : 's'} (any one is enough)`]);
  let outcome = r.hit === true ? span(STYLE.hit, 'hit ✓') : span(STYLE.miss, 'miss ✗');
  if (r.hit === true && r.damage) {
    const d = r.damage;
    const rolled = Array.isArray(d.dice) && d.dice.length ? `${d.dice.length}d${n(d.faces)} ${list(d.dice)}${d.bonus ? ` ${signed(n(d.bonus))}` : ''}` : `${n(d.bonus)}`;
    const resisted = r.resistance && r.resistance !== 'normal' ? ` (${esc.text(r.resistance)}: ${n(d.base)} → ${n(d.damage)})` : '';
    outcome += `: ${rolled} → ${span(STYLE.big, `${n(d.damage)}`)} ${esc.text(r.damage_type)} damage${resisted}${bodyNote(applied, d.damage)}`;
  }
  if (r.note) outcome += `<br>${span(STYLE.note, esc.text(r.note))}`;
  rows.push(['outcome', outcome]);
  rows.push(['odds', `P(hit) ${pct(r.p_hit, r.p_hit_exact)} · mean damage ${mean(r.mean_damage, r.mean_damage_exact)}`]);
  return rows;
}

// --- slam ----------------------------------------------------------------------------

function slamRows(raw, ctx) {
  const r = clean(raw);
  const rows = [];
  const victim = nameOf(ctx, r.victim);
  const d = r.victim_damage || {};
  const resisted = d.resistance && d.resistance !== 'normal' ? ` (${esc.text(d.resistance)}: ${n(d.base)} → ${n(d.damage)})` : '';
  const tall = r.tall === true ? `ten feet or taller (by its ${esc.text(r.tall_from)})` : `under ten feet (by its ${esc.text(r.tall_from)})`;
  rows.push([`${ctx.actor ? esc.text(ctx.actor) : 'the grappler'} → ${esc.text(victim)}`,
    `${n(r.size_difference)} sizes larger, ${tall} · Strength bonus ${signed(n(r.strength_bonus))}` +
    `<br>${esc.text(victim)} takes ${span(STYLE.big, `${n(d.damage)}`)} ${esc.text(d.damage_type)} damage${resisted}${bodyNote(ctx.applied && ctx.applied[r.victim], d.damage)}` +
    ` · freed, placed within ${n(r.placed_within_ft)} ft`]);
  const t = r.into;
  if (t && typeof t === 'object') {
    const dice = Array.isArray(t.dice) ? t.dice : [];
    const shown = dice.map((x) => (x && x.dropped === true
      ? `dropped ${span(STYLE.drop, `${n(x.face)}`)}`
      : span(x && x.hit === true ? STYLE.hit : STYLE.miss, `${n(x && x.face)}`) + (x && x.hit === true ? '✓' : '✗'))).join(' ');
    const size = t.size_bonus ? ` (size ${signed(n(t.size_bonus))})` : '';
    const flags = [t.advantage ? `advantage${Array.isArray(t.advantage_from) && t.advantage_from.length ? ` (${t.advantage_from.map(esc.text).join(', ')})` : ''}` : '',
      t.disadvantage ? `disadvantage${Array.isArray(t.disadvantage_from) && t.disadvantage_from.length ? ` (${t.disadvantage_from.map(esc.text).join(', ')})` : ''}` : '']
      .filter(Boolean);
    let line = `hurled into ${esc.text(nameOf(ctx, t.id))} (${n(t.distance)} ft): ${n(dice.length)} d20 ${signed(n(t.to_hit))}${size} vs AC ${n(t.ac)}` +
      `${flags.length ? ` · ${flags.join(', ')}` : ''}<br>dice: ${shown} · `;
    line += t.hit === true ? span(STYLE.hit, 'hit ✓') : span(STYLE.miss, 'miss ✗');
    if (t.hit === true) {
      const tres = t.resistance && t.resistance !== 'normal' ? ` (${esc.text(t.resistance)})` : '';
      line += `: ${span(STYLE.big, `${n(t.damage)}`)} blunt damage${tres}${bodyNote(ctx.applied && ctx.applied[t.id], t.damage)}`;
    }
    rows.push(['the hurl', line]);
    rows.push(['odds', `P(hit) ${pct(t.p_hit, t.p_hit_exact)}`]);
  }
  return rows;
}

/** The last row of every such card: the bridge rolled it; the seed; request and undo buttons. */
function footer(raw, ctx) {
  const seed = clean(raw.seed);
  return ['rolled by', `the bridge (fracas serve): this script has no offline ${esc.text(ctx.kind)} resolver` +
    `<br>seed ${esc.text(String(seed))}${raw.injected === true ? ' (dice given)' : ''} · request ${esc.text(ctx.id)} ` +
    `${esc.button('request', `!fracas request ${ctx.id}`)}${ctx.undo ? ` ${esc.button('undo', `!fracas undo ${ctx.undo}`)}` : ''}`];
}

module.exports = { saveRows, touchRows, dropRows, lockRows, throwRows, slamRows, footer, clean, pct };
