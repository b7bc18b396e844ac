'use strict';
// The card of a forecast (`fight.forecast`'s answer): each side's chance to win with its 95 %
// interval, draws, rounds, who is likely to fall, and, for a sweep, the followed side's chance
// at each count. The GM's card names everyone and has the buttons; the players' card leaves out
// GM-layer combatants, names a creature whose nameplate players do not see "an unnamed
// creature", and has no sweep, no buttons and no counts (a count would tell how many are hidden).
//
// The chart is drawn with what Roll20's chat shows from a Mod script: <div>, <span> and <table>
// with inline `style` (no <svg>, no <style> element, no classes, no images). Bars are spans with
// display:inline-block, a width in % and a background colour, as The Aaron's APIHeartBeat draws
// its latency graph in chat (Roll20/roll20-api-scripts APIHeartBeat/APIHeartBeat.js lines
// 236-271) and GoFish! its progress bars (GoFish!/1.0.0/go-fish.js lines 637-640); tables as
// HuntersMark sends them (HuntersMark/huntersmark.js lines 49-55). Every name goes through
// escape.text; every number of the answer (it came through chat) is checked before it is shown.

const esc = require('./escape');

// Side colours (solid: the estimate's lower bound; pale: the rest of its 95 % interval).
const SIDE = [['#2f6fb0', '#a9c6e6'], ['#b0402f', '#e6b0a6'], ['#3c8d3c', '#b2d9b2'], ['#8d6a1f', '#ddc999'],
  ['#6a3c8d', '#cdb4e0'], ['#1f7f7f', '#a6d9d9']];
const DOWN = '#8a1c1c';
const FLED = '#e0912f';
const TRACK = '#e4e4e4';
const NOTE = 'color:#666;font-size:90%';
const FALLING = 5; // the most likely to fall, shown
const HISTOGRAM = 30; // columns of the rounds chart at most (wider ranges are binned)

/** A rate 0..1 from the answer, or null. */
function rate(x) {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= 1 ? x : null;
}

/** A finite number from the answer, or null. */
function number(x) {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}

function pct(x) {
  const r = rate(x);
  if (r === null) return '?';
  if (r > 0 && r < 0.005) return '&lt;1%';
  if (r < 1 && r > 0.995) return '&gt;99%';
  return `${Math.round(r * 100)}%`;
}

/** An interval as "(59–65%)" (the percent sign once). */
function range(ci) {
  return `(${pct(ci[0]).replace(/%$/, '')}–${pct(ci[1])})`;
}

/** [lo, hi] of an answer's interval, or null. */
function interval(ci) {
  if (!Array.isArray(ci) || ci.length !== 2) return null;
  const lo = rate(ci[0]);
  const hi = rate(ci[1]);
  return lo !== null && hi !== null && lo <= hi ? [lo, hi] : null;
}

/** A whole count as 10,000 (the answer's counts), or '?'. */
function whole(n) {
  return Number.isSafeInteger(n) && n >= 0 ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : '?';
}

function decimal(x) {
  const n = number(x);
  return n === null ? '?' : String(Math.round(n * 10) / 10);
}

const width = (r) => `${Math.round(r * 1000) / 10}%`;

/** A bar: `parts` [[rate, colour]] laid end to end on a grey track. */
function bar(parts, height = 10) {
  const spans = parts.filter(([r]) => r > 0)
    .map(([r, colour]) => `<span style="display:inline-block;height:${height}px;width:${width(r)};background-color:${colour}"></span>`);
  return `<div style="width:100%;height:${height}px;background-color:${TRACK};font-size:0;line-height:0;white-space:nowrap;overflow:hidden">` +
    `${spans.join('')}</div>`;
}

/** A win-chance bar: solid up to the interval's low end, pale across the interval. */
function chanceBar(r, ci, colours) {
  if (r === null) return bar([]);
  if (!ci) return bar([[r, colours[0]]]);
  return bar([[ci[0], colours[0]], [ci[1] - ci[0], colours[1]]]);
}

/** The rounds histogram as columns: [[label, count]] in order, binned to at most HISTOGRAM. */
function roundColumns(histogram) {
  const points = [];
  for (const [k, v] of Object.entries(histogram && typeof histogram === 'object' ? histogram : {})) {
    if (/^\d{1,4}$/.test(k) && Number.isSafeInteger(v) && v >= 0) points.push([Number(k), v]);
  }
  if (!points.length) return null;
  points.sort((a, b) => a[0] - b[0]);
  const first = points[0][0];
  const last = points[points.length - 1][0];
  const size = Math.max(1, Math.ceil((last - first + 1) / HISTOGRAM));
  const columns = [];
  for (let start = first; start <= last; start += size) {
    const end = Math.min(last, start + size - 1);
    const n = points.filter(([r]) => r >= start && r <= end).reduce((sum, [, c]) => sum + c, 0);
    columns.push([start === end ? `${start}` : `${start}-${end}`, n]);
  }
  return { columns, first, last };
}

function histogramHtml(found) {
  const top = Math.max(1, ...found.columns.map(([, n]) => n));
  const each = 100 / found.columns.length;
  const spans = found.columns.map(([, n]) => {
    const h = n ? Math.max(1, Math.round((30 * n) / top)) : 0;
    return `<span style="display:inline-block;vertical-align:bottom;width:${Math.floor(each * 10) / 10}%;height:${h}px;` +
      `background-color:#777;border-left:1px solid #fff"></span>`;
  });
  return `<div style="height:30px;font-size:0;line-height:0;white-space:nowrap;overflow:hidden;border-bottom:1px solid #999">${spans.join('')}</div>`;
}

/**
 * Who is likely to fall: [{name, side, p, down, fled, taken}] by the chance to be down or fled,
 * then damage taken. A token's member id is its token id; the alike tokens a sweep made one
 * group (meta.vary) are its members "<token id> 1" … "<token id> N", shown as one row, each's mean.
 */
function falling(meta, result, players) {
  const out = [];
  const combatants = result.combatants && typeof result.combatants === 'object' ? result.combatants : {};
  const row = (stats, name, side) => {
    const down = stats.reduce((sum, c) => sum + (rate(c.down_rate) || 0), 0) / stats.length;
    const fled = stats.reduce((sum, c) => sum + (rate(c.fled_rate) || 0), 0) / stats.length;
    const taken = stats.map((c) => number(c.taken_mean));
    if (down + fled < 0.01 || stats.some((c) => rate(c.down_rate) === null)) return;
    out.push({ name, side, p: down + fled, down, fled, taken: taken.includes(null) ? null : taken.reduce((a, b) => a + b, 0) / taken.length });
  };
  const seen = (id) => (meta.seen && typeof meta.seen[id] === 'string' ? meta.seen[id] : null);
  for (const id of Object.keys(meta.names || {})) {
    if (!Object.prototype.hasOwnProperty.call(combatants, id)) continue;
    if (players && seen(id) === null) continue; // GM layer: not on the players' card
    row([combatants[id] || {}], players ? seen(id) : meta.names[id], meta.sideOf && meta.sideOf[id]);
  }
  const vary = meta.vary;
  if (vary && vary.count > 1) {
    const stats = [];
    for (let k = 1; k <= vary.count; k++) {
      const c = combatants[`${vary.token} ${k}`];
      if (c && typeof c === 'object') stats.push(c);
    }
    // Players know the group by name when they see its tokens' nameplates (sweepOf makes alike only tokens shown alike).
    const shown = seen(vary.token);
    const as = !players || shown === (meta.names && meta.names[vary.token]) ? vary.name : shown === null ? null : 'unnamed creatures';
    const name = as === null ? null : `${as} (×${vary.count}, each)`;
    if (stats.length === vary.count && name !== null) row(stats, name, vary.side);
  }
  out.sort((a, b) => b.p - a.p || (b.taken || 0) - (a.taken || 0));
  return out.slice(0, FALLING);
}

/** The sweep's rows (the followed side's chance at each count) and crossings. */
function sweepHtml(meta, sweep) {
  const vary = meta.vary;
  const points = Array.isArray(sweep.points) ? sweep.points : [];
  const lines = [];
  const rows = [];
  for (const point of points.slice(0, 60)) {
    if (!point || typeof point !== 'object' || !point.values || typeof point.values !== 'object') continue;
    const value = Object.values(point.values)[0];
    const side = point.sides && point.sides[vary.follow];
    if (!Number.isSafeInteger(value) || !side) continue;
    const r = rate(side.win_rate);
    const ci = interval(side.win_rate_ci95);
    const now = value === vary.count; // the count on the map now
    rows.push(`<tr><td style="width:2.2em;text-align:right;padding-right:4px">${now ? `<b>${value}</b>` : value}</td>` +
      `<td>${chanceBar(r, ci, SIDE[0])}</td><td style="width:3.2em;text-align:right">${now ? `<b>${pct(r)}</b>` : pct(r)}</td></tr>`);
  }
  lines.push(`<div style="margin-top:4px"><b>${esc.text(vary.follow)}</b>'s chance by the number of ` +
    `<b>${esc.text(vary.name)}</b> (${esc.text(vary.side)}; now ${Number.isSafeInteger(vary.count) ? vary.count : '?'}):</div>`);
  if (rows.length) lines.push(`<table style="width:100%;border-collapse:collapse;font-size:90%">${rows.join('')}</table>`);
  const target = rate(vary.target);
  const found = [];
  const crossings = Array.isArray(sweep.crossings) ? sweep.crossings
    : sweep.target && Array.isArray(sweep.target.rows) ? sweep.target.rows.flatMap((row) => (row && Array.isArray(row.crossings) ? row.crossings : []))
      : [];
  for (const c of crossings) {
    const at = c && number(c.at);
    if (at !== null) found.push(decimal(at));
  }
  const at = target === null ? 'the target' : pct(target);
  lines.push(`<div>${found.length ? `${at} at a count of about <b>${found.join('</b>, <b>')}</b>` : `${at}: not crossed at these counts`}</div>`);
  return lines.join('');
}

/**
 * The card, as HTML. `meta`: what the command kept (names, seen, sides, vary, how, left);
 * `result`: the bridge's answer; `players`: the players' card instead of the GM's.
 */
function forecastCard(meta, result, { id, players }) {
  const sides = (Array.isArray(meta.sides) ? meta.sides : Object.keys(result.sides || {}))
    .filter((side) => result.sides && result.sides[side] && typeof result.sides[side] === 'object');
  const runs = Number.isSafeInteger(result.completed) ? result.completed : result.runs;
  const out = [];
  out.push(`<div style="font-weight:bold;font-size:110%">Forecast: ${sides.map(esc.text).join(' vs ')}</div>`);
  out.push(`<div style="${NOTE}">${whole(runs)} fights${players ? '' : ` · ${esc.text(meta.how || '')}`}</div>`);
  out.push('<div style="margin-top:4px;font-weight:bold">chance to win</div>');
  sides.forEach((side, k) => {
    const s = result.sides[side];
    const r = rate(s.win_rate);
    const ci = interval(s.win_rate_ci95);
    out.push(`<div>${esc.text(side)} <b>${pct(r)}</b>${ci ? ` <span style="${NOTE}">${range(ci)}</span>` : ''}</div>`);
    out.push(chanceBar(r, ci, SIDE[k % SIDE.length]));
  });
  const draws = result.draws && typeof result.draws === 'object' ? result.draws : {};
  const drawCi = interval(draws.rate_ci95);
  out.push(`<div style="margin-top:3px">draws <b>${pct(draws.rate)}</b>${drawCi ? ` <span style="${NOTE}">${range(drawCi)}</span>` : ''}</div>`);
  const rounds = result.rounds && typeof result.rounds === 'object' ? result.rounds : {};
  out.push(`<div style="margin-top:4px">rounds: <b>${decimal(rounds.mean)}</b> on average ` +
    `<span style="${NOTE}">(median ${decimal(rounds.median)}, ${decimal(rounds.min)}–${decimal(rounds.max)})</span></div>`);
  const histogram = roundColumns(rounds.histogram);
  if (histogram) {
    out.push(histogramHtml(histogram));
    out.push(`<div style="${NOTE}"><span>round ${histogram.first}</span>` +
      `<span style="float:right">${histogram.last}</span></div>`);
  }
  const fall = falling(meta, result, players);
  if (fall.length) {
    // A row each: the name over a bar (down, then fled), the chance to be down (fled), the mean damage taken.
    const cell = 'text-align:right;vertical-align:top;padding-left:4px;white-space:nowrap';
    const head = `<tr><td><b>likely to fall</b></td><td style="${cell};${NOTE}">down</td><td style="${cell};${NOTE}">takes</td></tr>`;
    const body = fall.map((f) => {
      const { name, side } = f;
      return `<tr><td>${esc.text(name)}${side ? ` <span style="${NOTE}">(${esc.text(side)})</span>` : ''}` +
        `${bar([[f.down, DOWN], [f.fled, FLED]], 5)}</td>` +
        `<td style="${cell}"><b>${pct(f.down)}</b>${f.fled ? `<br>${pct(f.fled)} fled` : ''}</td>` +
        `<td style="${cell}">${f.taken !== null ? decimal(f.taken) : '?'}</td></tr>`;
    });
    out.push(`<table style="width:100%;border-collapse:collapse;margin-top:4px;font-size:100%">${head}${body.join('')}</table>`);
  }
  if (!players && meta.vary && result.sweep && typeof result.sweep === 'object') out.push(sweepHtml(meta, result.sweep));
  if (result.interrupted === true || (Number.isSafeInteger(result.completed) && Number.isSafeInteger(result.runs) &&
    result.completed < result.runs)) {
    out.push(`<div style="color:#a12a2a">stopped after ${whole(result.completed)} of ${whole(result.runs)} fights</div>`);
  }
  if (!players) {
    if (meta.left && meta.left.length) out.push(`<div style="${NOTE}">left out, already down: ${meta.left.map(esc.text).join(', ')}</div>`);
    const hidden = (meta.hidden || []).length;
    if (hidden) out.push(`<div style="${NOTE}">${hidden} on the GM layer: never on the players' card</div>`);
    const seed = Number.isSafeInteger(result.seed) || typeof result.seed === 'bigint' || /^\d{1,20}$/.test(result.seed) ? String(result.seed) : '?';
    out.push(`<div style="${NOTE}">seed ${seed} · ${esc.text(id)}</div>`);
    out.push(`<div>${[
      esc.button('vary', `!fracas forecast --from ${id} --vary @{target|Whose group count to vary?|token_id}`),
      esc.button('share', `!fracas forecast --share ${id}`),
      esc.button('replay', `!fracas replay ${id}`),
    ].join(' ')}</div>`);
  }
  return `<div style="border:1px solid #333;background-color:#fff;padding:4px">${out.join('')}</div>`;
}

module.exports = { forecastCard };
