// Bringing a rendered fracas chat card to life: the Undo button for GMs, and what
// was applied. Works on the card's DOM element only, so it is the same in Foundry
// v12 (jQuery hook argument) and v13 (HTMLElement), and in the test page.

/**
 * @param {HTMLElement} root   the rendered chat message
 * @param {object} flags       the message's fracas flags ({changes, undone})
 * @param {{isGM: boolean, onUndo: () => Promise<unknown>}} ctx
 */
export function decorateCard(root, flags, { isGM, onUndo }) {
  const card = root.querySelector(".fracas-card");
  if (!card) return;
  const changes = Array.isArray(flags?.changes) ? flags.changes : [];
  const applied = card.querySelector(".fracas-applied");
  const button = card.querySelector('[data-fracas-action="undo"]');
  if (applied) {
    applied.textContent = "";
    if (changes.length) {
      // Body values are for GMs only; players see that damage was applied.
      const detail = isGM ? `: ${changes.map((c) => `${c.name} ${c.before} → ${c.after}`).join(", ")}` : "";
      applied.textContent = flags.undone ? "damage undone" : `damage applied${detail}`;
    }
  }
  if (!button) return;
  if (!isGM || !changes.length) {
    button.remove();
    return;
  }
  if (flags.undone) {
    button.disabled = true;
    button.textContent = "Damage undone";
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
