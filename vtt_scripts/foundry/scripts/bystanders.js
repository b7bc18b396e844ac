// ER-17 bystanders from the scene: the creatures a missed shot may stray into.
//
// ER-17 (the rules' text): "The GM will determine the hexes that could be potentially
// hit. This will be all adjacent hexes surrounding the original target, as well as the
// hex 10-feet in front and behind the target in direct line of sight. The GM will then
// count all the other potential targets, assigning them numbers 1 through 8, then add
// two additional 'empty' slots." The bridge takes them as a target's `nearby` list (slots
// 1-8 in the order given, at most 8: the same list `fracas attack --nearby` and the Roll20
// Mod's `--nearby` pass), and decides itself whether a strike is under the friendly-fire
// rule (a ranged strike with three-quarters cover, a blind attacker, an invisible target,
// or `friendly_fire: true`). This module only finds the creatures, from the tokens'
// places on the scene, on the GM's side: a player never names them.
//
// Geometry, in grid spaces (Foundry's TokenDocument x/y are the top-left corner in
// pixels, width/height in grid spaces; Scene#grid has size in pixels, distance and units
// per space, type 0 gridless, 1 square, 2-5 hexagonal):
// - square grids and gridless scenes: a token is adjacent when the gap between the two
//   footprints is under one space on both axes (touching, diagonals included);
// - hexagonal grids: when the centres are at most 1.25 spaces apart beyond the two
//   footprints' radii (neighbouring hexes are 1 space apart, the next ring √3);
// - in front and behind: the space whose centre lies 10 ft beyond the target's edge on
//   the line from the attacker's centre through the target's, both ways; a token
//   covering that point (its footprint on square grids, within half its size on hex
//   grids) is counted.
// Adjacent creatures come first, nearest first, then those in front and behind; ties go
// by token id, so the same scene always gives the same slots. A 9th and later creature
// is left out (ER-17 numbers 8).

/** ER-17: "assigning them numbers 1 through 8". */
export const MAX_BYSTANDERS = 8;

/** The distance of the spaces in front and behind the target (ER-17: "10-feet"). */
const FRONT_FEET = 10;

/**
 * A token's place on its scene: top-left in pixels, size in grid spaces.
 * @typedef {{x: number, y: number, width: number, height: number}} Place
 */
/**
 * A scene's grid: pixels per space, its type (0 gridless, 1 square, 2-5 hex), feet per space.
 * @typedef {{size: number, type: number, distance?: number, units?: string}} Grid
 */

/** @param {unknown} n */
const finite = (n) => typeof n === "number" && Number.isFinite(n);

/**
 * A place in grid spaces, or null when the token has none that can be measured.
 * @param {Place|undefined|null} place
 * @param {number} size
 */
function box(place, size) {
  if (!place || !finite(place.x) || !finite(place.y)) return null;
  const w = finite(place.width) && place.width > 0 ? place.width : 1;
  const h = finite(place.height) && place.height > 0 ? place.height : 1;
  const left = place.x / size;
  const top = place.y / size;
  return { left, top, right: left + w, bottom: top + h, cx: left + w / 2, cy: top + h / 2, w, h };
}

/** @typedef {NonNullable<ReturnType<typeof box>>} Box */

/** Grid spaces per 10 ft: 2 on a 5-ft grid; a grid in other units counts 2 spaces. */
function frontSpaces(/** @type {Grid} */ grid) {
  const feet = typeof grid.units === "string" && /^(ft|feet|foot|')\.?$/i.test(grid.units.trim());
  return feet && finite(grid.distance) && /** @type {number} */ (grid.distance) > 0 ? FRONT_FEET / /** @type {number} */ (grid.distance) : 2;
}

const isHex = (/** @type {Grid} */ grid) => grid.type >= 2 && grid.type <= 5;

/**
 * Whether `b` is adjacent to `a` (module comment: the rule per grid type).
 * @param {Box} a @param {Box} b @param {Grid} grid
 */
function adjacent(a, b, grid) {
  if (isHex(grid)) {
    const reach = (a.w + b.w) / 2 - 1 + 1.25;
    return Math.hypot(a.cx - b.cx, a.cy - b.cy) <= reach;
  }
  const gapX = Math.max(0, a.left - b.right, b.left - a.right);
  const gapY = Math.max(0, a.top - b.bottom, b.top - a.bottom);
  return gapX < 1 - 1e-9 && gapY < 1 - 1e-9;
}

/**
 * Whether `b` covers the point (px, py) in grid spaces.
 * @param {Box} b @param {number} px @param {number} py @param {Grid} grid
 */
function covers(b, px, py, grid) {
  if (isHex(grid)) return Math.hypot(b.cx - px, b.cy - py) <= Math.max(b.w, b.h) / 2;
  return px >= b.left && px < b.right && py >= b.top && py < b.bottom;
}

/**
 * The creatures near `target` that a stray from `attacker` may hit (ER-17), in slot order.
 * `others`: every token that may be one (the caller leaves out tokens without an actor
 * and the defeated); the target and the attacker themselves are never counted.
 * @template {{id: string, place?: Place|null}} V
 * @param {{target: V, attacker?: V|null, others: V[], grid: Grid}} args
 * @returns {V[]}
 */
export function bystandersOf({ target, attacker = null, others, grid }) {
  const size = finite(grid?.size) && grid.size > 0 ? grid.size : 100;
  const at = box(target.place, size);
  if (!at) return [];
  const from = attacker ? box(attacker.place, size) : null;
  /** @type {{view: V, rank: number, dist: number}[]} */
  const found = [];
  // The two points 10 ft beyond the target's edge on the line of fire (none without one).
  /** @type {[number, number][]} */
  const line = [];
  if (from) {
    const dx = at.cx - from.cx;
    const dy = at.cy - from.cy;
    const length = Math.hypot(dx, dy);
    if (length > 1e-9) {
      const reach = Math.max(at.w, at.h) / 2 - 0.5 + frontSpaces(grid);
      for (const sign of [1, -1]) line.push([at.cx + (sign * reach * dx) / length, at.cy + (sign * reach * dy) / length]);
    }
  }
  for (const view of others) {
    if (view.id === target.id || (attacker && view.id === attacker.id)) continue;
    const b = box(view.place, size);
    if (!b) continue;
    const dist = Math.hypot(b.cx - at.cx, b.cy - at.cy);
    if (adjacent(at, b, grid)) found.push({ view, rank: 0, dist });
    else if (line.some(([px, py]) => covers(b, px, py, grid))) found.push({ view, rank: 1, dist });
  }
  found.sort((p, q) => p.rank - q.rank || p.dist - q.dist || (p.view.id < q.view.id ? -1 : p.view.id > q.view.id ? 1 : 0));
  return found.slice(0, MAX_BYSTANDERS).map((f) => f.view);
}
