// Bringing a rendered fracas chat card to life: for GMs, the Undo button and each
// target's Apply / Half / Double / Undo buttons, and what was applied. Works on the card's
// DOM element only, so it is the same in Foundry v12 (jQuery hook argument) and v13
// (HTMLElement), and in the test page.

import { t } from "./i18n.js";

/**
 * A button that runs `action` once at a time; a failed action (null) leaves it usable.
 * @param {Document} doc
 * @param {string} label
 * @param {string} kind
 * @param {() => Promise<unknown>} action
 */
function actionButton(doc, label, kind, action) {
  const button = doc.createElement("button");
  button.type = "button";
  button.className = `fracas-target-button fracas-${kind}`;
  button.dataset.fracasAction = kind;
  button.textContent = label;
  button.addEventListener("click", async (/** @type {Event} */ event) => {
    event.preventDefault();
    if (button.disabled) return;
    button.disabled = true;
    if ((await action()) === null) button.disabled = false;
  });
  return button;
}

/**
 * A card's fracas flags, as far as the buttons read them.
 * @typedef {object} CardFlags
 * @property {{name: string, before?: number, after?: number, targets?: string[]}[]} [changes]
 * @property {{id: string}[]} [targets]
 * @property {unknown} [undone]
 * @property {unknown[]} [statuses]  status effects a bridge-rolled kind set (Undo takes them off)
 */

/**
 * @param {HTMLElement} root   the rendered chat message
 * @param {CardFlags} flags    the message's fracas flags ({changes, targets, undone})
 * @param {{isGM: boolean, onUndo: () => Promise<unknown>,
 *          onApply?: (targetId: string, multiplier: number) => Promise<unknown>,
 *          onUndoTarget?: (targetId: string) => Promise<unknown>,
 *          onVary?: () => Promise<unknown>, onShare?: () => Promise<unknown>}} ctx
 *   onVary / onShare: a forecast card's Vary and Share buttons (GMs only)
 */
export function decorateCard(root, flags, { isGM, onUndo, onApply, onUndoTarget, onVary, onShare }) {
  const card = root.querySelector(".fracas-card");
  if (!card) return;
  // A forecast card's Vary and Share: GMs only (the card is whispered to them; a button left on
  // a card some other user holds does nothing but is removed all the same).
  for (const [kind, action] of /** @type {[string, (() => Promise<unknown>)|undefined][]} */ ([["vary", onVary], ["share", onShare]])) {
    const old = /** @type {HTMLButtonElement|null} */ (card.querySelector(`[data-fracas-action="${kind}"]`));
    if (!old) continue;
    if (!isGM || !action) {
      old.remove();
      continue;
    }
    // Wired once per render: Foundry renders a message anew (new elements) on each update.
    if (old.dataset.fracasWired) continue;
    old.dataset.fracasWired = "1";
    old.addEventListener("click", async (event) => {
      event.preventDefault();
      if (old.disabled) return;
      old.disabled = true;
      try {
        await action();
      } finally {
        old.disabled = false;
      }
    });
  }
  const changes = Array.isArray(flags?.changes) ? flags.changes : [];
  const applied = card.querySelector(".fracas-applied");
  const button = /** @type {HTMLButtonElement|null} */ (card.querySelector('[data-fracas-action="undo"]'));
  if (applied) {
    applied.textContent = "";
    if (changes.length) {
      // Body values are for GMs only; players see that damage was applied.
      const detail = isGM ? `: ${changes.map((c) => `${c.name} ${c.before} → ${c.after}`).join(", ")}` : "";
      applied.textContent = flags.undone ? t("FRACAS.Card.DamageUndone") : `${t("FRACAS.Card.DamageApplied")}${detail}`;
    }
  }
  // Per target, for GMs: apply the damage (whole, half or double), or undo it.
  for (const slot of /** @type {NodeListOf<HTMLElement>} */ (card.querySelectorAll(".fracas-target-actions"))) {
    slot.replaceChildren();
    const id = slot.dataset.target ?? "";
    const target = (flags?.targets ?? []).find((x) => x.id === id);
    if (!isGM || !target || !onApply || !onUndoTarget || flags.undone) continue;
    const doc = slot.ownerDocument;
    if (changes.some((c) => (c.targets ?? []).includes(id))) {
      slot.append(actionButton(doc, t("FRACAS.Card.UndoTarget"), "undo-target", () => onUndoTarget(id)));
    } else {
      slot.append(actionButton(doc, t("FRACAS.Card.Apply"), "apply", () => onApply(id, 1)),
        actionButton(doc, t("FRACAS.Card.Half"), "half", () => onApply(id, 0.5)),
        actionButton(doc, t("FRACAS.Card.Double"), "double", () => onApply(id, 2)));
    }
  }
  if (!button) return;
  const statuses = Array.isArray(flags?.statuses) ? flags.statuses : [];
  if (!isGM || (!changes.length && !statuses.length)) {
    button.remove();
    return;
  }
  if (flags.undone) {
    button.disabled = true;
    button.textContent = t("FRACAS.Card.Undone");
    return;
  }
  button.addEventListener("click", async (event) => {
    event.preventDefault();
    if (button.disabled) return;
    button.disabled = true;
    const outcome = await onUndo();
    // A failed undo (already notified) leaves the button usable; a successful one
    // re-renders the card from the updated flags.
    if (outcome === null) button.disabled = false;
  });
}
