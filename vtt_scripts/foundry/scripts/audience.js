// Who sees a card: the chat roll mode (public / private GM / blind / self) of the user who
// asked, combined with the world setting "Results in chat", and what of its dice Dice So
// Nice can throw. Pure: main.js applies it to Foundry's ChatMessage data (README: Who sees
// a card).

/** CONST.DICE_ROLL_MODES' values (foundry-vtt-types 13.x common/constants.d.mts l. 393-412). */
export const ROLL_MODES = Object.freeze(["publicroll", "gmroll", "blindroll", "selfroll"]);

/**
 * The roll mode a card is posted with: the asking user's chat roll mode, made private to the
 * GMs when the world setting "Results in chat" is "gm" (a public roll becomes a GM roll; blind
 * and self stay as chosen). Anything that is not a roll mode counts as public.
 * @param {unknown} userMode  the user's core.rollMode (or what a player's request said)
 * @param {unknown} chatVisibility  the world setting: "public" | "gm"
 * @returns {string}
 */
export function effectiveRollMode(userMode, chatVisibility) {
  const mode = typeof userMode === "string" && ROLL_MODES.includes(userMode) ? userMode : "publicroll";
  return chatVisibility === "gm" && mode === "publicroll" ? "gmroll" : mode;
}

/**
 * Whether a card posted in `mode` is seen by GMs only: a blind roll, or the GM's own private
 * or self roll. A player's private roll is seen by that player too, a player's self roll by
 * that player (and the GM whose client posts it).
 * A GM-role user whose tab does not hold the bridge (an assistant GM, the GM's second tab) asks
 * like a player (`requester`, so a self roll goes to that user alone) but sees as a GM
 * (`gmRequester`: its private and self rolls are GM-only too).
 * @param {string} mode
 * @param {string|null} [requester]  the user who asked on another client (null: this client's own card)
 * @param {boolean} [gmRequester]  that user has a GM role
 */
export function gmOnly(mode, requester = null, gmRequester = false) {
  return mode === "blindroll" || ((!requester || gmRequester) && (mode === "gmroll" || mode === "selfroll"));
}

/**
 * The whisper list of a card for a player's request in `mode`, as ChatMessage.applyRollMode
 * does for a message that player would post itself (v13 client/documents/chat-message.mjs
 * l. 152-172): public → [], self → [the player], private → the GMs and the player, blind →
 * the GMs (blind).
 * @param {string} mode
 * @param {string} requester
 * @param {string[]} gmIds
 * @returns {{whisper: string[], blind: boolean}}
 */
export function playerAudience(mode, requester, gmIds) {
  if (mode === "publicroll") return { whisper: [], blind: false };
  if (mode === "selfroll") return { whisper: [requester], blind: false };
  if (mode === "blindroll") return { whisper: [...gmIds], blind: true };
  return { whisper: [...new Set([...gmIds, requester])], blind: false };
}

/**
 * The rolls of a message Dice So Nice throws whole: DSN's DiceNotation counts a message's
 * dice and stops at the one that reaches its maxDiceNumber (`if(++diceNumber >=
 * maxDiceNumber) return true;`), so at most maxDiceNumber − 1 dice are thrown and the rest
 * dropped silently. Whole rolls are kept while their dice fit; the others stay off the
 * message (the card lists every die) and the card says so.
 * @param {number[]} counts  dice per roll
 * @param {number} maxDiceNumber  DSN's setting (Infinity without DSN)
 * @returns {{keep: number, shown: number, total: number}}  how many rolls are kept, their dice, all dice
 */
export function capRolls(counts, maxDiceNumber) {
  const limit = Number.isFinite(maxDiceNumber) ? Math.max(0, maxDiceNumber - 1) : Infinity;
  let keep = 0;
  let shown = 0;
  const total = counts.reduce((a, b) => a + b, 0);
  for (const n of counts) {
    if (shown + n > limit) break;
    shown += n;
    keep += 1;
  }
  return { keep, shown, total };
}

/**
 * CONST.TOKEN_DISPLAY_MODES (foundry-vtt-types 13.x common/constants.d.mts l. 1006-1036): NONE 0
 * "No information is displayed", CONTROL 10 "Displayed when the token is controlled",
 * OWNER_HOVER 20 "Displayed when hovered by a GM or a user who owns the actor", HOVER 30
 * "Displayed when hovered by any user", OWNER 40 "Always displayed for a GM or for a user who owns
 * the actor", ALWAYS 50 "Always displayed for everyone". TokenDocument#displayName holds one
 * (client/data/documents/token.d.mts l. 246-252, initial NONE).
 */
export const TOKEN_DISPLAY_MODES = Object.freeze({ NONE: 0, CONTROL: 10, OWNER_HOVER: 20, HOVER: 30, OWNER: 40, ALWAYS: 50 });

/** CONST.TOKEN_DISPOSITIONS.SECRET (common/constants.d.mts l. 1047): no nameplate for non-owners. */
export const SECRET_DISPOSITION = -2;

/**
 * Whether a player who does not own a token sees its nameplate. v13's Token#_refreshState sets
 * `this.nameplate.visible = !isSecret && this._canViewMode(this.document.displayName)`, and
 * Token#_canViewMode (client/canvas/placeables/token.mjs) answers NONE → false, ALWAYS → true,
 * CONTROL → `this.controlled`, HOVER → `this.hover || this.layer.highlightObjects`, OWNER_HOVER →
 * `this.isOwner && (hover …)`, OWNER → `this.isOwner`, anything else → false. A non-owner cannot
 * control a token (only owners may), so only HOVER and ALWAYS show it the name; a SECRET
 * disposition (TokenDocument#isSecret: SECRET and not an owner) hides it whatever the mode.
 * @param {unknown} displayName  TokenDocument#displayName
 * @param {unknown} [disposition]  TokenDocument#disposition
 */
export function othersSeeName(displayName, disposition) {
  if (disposition === SECRET_DISPOSITION) return false;
  return displayName === TOKEN_DISPLAY_MODES.HOVER || displayName === TOKEN_DISPLAY_MODES.ALWAYS;
}
