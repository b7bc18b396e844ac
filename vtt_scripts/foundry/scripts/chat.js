import { t } from "./i18n.js";
import { MOB_DICE_ATTACKS } from "./request.js";
import { ownClient, rulesetClient, rulesetLayoutStrikeLine, rulesetTitle } from "./rulesets.js";
import { servedStrikeLine } from "./served.js";
import { logText, word, words } from "./words.js";

// Engine results → chat: a model of the card (plain data, testable), the card's HTML,
// and the dice as "roll specs" that the edge turns into Foundry Die terms with the
// engine's faces filled in (so Foundry's dice tooltips and Dice So Nice show the
// dice that were actually rolled, hit or miss).

// Text from the world (token and actor names, item names) goes into a card escaped, and
// made unable to become a roll, a link or an embed. Escaping alone is not enough: v13's
// ChatMessage#renderHTML runs TextEditor.enrichHTML, which walks the card's text nodes
// and matches its patterns ([[…]] inline rolls, @UUID[…]{…} content links, @Embed[…],
// &Reference[…]) against each node's decoded textContent (foundry.js
// TextEditor#_getTextNodes and #_replaceTextContent), so "&#91;&#91;" is "[[" again by
// then. So every character a pattern starts or closes with is followed by an empty <wbr>
// element: the text reads the same and copies the same, but no single text node holds
// "[[" or "@UUID[" any more, and no pattern can match across the break.
/**
 * An answer of the bridge: JSON as docs/ENGINE.md §7 describes it (the bridge's schema
 * checks it before it leaves); the module reads it field by field. No TS type exists.
 * @typedef {Record<string, any>} EngineResult
 */
/** @typedef {Record<string, any>} CardModel  a card's plain data, as the *CardModel functions make it */
/** @typedef {Record<string, string>} Names  display names by token or combatant id */

/** @type {Record<string, string>} */
const BREAKERS = { "[": "&#91;", "]": "&#93;", "@": "&#64;", "{": "&#123;", "}": "&#125;", "&": "&amp;" };

/** Escaped for an attribute value (the enricher never reads attributes). */
export const attr = (/** @type {unknown} */ value) => String(value)
  .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  .replace(/"/g, "&quot;").replace(/'/g, "&#39;");

/** Escaped for text, with enrichment patterns broken apart. */
export const esc = (/** @type {unknown} */ value) => String(value).replace(/[&<>"'[\]@{}]/g, (c) => {
  if (c in BREAKERS) return `${BREAKERS[c]}<wbr>`;
  return /** @type {Record<string, string>} */ ({ "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c];
});

/** "1 hit", "3 hits" in the user's language (FRACAS.Count.<Word>.One / .Other). */
const plural = (/** @type {number} */ n, /** @type {string} */ word) => t(`FRACAS.Count.${word}.${n === 1 ? "One" : "Other"}`, { n });
const signed = (/** @type {number} */ n) => (n >= 0 ? `+${n}` : `${n}`);

/**
 * The card model of an attack result (docs/ENGINE.md §7).
 * @param {EngineResult} result  the engine result
 * @param {{attackerName: string, names: Names, requestId: string}} ctx
 */
export function attackCardModel(result, { attackerName, names, requestId }) {
  const nameOf = (/** @type {string} */ id) => names[id] ?? id;
  const strikes = result.strikes.map((/** @type {Record<string, any>} */ s, /** @type {number} */ i) => ({
    n: i + 1,
    target: s.target,
    targetName: nameOf(s.target),
    method: s.method,
    style: s.style,
    damageType: s.damage_type,
    toHit: s.to_hit,
    ac: s.ac,
    advantage: !!s.advantage,
    disadvantage: !!s.disadvantage,
    sneak: s.sneak ?? false,
    critRange: s.crit_range ?? null,
    dice: s.dice.map((/** @type {Record<string, any>} */ d) => ({ face: d.face, total: d.total, hit: !!d.hit,
      source: d.source })),
    discarded: s.discarded ?? null,
    chain: (s.crit_chain ?? []).map((/** @type {Record<string, any>} */ c) => ({ face: c.face, total: c.total, hit: !!c.hit, damage: c.damage })),
    hits: s.hits,
    crit: !!s.crit,
    base: s.base,
    modifier: s.modifier ?? null,
    resistance: s.resistance ?? "normal",
    damage: s.damage,
    undodgeable: s.undodgeable ?? 0,
    defenseDc: s.defense_dc ?? null,
    stray: s.stray ? { ...s.stray, creatureName: s.stray.creature === null ? null : nameOf(s.stray.creature) } : null,
  }));
  const targets = Object.entries(result.targets).map(([id, t]) => ({
    id,
    name: nameOf(id),
    damage: t.damage,
    byType: { ...(t.by_type ?? {}) },
    undodgeable: t.undodgeable ?? 0,
    shockSaveDc: t.shock_save_dc ?? null,
    shockSave: t.shock_save ? { ...t.shock_save } : null,
    grappleRelease: t.grapple_release ? { ...t.grapple_release } : null,
  }));
  return {
    kind: "attack",
    flee: result.flee ? { ...result.flee } : null,
    defenseRolls: !!result.defense_rolls,
    title: t("FRACAS.Card.Attacks", { name: attackerName }),
    attackerName,
    requestId,
    seed: String(result.seed),
    backend: result.backend ?? null,
    injected: !!result.injected,
    strikes,
    targets,
    totalDamage: result.total_damage,
  };
}

/**
 * A line saying what a strike did, e.g. "2 hits · crit (chain of 2) · 5 edged damage".
 * @param {Record<string, any>} s  a strike of an attack card model
 */
export function strikeOutcome(s) {
  if (!s.hits) return t("FRACAS.Card.Miss");
  const parts = [plural(s.hits, "Hit")];
  if (s.crit) parts.push(s.chain.length > 1 ? t("FRACAS.Card.CritChain", { n: s.chain.length }) : t("FRACAS.Card.Crit"));
  let dmg = t("FRACAS.Card.TypedDamage", { damage: s.damage, type: word("DamageType", s.damageType) });
  const notes = [];
  if (s.modifier !== null && s.modifier !== 0) notes.push(t("FRACAS.Card.Modifier", { value: signed(s.modifier) }));
  if (s.resistance !== "normal") {
    notes.push(s.resistance === "half" ? t("FRACAS.Card.Resisted") : s.resistance === "double" ? t("FRACAS.Card.Vulnerable") : word("Resistance", s.resistance));
  }
  if (s.undodgeable) notes.push(t("FRACAS.Card.Undodgeable", { n: s.undodgeable }));
  if (notes.length) dmg += ` (${notes.join(", ")})`;
  parts.push(dmg);
  return parts.join(" · ");
}

/**
 * @param {number} faces
 * @param {number} face
 * @param {{hit?: boolean, discarded?: boolean, title: string}} how
 */
function dieItem(faces, face, { hit, discarded, title }) {
  const cls = ["roll", "die", `d${faces}`];
  if (discarded) cls.push("discarded");
  else if (hit === true) cls.push("success");
  else if (hit === false) cls.push("failure");
  if (face === faces) cls.push("max");
  if (face === 1) cls.push("min");
  return `<li class="${cls.join(" ")}" title="${attr(title)}">${esc(face)}</li>`;
}

/**
 * ER-17: where a missed shot under friendly fire went.
 * @param {Record<string, any>|null} st  a strike's stray (ER-17)
 */
function strayHtml(st) {
  if (!st) return "";
  if (st.creature === null || st.ac === null) {
    const why = st.creature === null ? t("FRACAS.Card.StrayEmpty") : t("FRACAS.Card.StrayCover", { name: st.creatureName });
    return `<div class="fracas-stray">${esc(t("FRACAS.Card.Stray", { roll: st.roll }))} · ${esc(why)}</div>`;
  }
  const dice = st.dice.map((/** @type {Record<string, any>} */ d) => dieItem(20, d.shifted, {
    hit: d.hit, title: t("FRACAS.Card.StrayDie", { face: d.face, shifted: d.shifted, total: d.total, ac: st.ac, outcome: hitWord(d.hit) }),
  }));
  const outcome = st.hits ? t("FRACAS.Card.StrayHits", { damage: st.damage, name: st.creatureName }) : t("FRACAS.Card.StrayMisses", { name: st.creatureName });
  return `<div class="fracas-stray"><span class="fracas-label">${esc(t("FRACAS.Card.Stray", { roll: st.roll }))} → ${esc(st.creatureName)}, `
    + `${esc(t("FRACAS.Card.StrayFaces", { ac: st.ac }))}</span><ol class="dice-rolls">${dice.join("")}</ol>`
    + `<div class="fracas-outcome">${esc(outcome)}</div></div>`;
}

/** "hit" or "miss" in the user's language. */
const hitWord = (/** @type {boolean} */ hit) => t(hit ? "FRACAS.Card.Hit" : "FRACAS.Card.Miss");

/** @param {Record<string, any>} s  a strike of an attack card model */
function strikeHtml(s) {
  const tags = [word("Method", s.method), word("Style", s.style), word("DamageType", s.damageType)];
  if (s.advantage) tags.push(t("FRACAS.Dialog.AdvantageYes"));
  if (s.disadvantage) tags.push(t("FRACAS.Dialog.Disadvantage"));
  if (s.sneak) tags.push(s.sneak === "advantage-only" ? t("FRACAS.Card.SneakAdvantageOnly") : t("FRACAS.Card.Sneak"));
  const defense = s.defenseDc !== null;
  const dice = s.dice.map((/** @type {Record<string, any>} */ d) => dieItem(20, d.face, {
    hit: defense ? !d.hit : d.hit,
    title: defense
      ? t("FRACAS.Card.DefenseDie", { face: d.face, ac: s.ac, total: d.total, dc: s.defenseDc, outcome: d.hit ? t("FRACAS.Card.Hit") : t("FRACAS.Card.Avoided") })
      : t("FRACAS.Card.PoolDie", { source: word("Source", d.source), face: d.face, total: d.total, ac: s.ac, outcome: hitWord(d.hit) }),
  }));
  if (s.discarded !== null) {
    dice.push(dieItem(20, s.discarded, { discarded: true, title: t("FRACAS.Card.Discarded", { face: s.discarded }) }));
  }
  let chain = "";
  if (s.chain.length) {
    const items = [];
    for (const c of s.chain) {
      items.push(dieItem(20, c.face, { hit: c.hit, title: t("FRACAS.Card.CritDie", { face: c.face, total: c.total, outcome: hitWord(c.hit) }) }));
      if (c.hit) items.push(dieItem(3, c.damage, { title: t("FRACAS.Card.CritDamageDie", { damage: c.damage }) }));
    }
    chain = `<div class="fracas-chain"><span class="fracas-label">${esc(t("FRACAS.Card.CritChainLabel"))}</span><ol class="dice-rolls">${items.join("")}</ol></div>`;
  }
  return `<section class="fracas-strike" data-strike="${s.n}">`
    + `<div class="fracas-strike-head"><strong>${esc(s.targetName)}</strong> `
    + `<span class="fracas-tags">${esc(tags.join(" · "))} · `
    + esc(defense ? t("FRACAS.Card.DefenseRoll", { ac: s.ac, dc: s.defenseDc }) : t("FRACAS.Card.VsAc", { toHit: signed(s.toHit), ac: s.ac }))
    + "</span></div>"
    + `<ol class="dice-rolls">${dice.join("")}</ol>${chain}`
    + `<div class="fracas-outcome">${esc(strikeOutcome(s))}</div>${strayHtml(s.stray)}</section>`;
}

/**
 * ER-21: a grappler's Strength feats after taking body damage, one per strike that dealt it;
 * at advantage or disadvantage (ER-12) both d20 are shown, and a feat a condition fails
 * outright (ER-14) says so.
 * @param {Record<string, any>} x  a target of an attack card model
 */
function releaseHtml(x) {
  const r = x.grappleRelease;
  if (!r) return "";
  /** @type {string | null} */
  const failed = r.situation?.automatic_failure ?? null;
  /** @type {Record<string, any>[]} */
  const feats = r.feats ?? [r];
  return feats.map((f) => {
    let rolled = "";
    const verdict = t(f.held ? "FRACAS.Card.KeepsHold" : "FRACAS.Card.LetsGo");
    if (f.roll !== null) rolled = `: ${esc((f.dice ?? [f.roll]).join("/"))} ${esc(signed(f.modifier))} = ${esc(f.total)}, ${esc(verdict)}`;
    else if (failed) rolled = `: ${esc(t("FRACAS.Card.AutoFail", { reason: word("Condition", failed) }))}, ${esc(t("FRACAS.Card.LetsGo"))}`;
    return `<div class="fracas-grapple">${esc(t("FRACAS.Card.Grappling", { dc: f.dc }))}${rolled}</div>`;
  }).join("");
}

/**
 * ER-13: the shock save; both d20 at advantage or disadvantage (ER-12), or the condition
 * that fails it outright (ER-14).
 * @param {Record<string, any>} x  a target of an attack card model
 */
function shockHtml(x) {
  if (x.shockSaveDc === null) return "";
  const save = x.shockSave;
  if (!save) return `<div class="fracas-shock">${esc(t("FRACAS.Card.ShockDc", { dc: x.shockSaveDc }))}</div>`;
  const verdict = save.passed ? t("FRACAS.Card.Passed") : t("FRACAS.Card.Incapacitated", { actions: plural(save.incapacitated_actions, "Action") });
  /** @type {string | null} */
  const failed = save.situation?.automatic_failure ?? null;
  if (failed) return `<div class="fracas-shock">${esc(t("FRACAS.Card.ShockAutoFail", { dc: save.dc, reason: word("Condition", failed), verdict }))}</div>`;
  const roll = (save.dice ?? [save.roll]).join("/");
  return `<div class="fracas-shock">${esc(t("FRACAS.Card.ShockSave", { dc: save.dc, roll, total: save.total, verdict }))}</div>`;
}

/**
 * A card's footer: the seed, given dice, the backend, and Undo when `undoable`.
 * @param {CardModel} model  (seed, injected, backend: an attack's model, or a kind's own)
 * @param {boolean} undoable
 */
function footerHtml(model, undoable) {
  const bits = [esc(t("FRACAS.Card.Seed", { seed: model.seed }))];
  if (model.injected) bits.push(esc(t("FRACAS.Card.DiceGiven")));
  if (model.backend) bits.push(esc(model.backend));
  const undo = undoable
    ? `<button type="button" class="fracas-undo" data-fracas-action="undo">${esc(t("FRACAS.Card.Undo"))}</button>`
    : "";
  return `<footer class="fracas-footer"><span class="fracas-seed">${bits.join(" · ")}</span>`
    + `<span class="fracas-applied"></span>${undo}</footer>`;
}

/**
 * The chat card HTML of an attack. `undoable`: damage was applied, offer Undo.
 * @param {CardModel} model @param {{undoable?: boolean}} [options]
 */
export function renderAttackCard(model, { undoable = false } = {}) {
  const rows = model.targets.map((/** @type {Record<string, any>} */ x) => {
    const types = Object.entries(x.byType).filter(([, v]) => v).map(([k, v]) => `${v} ${word("DamageType", k)}`).join(", ");
    const extra = x.undodgeable ? ` · ${t("FRACAS.Card.Undodgeable", { n: x.undodgeable })}` : "";
    return `<li class="fracas-target" data-target="${attr(x.id)}"><strong>${esc(x.name)}</strong>: `
      + `<span class="fracas-damage">${esc(x.damage)}</span> ${esc(t("FRACAS.Card.DamageWord"))}${types ? ` (${esc(types)})` : ""}${esc(extra)}`
      + `<span class="fracas-target-actions" data-target="${attr(x.id)}"></span>`
      + `${shockHtml(x)}${releaseHtml(x)}</li>`;
  });
  const notes = [];
  if (model.flee) notes.push(t("FRACAS.Card.FleeNote", { moved: model.flee.moved, speed: model.flee.speed, dice: model.flee.dice }));
  if (model.defenseRolls) notes.push(t("FRACAS.Card.DefenseRollsNote"));
  return `<div class="fracas-card fracas-attack" data-request-id="${attr(model.requestId)}">`
    + `<header class="fracas-title">${esc(model.title)}</header>`
    + notes.map((n) => `<div class="fracas-note">${esc(n)}</div>`).join("")
    + model.strikes.map(strikeHtml).join("")
    + `<ul class="fracas-targets">${rows.join("")}</ul>`
    + footerHtml(model, undoable)
    + "</div>";
}

/**
 * The dice of an attack as roll specs: one roll per strike (pool d20s with the
 * discarded die inactive, crit d20s, their d3s), one per rolled shock save.
 * @returns {{label: string, groups: {faces: number, flavor: string, results: object[]}[]}[]}
 * @param {CardModel} model
 */
export function attackRollSpecs(model) {
  const specs = [];
  for (const s of model.strikes) {
    const pool = s.dice.map((/** @type {Record<string, any>} */ d) => ({ result: d.face, active: true, success: d.hit, failure: !d.hit }));
    if (s.discarded !== null) pool.push({ result: s.discarded, active: false, discarded: true });
    const groups = [{ faces: 20, flavor: t("FRACAS.Dice.Pool"), results: pool }];
    if (s.chain.length) {
      groups.push({ faces: 20, flavor: t("FRACAS.Dice.Crit"), results: s.chain.map((/** @type {Record<string, any>} */ c) => ({ result: c.face, active: true, success: c.hit, failure: !c.hit })) });
      const d3 = s.chain.filter((/** @type {Record<string, any>} */ c) => c.hit).map((/** @type {Record<string, any>} */ c) => ({ result: c.damage, active: true }));
      if (d3.length) groups.push({ faces: 3, flavor: t("FRACAS.Dice.CritDamage"), results: d3 });
    }
    if (s.stray) {
      groups.push({ faces: 10, flavor: t("FRACAS.Dice.StraySlot"), results: [{ result: s.stray.roll, active: true }] });
      if (s.stray.crit_chain.length) {
        groups.push({ faces: 20, flavor: t("FRACAS.Dice.StrayCrit"), results: s.stray.crit_chain.map((/** @type {Record<string, any>} */ c) => ({ result: c.face, active: true, success: c.hit, failure: !c.hit })) });
        const d3 = s.stray.crit_chain.filter((/** @type {Record<string, any>} */ c) => c.hit).map((/** @type {Record<string, any>} */ c) => ({ result: c.damage, active: true }));
        if (d3.length) groups.push({ faces: 3, flavor: t("FRACAS.Dice.StrayCritDamage"), results: d3 });
      }
    }
    specs.push({ label: `strike ${s.n} at ${s.targetName}`, groups, total: s.damage });
  }
  for (const x of model.targets) {
    const release = x.grappleRelease;
    /** @type {Record<string, any>[]} */
    const feats = release ? (release.feats ?? [release]) : [];
    for (const feat of feats) {
      if (feat.roll === null) continue;
      // ER-12: at advantage or disadvantage two d20, the kept one active.
      /** @type {number[]} */
      const faces = feat.dice ?? [feat.roll];
      const kept = faces.indexOf(feat.roll);
      specs.push({ label: `grapple release of ${x.name}`, groups: [{ faces: 20, flavor: t("FRACAS.Dice.StrengthFeat"),
        results: faces.map((result, i) => ({ result, active: i === kept, success: i === kept && !!feat.held,
          failure: i === kept && !feat.held })) }] });
    }
  }
  for (const x of model.targets) {
    const save = x.shockSave;
    if (!save) continue;
    // ER-14: a save failed outright rolls no die; ER-12: two d20, the kept one active.
    /** @type {number[]} */
    const faces = save.roll === null ? [] : (save.dice ?? [save.roll]);
    const kept = faces.indexOf(save.roll);
    const groups = faces.length ? [{ faces: 20, flavor: t("FRACAS.Dice.ShockSave"), results: faces.map((result, i) => ({
      result, active: i === kept, success: i === kept && !!save.passed, failure: i === kept && !save.passed })) }] : [];
    if (!save.passed && save.incapacitated_actions) {
      groups.push({ faces: 3, flavor: t("FRACAS.Dice.ActionsLost"), results: [{ result: save.incapacitated_actions, active: true, success: false, failure: false }] });
    }
    specs.push({ label: `shock save of ${x.name}`, groups, total: save.total });
  }
  return specs;
}

/**
 * Initiative (ER-18) card model from `initiative.roll`'s result.
 * @param {EngineResult} result
 * @param {{names: Names, requestId: string}} ctx
 */
export function initiativeCardModel(result, { names, requestId }) {
  return {
    kind: "initiative",
    title: t("FRACAS.Card.Initiative"),
    requestId,
    seed: String(result.seed),
    injected: !!result.injected,
    // Its contract's die (a plug-in's served hints: DP-2's d6), else ER-18's d10.
    faces: rulesetClient(result.ruleset).initiative_die ?? 10,
    order: result.order.map((/** @type {Record<string, any>} */ e, /** @type {number} */ i) => ({
      // A result without `modifier` (a plug-in's: DP-2's id, roll, total) has total - roll.
      rank: i + 1, id: e.id, name: names[e.id] ?? e.id, roll: e.roll, modifier: e.modifier ?? e.total - e.roll,
      total: e.total, tiebreaks: [...(e.tiebreaks ?? [])],
    })),
  };
}

/**
 * Tracker values keeping the engine's order: tied totals get decimals from their
 * roll-offs (7.2, 7.1, 7.0), since Foundry would otherwise order ties by name.
 * @param {{id: string, total: number}[]} order
 */
export function initiativeValues(order) {
  const values = [];
  let i = 0;
  while (i < order.length) {
    let j = i;
    while (j < order.length && order[j].total === order[i].total) j++;
    const m = j - i;
    const digits = m > 1 ? String(m - 1).length : 0;
    const scale = 10 ** digits;
    for (let k = i; k < j; k++) {
      const value = m > 1 ? (order[k].total * scale + (m - 1 - (k - i))) / scale : order[k].total;
      values.push({ id: order[k].id, value });
    }
    i = j;
  }
  return values;
}

/** @param {CardModel} model */
export function renderInitiativeCard(model) {
  const rows = model.order.map((/** @type {Record<string, any>} */ e) => {
    const ties = e.tiebreaks.length
      ? ` <span class="fracas-tiebreak">${esc(t("FRACAS.Card.RollOff"))} ${e.tiebreaks.map((/** @type {number} */ f) => dieItem(20, f, { title: t("FRACAS.Card.RollOffDie", { face: f }) })).join("")}</span>`
      : "";
    return `<li class="fracas-init" data-combatant="${attr(e.id)}"><span class="fracas-rank">${e.rank}.</span> `
      + `<strong>${esc(e.name)}</strong> <ol class="dice-rolls fracas-inline">${dieItem(model.faces, e.roll, { title: `d${model.faces}: ${e.roll}` })}</ol> `
      + `${esc(signed(e.modifier))} = <span class="fracas-total">${esc(e.total)}</span>${ties}</li>`;
  });
  return `<div class="fracas-card fracas-initiative" data-request-id="${attr(model.requestId)}">`
    + `<header class="fracas-title">${esc(model.title)}</header><ol class="fracas-order">${rows.join("")}</ol>`
    + `<footer class="fracas-footer"><span class="fracas-seed">${esc(t("FRACAS.Card.Seed", { seed: model.seed }))}${model.injected ? ` · ${esc(t("FRACAS.Card.DiceGiven"))}` : ""}</span></footer></div>`;
}

/**
 * Initiative dice: one die per combatant (a d10, or its contract's initiative_die), then the
 * roll-off d20s.
 * @param {CardModel} model
 */
export function initiativeRollSpecs(model) {
  const groups = [{ faces: model.faces, flavor: t("FRACAS.Dice.Initiative"), results: model.order.map((/** @type {Record<string, any>} */ e) => ({ result: e.roll, active: true })) }];
  const ties = model.order.flatMap((/** @type {Record<string, any>} */ e) => e.tiebreaks.map((/** @type {number} */ f) => ({ result: f, active: true })));
  if (ties.length) groups.push({ faces: 20, flavor: t("FRACAS.Dice.RollOff"), results: ties });
  return [{ label: "initiative", groups }];
}

/** A count from an answer: a whole number of 0 or more, else 0 (a ruleset whose groups lack it). */
const count = (/** @type {unknown} */ value) => (Number.isSafeInteger(value) && Number(value) > 0 ? Number(value) : 0);

/**
 * What bulk did not roll for one group (the notes under its row), when not 0: the ER-13
 * shock saves due and the ER-17 strays of shots that missed.
 * @param {Record<string, any>} g  a group of mobCardModel
 * @returns {string[]}
 */
function leftOut(g) {
  const notes = [];
  if (g.shockChecks) notes.push(t("FRACAS.Card.ShockNotRolled", { saves: plural(g.shockChecks, "ShockSave") }));
  if (g.straysOmitted) notes.push(t("FRACAS.Card.StraysOmitted", { shots: plural(g.straysOmitted, "MissedShot") }));
  return notes;
}

/**
 * The compact card model of a bulk (mob) summary.
 * @param {EngineResult} result
 * @param {{names: Names, profileNames: Names, requestId: string}} ctx
 */
export function mobCardModel(result, { names, profileNames, requestId }) {
  const targets = Object.entries(result.targets).map(([id, t]) => ({
    id, name: names[id] ?? id, damage: t.damage, byType: { ...(t.by_type ?? {}) },
    attacks: t.attacks, attacksHit: t.attacks_hit, crits: t.crits ?? 0,
    longestChain: t.longest_chain ?? 0, undodgeable: t.undodgeable ?? 0,
  }));
  const groups = (result.groups ?? []).map((/** @type {Record<string, any>} */ g) => ({
    profile: g.profile,
    profileName: profileNames[g.profile] ?? g.profile,
    targetName: Array.isArray(g.target) ? g.target.map((/** @type {string} */ id) => names[id] ?? id).join(", ") : names[g.target] ?? g.target,
    count: g.count,
    attacksHit: g.attacks_hit,
    hitRate: g.hit_rate,
    damage: g.damage,
    // What bulk left out (Enchanted Realms' BulkGroup): ER-13 shock saves due, ER-17 strays of missed shots.
    shockChecks: count(g.shock_checks),
    straysOmitted: count(g.strays_omitted),
  }));
  const total = result.attacks_total ?? groups.reduce((/** @type {number} */ n, /** @type {Record<string, any>} */ g) => n + g.count, 0);
  // Which dice the card carries: every attack's up to MOB_DICE_SHOWN, the first ones of a
  // larger mob, none when the bridge answered a summary (a mob too large for its dice).
  const listed = result.detail === "dice" && Array.isArray(result.attacks) ? result.attacks.length : 0;
  let diceNote = null;
  if (!listed) diceNote = t("FRACAS.Card.MobNoDice", { attacks: total, most: MOB_DICE_ATTACKS });
  else if (listed > MOB_DICE_SHOWN) diceNote = t("FRACAS.Card.MobDiceFirst", { shown: MOB_DICE_SHOWN, attacks: total });
  return {
    kind: "mob",
    title: t("FRACAS.Card.Mob", { attacks: plural(total, "Attack") }),
    diceNote,
    requestId,
    seed: String(result.seed),
    backend: result.backend ?? null,
    injected: false,
    targets,
    groups,
    totalDamage: result.total_damage,
  };
}

/** @param {CardModel} model @param {{undoable?: boolean}} [options] */
export function renderMobCard(model, { undoable = false } = {}) {
  const groups = model.groups.map((/** @type {Record<string, any>} */ g) => {
    const notes = leftOut(g);
    return `<tr><td>${esc(g.profileName)} → ${esc(g.targetName)}</td>`
      + `<td>${esc(g.count)}</td><td>${esc(g.attacksHit)}</td><td>${esc(Math.round(g.hitRate * 100))}%</td><td>${esc(g.damage)}</td></tr>`
      + (notes.length ? `<tr class="fracas-left-out"><td colspan="5">${esc(notes.join(" · "))}</td></tr>` : "");
  });
  const targets = model.targets.map((/** @type {Record<string, any>} */ x) => {
    const extra = [t("FRACAS.Card.HitsOf", { hits: plural(x.attacksHit, "Hit"), attacks: x.attacks })];
    if (x.crits) extra.push(plural(x.crits, "Crit"));
    if (x.longestChain > 1) extra.push(t("FRACAS.Card.LongestChain", { n: x.longestChain }));
    if (x.undodgeable) extra.push(t("FRACAS.Card.Undodgeable", { n: x.undodgeable }));
    return `<li class="fracas-target" data-target="${attr(x.id)}"><strong>${esc(x.name)}</strong>: `
      + `<span class="fracas-damage">${esc(x.damage)}</span> ${esc(t("FRACAS.Card.DamageWord"))} (${esc(extra.join(", "))})`
      + `<span class="fracas-target-actions" data-target="${attr(x.id)}"></span></li>`;
  });
  const skipped = (model.skipped?.length
    ? `<div class="fracas-note">${esc(t("FRACAS.Card.SkippedDefeated", { names: model.skipped.join(", ") }))}</div>` : "")
    + (model.diceNote ? `<div class="fracas-note fracas-dice-note">${esc(model.diceNote)}</div>` : "");
  return `<div class="fracas-card fracas-mob" data-request-id="${attr(model.requestId)}">`
    + `<header class="fracas-title">${esc(model.title)}</header>${skipped}`
    + `<table class="fracas-groups"><thead><tr>${["Attackers", "Attacks", "Hit", "Rate", "Damage"].map((h) => `<th>${esc(t(`FRACAS.Card.Column.${h}`))}</th>`).join("")}</tr></thead>`
    + `<tbody>${groups.join("")}</tbody></table>`
    + `<ul class="fracas-targets">${targets.join("")}</ul>`
    + footerHtml(model, undoable) + "</div>";
}

/** The most attacks of a mob whose dice one card carries (Dice So Nice throws every one). */
export const MOB_DICE_SHOWN = 24;

/**
 * A mob's dice from an answer with `detail: "dice"`: one roll per attack (every die of its
 * strikes, as an attack card's or a ruleset card's), for the first MOB_DICE_SHOWN attacks;
 * none for a summary.
 * @param {EngineResult} result
 * @param {{names: Names, profileNames: Names}} ctx
 */
export function mobRollSpecs(result, { names, profileNames }) {
  if (result.detail !== "dice" || !Array.isArray(result.attacks)) return [];
  const own = !result.ruleset || ownClient(result.ruleset);
  return result.attacks.slice(0, MOB_DICE_SHOWN).map((/** @type {Record<string, any>} */ a, /** @type {number} */ i) => {
    const group = result.groups?.[a.group] ?? {};
    const aimed = (Array.isArray(group.target) ? group.target : [group.target]).map((/** @type {string} */ id) => names[id] ?? id).join(", ");
    const strikes = Array.isArray(a.strikes) ? a.strikes.filter((/** @type {unknown} */ s) => s && typeof s === "object") : [];
    const specs = own
      ? attackRollSpecs(attackCardModel({ strikes, targets: {}, seed: result.seed, total_damage: a.damage }, { attackerName: "", names, requestId: "" }))
      : rulesetRollSpecs({ ruleset: result.ruleset, strikes });
    return { label: `attack ${i + 1}: ${profileNames[group.profile] ?? group.profile} → ${aimed}`,
      groups: specs.flatMap((/** @type {{groups: object[]}} */ spec) => spec.groups), total: a.damage };
  }).filter((/** @type {{groups: object[]}} */ spec) => spec.groups.length);
}

/** An i18n key's text, or null when the language has no such key. */
const known = (/** @type {string} */ key, /** @type {Record<string, unknown>} */ data) => {
  const out = t(key, data);
  return out === key ? null : out;
};

/**
 * One line for a strike of a ruleset other than the default one, drawn as its contract
 * says (contract.js RULESETS[].client, the ruleset's manifest [client]): a "pool" strike
 * (a pool of its die), a "d20" strike (an attack roll against its `against` field), else
 * each of its values in its result layout's order.
 * @param {string} ruleset
 * @param {Record<string, any>} s  a strike of the engine result
 */
function rulesetStrikeLine(ruleset, s) {
  // A ruleset the bridge served (served.js) whose hints say nothing of its strikes: its
  // strike's values in the served layout's order.
  const client = rulesetClient(ruleset);
  const served = client.strike ? null : servedStrikeLine(ruleset, s);
  if (served !== null) return [served, typeof s.hit === "boolean" ? hitWord(s.hit) : ""].filter(Boolean).join(" · ");
  if (client.strike === "pool") {
    let line = `${s.dice}${s.die}: ${s.faces.join(" ") || "—"}`;
    if (s.exploded) line += ` (${plural(s.exploded, "Explosion")})`;
    line += ` ${t("FRACAS.Ruleset.Pool", { bonus: signed(s.bonus + s.magic_bonus), minus: s.dex + s.armor, pool: s.pool })}`;
    if (s.sneak_check) {
      line += ` · ${t("FRACAS.Ruleset.SneakCheck", { total: s.sneak_check.total, dc: s.sneak_check.dc,
        outcome: t(s.sneak_check.passed ? "FRACAS.Card.Passed" : "FRACAS.Ruleset.Failed") })}`;
    }
    if (s.parry) line += ` · ${t("FRACAS.Ruleset.Parry", { kind: word("Parry", s.parry.kind), absorbed: s.parry.absorbed })}`;
    if (s.stamina_cost) line += ` · ${t("FRACAS.Ruleset.Costs", { cost: s.stamina_cost.cost })}`;
    return line;
  }
  if (client.strike !== "d20") {
    const line = rulesetLayoutStrikeLine(ruleset, s);
    return [line, typeof s.hit === "boolean" ? hitWord(s.hit) : ""].filter(Boolean).join(" · ");
  }
  const natural = s.natural ? ` (${t("FRACAS.Ruleset.Natural", { n: s.natural })})` : "";
  // "vs TN 14", "vs AC 12": the key of the field it is rolled against (FRACAS.Ruleset.VsTn),
  // else the field's own name.
  const field = String(client.against ?? "");
  const n = s[field];
  const against = field ? known(`FRACAS.Ruleset.Vs${field.charAt(0).toUpperCase()}${field.slice(1)}`, { n })
    ?? `vs ${field.replace(/_/g, " ")} ${n}` : "";
  let line = `d20 ${s.attack_roll}${natural} ${signed(s.attack_bonus)} = ${s.attack_total}${against ? ` ${against}` : ""}: ${hitWord(s.hit)}`;
  if (s.reaction) {
    line += ` · ${word("Reaction", s.reaction.kind)} ${s.reaction.total}: ${t(s.reaction.negated ? "FRACAS.Ruleset.Negated" : "FRACAS.Ruleset.Fails")}`;
  }
  if (s.damage_dice?.length) line += ` · ${t("FRACAS.Ruleset.Damage", { dice: s.damage_dice.join("+"), bonus: signed(s.damage_bonus) })}`;
  return line;
}

/**
 * The per-target fields a card shows beside the damage (contract.js client.split: "stamina
 * 31, injury 0"), or null: the language's FRACAS.Ruleset.Split when it names them, else
 * each field and its value.
 * @param {string} ruleset @param {Record<string, any>} x  a target of the engine result
 */
function targetSplit(ruleset, x) {
  const fields = rulesetClient(ruleset).split;
  if (!Array.isArray(fields) || !fields.length) return null;
  // The language's words when its string has a placeholder for each field and no other.
  const slots = [...(known("FRACAS.Ruleset.Split", {}) ?? "").matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  return slots.length === fields.length && fields.every((f) => slots.includes(f))
    ? t("FRACAS.Ruleset.Split", Object.fromEntries(fields.map((f) => [f, x[f]])))
    : fields.map((f) => `${f.replace(/_/g, " ")} ${x[f]}`).join(", ");
}

/**
 * The card model of an attack result of a ruleset other than the default one (its own
 * attack card), drawn from its contract (rulesetStrikeLine, targetSplit).
 * @param {EngineResult} result
 * @param {{attackerName: string, names: Names, requestId: string}} ctx
 */
export function rulesetCardModel(result, { attackerName, names, requestId }) {
  const nameOf = (/** @type {string} */ id) => names[id] ?? id;
  const ruleset = result.ruleset;
  return {
    kind: "attack",
    ruleset,
    title: t("FRACAS.Card.AttacksRuleset", { name: attackerName, ruleset: rulesetTitle(ruleset) }),
    requestId,
    seed: String(result.seed),
    injected: !!result.injected,
    backend: result.backend,
    strikes: result.strikes.map((/** @type {Record<string, any>} */ s, /** @type {number} */ i) => ({
      n: i + 1, target: s.target, targetName: nameOf(s.target), line: rulesetStrikeLine(ruleset, s), damage: s.damage,
    })),
    targets: Object.entries(result.targets).map(([id, x]) => ({
      id, name: nameOf(id), damage: x.damage,
      split: targetSplit(ruleset, x),
    })),
    staminaCost: result.attacker?.stamina_cost ?? 0,
  };
}

/**
 * The chat card HTML of an attack of a ruleset other than the default one (rulesetCardModel).
 * @param {CardModel} model @param {{undoable?: boolean}} [options]
 */
export function renderRulesetCard(model, { undoable = false } = {}) {
  const strikes = model.strikes.map((/** @type {Record<string, any>} */ s) => `<div class="fracas-strike" data-target="${attr(s.target)}">`
    + `<div class="fracas-strike-head">${esc(s.n)} → ${esc(s.targetName)}</div>`
    + `<div class="fracas-outcome">${esc(s.line)} → ${esc(s.damage)}</div></div>`);
  const rows = model.targets.map((/** @type {Record<string, any>} */ x) => `<li class="fracas-target" data-target="${attr(x.id)}"><strong>${esc(x.name)}</strong>: `
    + `<span class="fracas-damage">${esc(x.damage)}</span> ${esc(t("FRACAS.Card.DamageWord"))}${x.split ? ` (${esc(x.split)})` : ""}</li>`);
  const cost = model.staminaCost ? `<div class="fracas-cost">${esc(t("FRACAS.Ruleset.Spends", { cost: model.staminaCost }))}</div>` : "";
  return `<div class="fracas-card fracas-attack fracas-${attr(model.ruleset)}" data-request-id="${attr(model.requestId)}">`
    + `<header class="fracas-title">${esc(model.title)}</header>`
    + strikes.join("") + `<ul class="fracas-targets">${rows.join("")}</ul>` + cost
    + footerHtml(model, undoable) + "</div>";
}

/** A probability as a GM reads it: "62%", "99.6%", "<0.1%". */
export const pct = (/** @type {number} */ p) => (p > 0 && p < 0.0005 ? "<0.1%" : `${(p * 100).toFixed(p >= 0.995 || p <= 0.005 ? 1 : 0)}%`);

/**
 * The odds card (`attack.odds`): per target P(hit), P(crit), mean, the chance it drops.
 * @param {EngineResult} result
 * @param {{attackerName: string, names: Names}} ctx
 */
export function renderOddsCard(result, { attackerName, names }) {
  const rows = Object.entries(result.targets).map(([id, x]) => {
    const facts = [t("FRACAS.Odds.Hit", { p: pct(x.p_hit) })];
    if (x.p_crit !== undefined) facts.push(t("FRACAS.Odds.Crit", { p: pct(x.p_crit) }));
    facts.push(t("FRACAS.Odds.Mean", { mean: x.mean.toFixed(2), sd: x.sd.toFixed(2) }));
    for (const [n, p] of Object.entries(x.p_at_least ?? {})) facts.push(t("FRACAS.Odds.AtLeast", { n, p: pct(p) }));
    if (x.p_drop !== undefined) facts.push(t("FRACAS.Odds.Drops", { left: x.remaining, p: pct(x.p_drop) }));
    return `<li class="fracas-target" data-target="${attr(id)}"><strong>${esc(names[id] ?? id)}</strong>: `
      + `<span class="fracas-odds">${esc(facts.join(" · "))}</span></li>`;
  });
  const mob = result.count > 1 ? ` ×${result.count}` : "";
  return `<div class="fracas-card fracas-odds-card"><header class="fracas-title">${esc(t("FRACAS.Card.Odds", { name: attackerName, count: mob }))}</header>`
    + `<ul class="fracas-targets">${rows.join("")}</ul>`
    + `<footer class="fracas-footer"><span class="fracas-seed">${esc(t("FRACAS.Card.Exact"))}</span></footer></div>`;
}

/**
 * The chat card of an ER-19 competition: each side's modifiers and odds, every roll, the outcome;
 * `undoable`: the grappler's incidental point was applied, offer Undo.
 * @param {EngineResult} result
 * @param {{names: Names}} ctx
 * @param {{undoable?: boolean}} [options]
 */
export function renderCompeteCard(result, { names }, { undoable = false } = {}) {
  const nameOf = (/** @type {string} */ id) => names[id] ?? id;
  const sides = ["challenger", "defender"].map((side) => {
    const c = result[side];
    const parts = [`${word("Attribute", c.attribute)} ${signed(c.modifier)}`];
    if (c.bonus) parts.push(t("FRACAS.Card.Bonus", { value: signed(c.bonus) }));
    for (const x of c.situation) parts.push(`${logText(x.why)} ${signed(x.value)}`);
    const edge = c.advantage ? ` · ${t("FRACAS.Dialog.AdvantageYes")}` : c.disadvantage ? ` · ${t("FRACAS.Dialog.Disadvantage")}` : "";
    return `<li><strong>${esc(nameOf(c.id))}</strong>: d12 ${esc(signed(c.total_modifier))} (${esc(parts.join(", "))})`
      + `${esc(edge)} · ${esc(t("FRACAS.Card.ToWin", { p: (100 * c.win_chance).toFixed(1) }))}</li>`;
  });
  const rounds = result.rounds.map((/** @type {Record<string, any>} */ r) => `<li>${esc(r.challenger.dice.join("/"))} → ${esc(r.challenger.total)} ${esc(t("FRACAS.Card.Versus"))} `
    + `${esc(r.defender.dice.join("/"))} → ${esc(r.defender.total)}${r.challenger.total === r.defender.total ? ` (${t("FRACAS.Card.Tie")})` : ""}</li>`);
  // The outcome line in the user's language (src/fracas/rulesets/er/compete.py OUTCOMES),
  // else the engine's own with the ids replaced by names.
  const key = `FRACAS.Compete.Outcome.${result.contest}.${result.winner === result.challenger.id ? "Won" : "Lost"}`;
  let outcome = t(key, { c: nameOf(result.challenger.id), d: nameOf(result.defender.id) });
  if (outcome === key) {
    outcome = String(result.outcome);
    for (const side of ["challenger", "defender"]) outcome = outcome.split(result[side].id).join(nameOf(result[side].id));
  }
  return `<div class="fracas-card fracas-compete"><header class="fracas-title">${esc(t("FRACAS.Card.Competition", { contest: word("Contest", result.contest) }))}</header>`
    + `<ul class="fracas-sides">${sides.join("")}</ul><ol class="fracas-rounds">${rounds.join("")}</ol>`
    + `<div class="fracas-outcome"><strong>${esc(outcome)}</strong></div>${incidentalHtml(result.incidental, nameOf)}`
    + footerHtml({ seed: String(result.seed), injected: !!result.injected }, undoable) + "</div>";
}

/**
 * Savage form in a grapple ("ER Grappling: Uncommon Conditions"): the victim's deciding d12,
 * the grappler's incidental point (ER-10 applied), poison or special delivered, a release
 * feat, and the exact chances.
 * @param {Record<string, any>|null|undefined} x @param {(id: string) => string} nameOf
 */
function incidentalHtml(x, nameOf) {
  if (!x) return "";
  const lines = [x.dealt
    ? t("FRACAS.Card.SavageDealt", { by: nameOf(x.by), strike: x.strike, raw: x.raw, to: nameOf(x.to), damage: x.damage, type: word("DamageType", x.damage_type) })
    : t("FRACAS.Card.SavageNone", { by: nameOf(x.by), strike: x.strike, raw: x.raw ?? "—", threshold: x.threshold })];
  if (x.delivered) lines.push(t("FRACAS.Card.SavageDelivered", { what: x.special ?? t("FRACAS.Card.SavagePoison") }));
  if (x.release) {
    const to = nameOf(x.to);
    lines.push(x.release.held === null ? t("FRACAS.Card.SavageFeat", { to, dc: x.release.dc })
      : t(x.release.held ? "FRACAS.Card.SavageHolds" : "FRACAS.Card.SavageLetsGo", { to, dc: x.release.dc, total: x.release.total }));
  }
  lines.push(t("FRACAS.Card.SavageOdds", { dealt: `${x.p_dealt_exact} (${(100 * x.p_dealt).toFixed(1)}%)`, delivered: `${x.p_delivered_exact} (${(100 * x.p_delivered).toFixed(1)}%)` }));
  // The grappler's per-target buttons (Apply, Half, Double, Undo) when the point landed.
  const actions = x.damage > 0 ? `<span class="fracas-target-actions" data-target="${attr(x.to)}"></span>` : "";
  return `<div class="fracas-incidental">${lines.map((l) => `<div>${esc(l)}</div>`).join("")}${actions}</div>`;
}

/**
 * The chat card of an ER-23 impalement: the strike at the charger, and whether the charge is void.
 * @param {EngineResult} result
 * @param {{pikemanName: string, chargerName: string, requestId: string}} ctx
 * @param {{undoable?: boolean}} [options]
 */
export function renderImpaleCard(result, { pikemanName, chargerName, requestId }, { undoable = false } = {}) {
  const model = attackCardModel(result.impalement, { attackerName: pikemanName, names: { [result.charger.id]: chargerName }, requestId });
  const ch = result.charger;
  const verdict = t(result.charge_void ? "FRACAS.Card.ChargeVoid" : "FRACAS.Card.ChargeGoesOn");
  return `<div class="fracas-card fracas-impale" data-request-id="${attr(requestId)}">`
    + `<header class="fracas-title">${esc(t("FRACAS.Card.Impales", { pikeman: pikemanName, charger: chargerName, dice: result.dice }))}</header>`
    + model.strikes.map(strikeHtml).join("")
    // No Body values: the card may be public, and the charger's Body is the GM's (its
    // before and after are in the card's GM-only ledger).
    + `<div class="fracas-outcome"><strong>${esc(chargerName)}</strong>: ${esc(ch.damage)} ${esc(t("FRACAS.Card.DamageWord"))} · `
    + `${esc(verdict)}<span class="fracas-target-actions" data-target="${attr(ch.id)}"></span></div>`
    + footerHtml({ ...model, seed: String(result.seed) }, undoable)
    + "</div>";
}

/**
 * The card of a side initiative (a ruleset whose contract says `initiative: "side"`): the
 * sides' dice and who acts first, as its result has them: one roll for both sides and the
 * side that acts `first` (and one `surprised`), or each side's roll (`sides`) and the
 * groups in acting order (`order`); the die and the rule cited from its contract.
 * @param {EngineResult} result
 */
export function renderSideInitiativeCard(result) {
  const client = rulesetClient(result.ruleset);
  const die = `d${client.initiative_die ?? 6}`;
  const rule = client.initiative_rule ? ` (${client.initiative_rule})` : "";
  let body;
  if (!Array.isArray(result.sides)) {
    const surprised = result.surprised ? ` · ${t("FRACAS.Card.Surprised", { side: word("Side", result.surprised) })}` : "";
    body = `<div>${esc(die)} ${esc(result.roll)} → ${esc(t("FRACAS.Card.ActFirst", { side: word("Side", result.first) }))}${esc(surprised)}${esc(rule)}</div>`;
  } else {
    const rolls = result.sides.map((/** @type {Record<string, any>} */ x) => `${word("Side", x.id)} ${x.roll}${x.tiebreaks.length ? ` (${t("FRACAS.Card.Ties", { rolls: x.tiebreaks.join(", ") })})` : ""}`);
    const order = result.order.map((/** @type {string[]} */ g) => g.map((side) => word("Side", side)).join(t("FRACAS.Card.And"))).join(t("FRACAS.Card.Then"));
    body = `<div>${esc(die)}: ${esc(rolls.join(" · "))}</div><div><strong>${esc(order)}</strong>${esc(rule)}</div>`;
  }
  return `<div class="fracas-card fracas-initiative"><header class="fracas-title">${esc(t("FRACAS.Card.SideInitiative", { round: result.round ?? "" }))}</header>`
    + `${body}<footer class="fracas-footer"><span class="fracas-seed">${esc(t("FRACAS.Card.Seed", { seed: String(result.seed) }))}</span></footer></div>`;
}

/**
 * The card of one round of a whole fight (the bridge's encounter.round log): the order,
 * every attack and what came of it, morale, who stands. Names are the combatants' as
 * the GM sees them, all escaped.
 * @param {any} log  the round's log
 * @param {{names: Record<string,string>, requestId: string}} ctx
 */
/**
 * The dice of a round, as roll specs: each attack's dice (Enchanted Realms results carry
 * every face), skipping what `hidden` members did or suffered.
 * @param {any} log  the encounter.round answer
 * @param {Set<string>} hidden
 * @param {Record<string, string>} names
 */
export function roundRollSpecs(log, hidden, names) {
  const specs = [];
  for (const e of Array.isArray(log.events) ? log.events : []) {
    if ((e.type !== "attack" && e.type !== "spell") || hidden.has(e.who) || hidden.has(e.target)) continue;
    const strikes = e.result?.strikes;
    if (!Array.isArray(strikes) || !strikes.every((st) => Array.isArray(st.dice) && st.dice.every((/** @type {Record<string, any>} */ d) => Number.isInteger(d.face)))) continue;
    const model = attackCardModel(e.result, { attackerName: names[e.who] ?? e.who, names, requestId: "" });
    specs.push(...attackRollSpecs(model).map((spec) => ({ ...spec, label: `${names[e.who] ?? e.who}: ${spec.label}` })));
  }
  return specs;
}

/**
 * @param {EngineResult} log  the encounter.round answer
 * @param {{names: Names, requestId: string, hidden?: Set<string>, hurt?: {id: string, name: string, damage: number}[]}} ctx
 * @param {{undoable?: boolean}} [options]
 */
export function renderRoundCard(log, { names, requestId, hidden = new Set(), hurt = [] }, { undoable = false } = {}) {
  const name = (/** @type {string} */ id) => esc(names[id] ?? id);
  const lines = [];
  // For the players' card: nothing a hidden member did or suffered, no order slot or
  // count of its side that would betray it (the GM's card, a whisper, has everything).
  const seen = (/** @type {Record<string, any>} */ e) => !hidden.has(e.who) && !hidden.has(e.target) && !hidden.has(e.group)
    && (!Array.isArray(e.who) || e.who.some((/** @type {string} */ id) => !hidden.has(id)));
  /** Names of a flight's or surrender's members the card may show. */
  const some = (/** @type {unknown} */ ids) => (Array.isArray(ids) ? ids : [ids]).filter((id) => !hidden.has(id)).map((id) => names[id] ?? id).join(", ");
  const nameOf = (/** @type {string} */ id) => names[id] ?? id;
  for (const e of (Array.isArray(log.events) ? log.events : []).filter(seen)) {
    /** @type {string|null} a line's text (escaped below), or null for an attack's own markup */
    let text = null;
    let cls = "";
    switch (e.type) {
      case "attack":
      case "spell": {
        const how = e.type === "spell" ? ` ${esc(t("FRACAS.Round.Casts", { spell: e.spell }))} ` : " → ";
        lines.push(`<li>${name(e.who)}${how}${name(e.target)}: <span class="fracas-damage">${esc(e.damage)}</span></li>`);
        break;
      }
      case "down": text = t("FRACAS.Round.Down", { name: nameOf(e.who) }); cls = "fracas-down"; break;
      case "fled": text = t("FRACAS.Round.Fled", { name: nameOf(e.who), why: logText(e.why) }); cls = "fracas-fled"; break;
      case "flight": text = t("FRACAS.Round.Flight", { names: some(e.who), why: logText(e.why) }); cls = "fracas-fled"; break;
      case "surrender": text = t("FRACAS.Round.Surrender", { names: some(e.who), why: logText(e.why) }); cls = "fracas-fled"; break;
      case "morale": {
        const outcome = e.breaks ? t("FRACAS.Round.Breaks") : t("FRACAS.Round.Holds");
        text = t("FRACAS.Round.Morale", { group: nameOf(e.group), trigger: word("Trigger", e.trigger), total: e.total, against: e.against,
          outcome: e.then ? `${outcome}: ${logText(e.then)}` : outcome });
        break;
      }
      case "spell lost": text = t("FRACAS.Round.SpellLost", { name: nameOf(e.who), spell: e.spell }); break;
      case "parry": text = t("FRACAS.Round.Parry", { name: nameOf(e.who), with: word("Parry", e.with), left: e.left }); break;
      case "no weapon": text = t("FRACAS.Round.NoWeapon", { name: nameOf(e.who), why: logText(e.why) }); break;
      case "reserve": text = t("FRACAS.Round.Reserve", { name: nameOf(e.who), actions: plural(Number(e.actions) || 0, "Action") }); break;
      case "reserve spent": text = t("FRACAS.Round.ReserveSpent", { name: nameOf(e.who), spent: plural(Number(e.spent) || 0, "Action"), left: e.left }); break;
      case "weapon broken": text = t("FRACAS.Round.WeaponBroken", { name: nameOf(e.who), n: Number(e.strike) + 1 }); break;
      case "weapon shattered": text = t("FRACAS.Round.WeaponShattered", { name: nameOf(e.who) }); break;
      case "shield destroyed": text = t("FRACAS.Round.ShieldDestroyed", { name: nameOf(e.who) }); break;
      case "target": if (hidden.size) break; // "among" would count hidden enemies
        text = t("FRACAS.Round.Target", { name: nameOf(e.who), target: nameOf(e.target), among: e.among }); break;
      case "end":
        lines.push(`<li class="fracas-end"><strong>${esc(e.winner ? t("FRACAS.Round.Wins", { side: word("Side", e.winner) }) : logText(e.reason))}</strong></li>`);
        break;
      default: break; // a kind this module does not know yet: the GM's log on the bridge has it
    }
    if (text !== null) lines.push(`<li${cls ? ` class="${cls}"` : ""}>${esc(text)}</li>`);
  }
  const order = (Array.isArray(log.order) ? log.order : []).map((slot) => slot.filter((/** @type {string} */ id) => !hidden.has(id)).map(name).join(", "))
    .filter(Boolean).join("; ");
  const standing = hidden.size ? "" : Object.entries(log.standing ?? {}).map(([side, n]) => `${esc(word("Side", side))} ${esc(n)}`).join(", ");
  const model = { requestId, seed: String(log.seed), backend: null, injected: false };
  return `<div class="fracas-card fracas-round" data-request-id="${attr(requestId)}">`
    + `<header class="fracas-title">${esc(t("FRACAS.Round.Title", { round: log.round }))}</header>`
    + (order ? `<div class="fracas-order">${esc(t("FRACAS.Round.Order"))}: ${order}</div>` : "")
    + `<ul class="fracas-events">${lines.join("")}</ul>`
    + (hurt.length ? `<ul class="fracas-targets">${hurt.map((h) => `<li class="fracas-target" data-target="${attr(h.id)}">`
      + `<strong>${esc(h.name)}</strong>: <span class="fracas-damage">${esc(h.damage)}</span>`
      + `<span class="fracas-target-actions" data-target="${attr(h.id)}"></span></li>`).join("")}</ul>` : "")
    + (standing ? `<div class="fracas-standing">${esc(t("FRACAS.Round.Standing"))}: ${standing}</div>` : "")
    + footerHtml(model, undoable) + "</div>";
}

// ── the dice of the other cards, as roll specs (real Foundry rolls; Dice So Nice shows them) ──

/** @param {number} r  a face */
const rolled = (/** @type {number} */ r) => ({ result: r, active: true });

/**
 * A strike's dice as its contract says (client.strike): a "d20" strike's attack roll, a
 * "pool" strike's pool of its die; none for a ruleset that says neither.
 * @param {EngineResult} result
 */
export function rulesetRollSpecs(result) {
  const kind = rulesetClient(result.ruleset).strike;
  if (kind !== "pool" && kind !== "d20") return [];
  return result.strikes.map((/** @type {Record<string, any>} */ s, /** @type {number} */ i) => {
    if (kind === "pool") {
      const faces = Number(String(s.die ?? "").replace(/^d/, ""));
      return { label: `strike ${i + 1}`, groups: Number.isInteger(faces) && faces > 0 && Array.isArray(s.faces) && s.faces.length
        ? [{ faces, flavor: t("FRACAS.Dice.Pool"), results: s.faces.map((/** @type {number} */ r) => rolled(r)) }] : [], total: s.damage };
    }
    return { label: `strike ${i + 1}`, groups: Number.isInteger(s.attack_roll)
      ? [{ faces: 20, flavor: t("FRACAS.Dice.Attack"), results: [{ result: s.attack_roll, active: true, success: !!s.hit, failure: !s.hit }] }] : [], total: s.damage };
  }).filter((/** @type {Record<string, any>} */ spec) => spec.groups.length);
}

/**
 * ER-19: each round's d12s, the challenger's and the defender's.
 * @param {EngineResult} result
 * @param {Names} names
 */
export function competeRollSpecs(result, names) {
  return result.rounds.map((/** @type {Record<string, any>} */ r, /** @type {number} */ i) => ({
    label: `round ${i + 1}`,
    groups: ["challenger", "defender"].map((side) => ({ faces: 12, flavor: names[result[side].id] ?? result[side].id,
      results: r[side].dice.map((/** @type {number} */ face) => rolled(face)) })),
  }));
}

/**
 * A side initiative's dice (its contract's initiative_die): the one roll for both sides, or
 * each side's roll and its tie rolls.
 * @param {EngineResult} result
 */
export function sideInitiativeRollSpecs(result) {
  const faces = rulesetClient(result.ruleset).initiative_die ?? 6;
  if (!Array.isArray(result.sides)) return Number.isInteger(result.roll) ? [{ label: "initiative", groups: [{ faces, flavor: t("FRACAS.Dice.Initiative"), results: [{ result: result.roll, active: true }] }] }] : [];
  return [{ label: "initiative", groups: result.sides.map((/** @type {Record<string, any>} */ x) => ({ faces, flavor: x.id,
    results: [x.roll, ...(x.tiebreaks ?? [])].map((r) => rolled(r)) })) }];
}

/**
 * ER-23: the impalement's strike, as an attack's dice.
 * @param {EngineResult} result
 * @param {{pikemanName: string, chargerName: string}} names
 */
export function impaleRollSpecs(result, { pikemanName, chargerName }) {
  return attackRollSpecs(attackCardModel(result.impalement, { attackerName: pikemanName, names: { [result.charger.id]: chargerName }, requestId: "" }));
}
