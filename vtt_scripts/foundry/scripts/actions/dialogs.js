// The ready-made macros' dialogs: the attack and the mob attack.

import { attackFormHtml, parseAttackForm } from "../dialog.js";
import { InputError } from "../errors.js";
import { t } from "../i18n.js";
import { getPath } from "../paths.js";
import { uniqueViews, who } from "../request.js";
import { strikeWords } from "./context.js";

/** How many attackers the mob dialog names before it counts the rest. */
const MOB_NAMES_SHOWN = 4;

/** @typedef {import("../actions.js").TokenView} TokenView */
/** @typedef {import("../actions.js").Json} Json */

/**
 * The dialogs actions over the shared context (context.js).
 * @param {import("./context.js").Ctx} ctx
 */
export function dialogsActions(ctx) {
  const { vtt, setting, requireGM, link } = ctx;

  /**
   * @param {string} title
   * @param {string} attackerName
   * @param {TokenView[]} targets
   * @param {{id: string, name: string}[]} [weapons]
   */
  async function askStrike(title, attackerName, targets, weapons = []) {
    const last = /** @type {Record<string, any>|null} the dialog's last answers (a setting the dialog wrote) */ (vtt.setting("lastStrike") ?? null);
    const form = await vtt.promptForm(attackFormHtml(last, { attacker: attackerName, targets: targets.map(who), weapons }), title);
    if (!form) return null;
    const parsed = parseAttackForm(form);
    await vtt.setSetting("lastStrike", parsed.remember);
    return parsed;
  }

  /** The attacks a token's actor offers in the dialog: its weapon items, then its own flag strikes. */
  /** @param {TokenView} view */
  function attackChoices(view) {
    const choices = ctx.weaponsOf(view).map((w) => ({ id: w.id, name: w.name }));
    const own = getPath(view?.actor, "flags.fracas.strikes");
    if (Array.isArray(own)) {
      own.forEach((/** @type {Json|null} */ s, /** @type {number} */ i) => choices.push({ id: `strike:${i}`, name: `${t("FRACAS.Dialog.OwnStrike", { n: i + 1 })} (${strikeWords(s)})` }));
    }
    return choices;
  }

  /**
   * The ready-made macro: ask for the weapon, one strike at each target. A player's choice
   * goes to the holding GM client as "this attack of my actor", never as numbers (unless
   * the GM allows free-form player attacks).
   */
  async function attackDialog() {
    if (vtt.isGM() && vtt.holdsConnection()) link();
    const controlled = vtt.controlled();
    if (controlled.length !== 1) throw new InputError(t("FRACAS.Notify.OneAttacker", { count: controlled.length }));
    const targets = uniqueViews(vtt.targeted());
    if (!targets.length) throw new InputError(t("FRACAS.Notify.NoTargets"));
    const parsed = await askStrike(t("FRACAS.Dialog.Title"), controlled[0].name ?? controlled[0].id, targets, attackChoices(controlled[0]));
    if (!parsed) return null;
    const base = { ...parsed.options, attacker: controlled[0].id, targets: targets.map((x) => x.id) };
    const flagIndex = /^strike:(\d+)$/.exec(parsed.weapon ?? "");
    if (!vtt.isGM() && setting("playerFreeForm") !== true) {
      // Only which attack: the GM's side reads its numbers from the actor (the odds' too).
      const choice = flagIndex ? { strike: Number(flagIndex[1]) } : parsed.weapon ? { item: parsed.weapon } : {};
      return (parsed.action === "odds" ? ctx.odds : ctx.attack)({ attacker: base.attacker, targets: base.targets, ...choice });
    }
    // A weapon item's strikes, an own strike, or the dialog's strike, at each target.
    const list = flagIndex ? ctx.ownAttack(controlled[0], { strike: Number(flagIndex[1]) })
      : parsed.weapon ? ctx.itemStrikes(controlled[0], parsed.weapon) : [parsed.strike];
    const strikes = targets.flatMap((x) => list.map((st) => ({ ...st, target: x.id })));
    const options = { ...base, strikes };
    return parsed.action === "odds" ? ctx.viaHolder("odds", ctx.odds)(options) : ctx.viaHolder("attack", ctx.attack)(options);
  }

  /** The mob macro: the dialog's strike for every actor without its own strikes flag. */
  async function mobDialog() {
    // A player's mob (the world setting "Players' mobs"): its tokens' own strikes, no dialog.
    if (!vtt.isGM()) return ctx.mob({});
    requireGM("Mobs");
    if (vtt.holdsConnection()) link();
    const attackers = vtt.controlled();
    if (!attackers.length) throw new InputError(t("FRACAS.Error.Actions34"));
    const targets = uniqueViews(vtt.targeted());
    if (!targets.length) throw new InputError(t("FRACAS.Notify.NoTargets"));
    // The attackers by name (no English word: the dialog is in the GM's language), the first few and a count.
    const more = attackers.length - MOB_NAMES_SHOWN;
    const named = attackers.slice(0, MOB_NAMES_SHOWN).map(who).join(", ") + (more > 0 ? `, … (+${more})` : "");
    const parsed = await askStrike(t("FRACAS.Dialog.MobTitle"), named, targets);
    if (!parsed) return null;
    if (parsed.options.rolls) throw new InputError(t("FRACAS.Error.Actions35"));
    return ctx.viaHolder("mob", ctx.mob)({ ...parsed.options, strikes: [parsed.strike] });
  }

  return { askStrike, attackChoices, attackDialog, mobDialog };
}
