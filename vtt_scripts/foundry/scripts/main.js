// The edge: the only file that touches Foundry's globals (game, canvas, ui, Hooks,
// Roll, ChatMessage, foundry.*, fromUuid, CONFIG). A Foundry update that renames
// something breaks this file and nothing else. Checked against v12 and v13 APIs.

import { createActions } from "./actions.js";
import { capRolls, othersSeeName, playerAudience } from "./audience.js";
import { decorateCard } from "./card.js";
import { BridgeConnection, STATES, describeState } from "./connection.js";
import { InputError, describeError } from "./errors.js";
import { newRequestId } from "./ids.js";
import { MACROS } from "./macros.js";
import { HolderElection } from "./holder.js";
import { t } from "./i18n.js";
import { CONNECTION_KEYS, MODULE_ID, SETTINGS, TOKEN_MENU, settingChoiceKey, settingLabelKey } from "./settings.js";

/** @typedef {import("./request.js").TokenView} TokenView */
/** @typedef {import("./actions.js").RollSpec} RollSpec */
/** @typedef {import("./actions.js").CombatView} CombatView */
/** @typedef {{state: string, detail?: string, retryInMs?: number, attempt?: number}} Status  a connection's status */

/** @type {BridgeConnection|null} */
let connection = null;
/** @type {string|null} */
let lastState = null;
let troubled = false; // a failure since the last connect: announce the next one

/** @param {string} key  one of the module's settings (settings.js) */
const setting = (key) => game.settings.get(MODULE_ID, /** @type {any} a key of SettingConfig (types/foundry.d.ts), checked by settings.js's list */ (key));

// ── tokens as plain views ──────────────────────────────────────────────────────────

/**
 * A token (placeable or document) as the plain view the pure modules read.
 * @param {any} token  a Token placeable or a TokenDocument (fvtt-types gives the two no common type)
 * @returns {TokenView|null}
 */
function tokenView(token) {
  const doc = token?.document ?? token;
  if (!doc) return null;
  const actor = token.actor ?? doc.actor ?? null;
  return {
    id: doc.id,
    name: doc.name ?? token.name ?? doc.id,
    actorId: actor?.id ?? null,
    actorUuid: actor?.uuid ?? null,
    actorName: actor?.name ?? null,
    actor,
    statuses: actor?.statuses ? [...actor.statuses] : [],
    tokenDocument: doc,
    hidden: !!doc.hidden,
    // Whether players who do not own it see its nameplate (TokenDocument#displayName, a
    // CONST.TOKEN_DISPLAY_MODES value, and #disposition: audience.js othersSeeName). A token some
    // player owns (Actor#hasPlayerOwner, v12/v13 ClientDocumentMixin) is named: its players know it.
    unnamed: !actor?.hasPlayerOwner && !othersSeeName(doc.displayName, doc.disposition),
    // TokenDocument#disposition: a CONST.TOKEN_DISPOSITIONS value (forecast.js: the token's side).
    disposition: Number.isInteger(doc.disposition) ? doc.disposition : null,
    // TokenDocument#x/#y: the top-left corner in pixels; #width/#height: grid spaces.
    place: Number.isFinite(doc.x) && Number.isFinite(doc.y) ? { x: doc.x, y: doc.y, width: doc.width ?? 1, height: doc.height ?? 1 } : null,
  };
}

/**
 * Every token of a scene (by id; else the one this client shows) with its place, and the
 * scene's grid (Scene#grid in v12 and v13: size in pixels, type, distance and units per
 * space), for ER-17 bystanders.
 * @param {string} [sceneId]
 */
function sceneTokens(sceneId = undefined) {
  const scene = sceneId ? game.scenes?.get(sceneId) : canvas?.scene;
  if (!scene) return null;
  const grid = /** @type {{size: number, type: number, distance?: number, units?: string}} v12/v13 Scene#grid */ (scene.grid);
  return {
    grid: { size: Number(grid?.size) || 100, type: Number(grid?.type ?? 1), distance: Number(grid?.distance) || 5, units: String(grid?.units ?? "ft") },
    views: viewsOfTokens([...(scene.tokens ?? [])]),
  };
}

/**
 * Views of tokens, leaving out any that is not one.
 * @param {unknown[]} tokens
 * @returns {TokenView[]}
 */
function viewsOfTokens(tokens) {
  /** @type {TokenView[]} */
  const views = [];
  for (const token of tokens) {
    const view = tokenView(token);
    if (view) views.push(view);
  }
  return views;
}

/**
 * A token reference as a view: a token or its document, or an id (or a unique name) on
 * the scene `sceneId` (a player's request names the scene the player is on) or else on
 * the scene this client shows.
 * @param {unknown} ref
 * @param {string} [sceneId]
 * @returns {TokenView|null}
 */
function toView(ref, sceneId = undefined) {
  if (ref === null || ref === undefined) return null;
  if (typeof ref === "string" && sceneId && sceneId !== canvas?.scene?.id) {
    const scene = game.scenes?.get(sceneId);
    const doc = scene?.tokens?.get(ref);
    return doc ? tokenView(doc) : null;
  }
  if (typeof ref === "string") {
    const byId = canvas?.tokens?.get(ref);
    if (byId) return tokenView(byId);
    const byName = (canvas?.tokens?.placeables ?? []).filter((t) => t.name === ref);
    return byName.length === 1 ? tokenView(byName[0]) : null;
  }
  const doc = /** @type {{document?: unknown, documentName?: unknown}} */ (ref);
  if (typeof ref === "object" && (doc.document || doc.documentName === "Token")) return tokenView(ref);
  return null;
}

// ── the adapter the actions run against ────────────────────────────────────────────

function diceClasses() {
  const terms = foundry.dice.terms;
  return { Die: terms.Die, OperatorTerm: terms.OperatorTerm };
}

/**
 * Roll specs → evaluated Rolls whose Die terms hold the engine's faces.
 * @param {RollSpec[]} specs
 */
function makeRolls(specs) {
  const { Die, OperatorTerm } = diceClasses();
  return specs.map((spec) => {
    /** @type {foundry.dice.terms.RollTerm[]} */
    const terms = [];
    spec.groups.forEach((group, i) => {
      if (i) terms.push(OperatorTerm.fromData({ class: "OperatorTerm", operator: "+", evaluated: true }));
      terms.push(Die.fromData({
        class: "Die", number: group.results.length, faces: group.faces, modifiers: [],
        results: group.results.map((r) => ({ ...r })), options: { flavor: group.flavor }, evaluated: true,
      }));
    });
    const roll = Roll.fromTerms(terms);
    // The sum of the faces means nothing here: the roll's total is what the engine says
    // (a strike's damage, a save's total), or it stays the faces' sum when there is none.
    if (!Number.isFinite(spec.total)) return roll;
    return Roll.fromData(/** @type {any} Roll JSON, its total the engine's */ ({ ...roll.toJSON(), total: spec.total }));
  });
}

/**
 * Dice So Nice's maxDiceNumber when it is active (its world setting, default 20), else Infinity.
 * @returns {number}
 */
function diceSoNiceMax() {
  const dice3d = /** @type {any} Dice So Nice's API object (not in fvtt-types) */ (game).dice3d;
  if (!dice3d || !game.modules.get("dice-so-nice")?.active) return Infinity;
  try {
    const max = Number(game.settings.get(/** @type {any} Dice So Nice's namespace */ ("dice-so-nice"), /** @type {any} its setting */ ("maxDiceNumber")));
    return Number.isFinite(max) && max > 0 ? max : 20;
  } catch {
    return 20;
  }
}

/** @param {Roll} roll */
const diceCount = (roll) => roll.dice.reduce((n, d) => n + d.results.length, 0);

/**
 * Post a card. Who sees it (README: Who sees a card): `whisperToGM` → the GMs only;
 * otherwise the roll mode, as ChatMessage.applyRollMode applies it to the GM's own card
 * (v13 client/documents/chat-message.mjs l. 152-172) and as the asking player would have
 * posted it (audience.js's playerAudience). A whispered card carries no rolls: v13's
 * ChatMessage#visible (l. 102-108) makes a whisper *with rolls* visible to every user, so
 * every client would receive it, names, flags and all. Its dice are in the card's own HTML,
 * and Dice So Nice throws them for the recipients only through its API (showForRoll(roll,
 * user, synchronize, users, blind), module/Dice3D.js): on this screen alone when only GMs
 * see the card. A public card keeps whole rolls while Dice So Nice can throw their dice
 * (audience.js's capRolls) and says when it could not throw them all.
 * @param {{content: string, rolls?: Roll[], flags: Record<string, unknown>, speaker?: TokenView|null, whisperToGM?: boolean,
 *   rollMode?: string, requester?: string|null, gmRequester?: boolean}} card  (a GM-role requester's whisper list is a player's:
 *   playerAudience gives a self roll to that user, private and blind to the GMs)
 */
async function postCard({ content, rolls = [], flags, speaker, whisperToGM, rollMode = "publicroll", requester = null }) {
  const gmIds = ChatMessage.getWhisperRecipients("GM").map((u) => u.id);
  const cap = capRolls(rolls.map(diceCount), diceSoNiceMax());
  const kept = rolls.slice(0, cap.keep);
  if (cap.keep < rolls.length) {
    const note = t("FRACAS.Card.DiceSoNiceCap", { shown: cap.shown, total: cap.total, max: diceSoNiceMax() });
    content += `<p class="fracas-dsn-note">${escapeText(note)}</p>`;
  }
  /** @type {any} the module's flags are its own (not in Foundry's core flag types) */
  const data = {
    content,
    flags,
    // A token with an actor speaks as that token; one without (a tile-like token, a
    // deleted actor) gets its name as an alias, not a speaker that points nowhere.
    // A speaker without one (or one whose name players may not read: `masked`) is its alias
    // alone: ChatMessage.getSpeaker({alias}) would infer the speaker from this user's controlled
    // tokens (v13 client/documents/chat-message.mjs getSpeaker, "CASE 4 - Infer from controlled
    // tokens"), putting the GM's selected token (the attacker, a mob member) on the message.
    speaker: speaker?.tokenDocument && speaker.actor && !speaker.masked
      ? ChatMessage.getSpeaker({ token: /** @type {TokenDocument} tokenView keeps the document */ (speaker.tokenDocument), actor: speaker.actor })
      : { scene: null, actor: null, token: null, alias: speaker?.name ?? "fracas" },
  };
  if (whisperToGM) Object.assign(data, { whisper: gmIds, blind: false });
  else if (requester) Object.assign(data, playerAudience(rollMode, requester, gmIds));
  else ChatMessage.applyRollMode(data, /** @type {any} one of CONST.DICE_ROLL_MODES (audience.js checked it) */ (rollMode));
  const whisper = /** @type {string[]} */ (data.whisper ?? []);
  if (!whisper.length) {
    data.rolls = kept;
    return ChatMessage.create(data);
  }
  data.rolls = [];
  const message = await ChatMessage.create(data);
  const dice3d = /** @type {any} Dice So Nice's API object (not in fvtt-types) */ (game).dice3d;
  if (dice3d?.showForRoll && kept.length) {
    const othersSee = whisper.some((id) => !gmIds.includes(id));
    for (const roll of kept) {
      // Never let a failed animation fail the card.
      Promise.resolve().then(() => dice3d.showForRoll(roll, game.user, othersSee, othersSee ? whisper : null, false))
        .catch((/** @type {unknown} */ error) => console.warn("fracas | Dice So Nice", error));
    }
  }
  return message;
}

/** @param {string} text */
function escapeText(text) {
  const span = document.createElement("span");
  span.textContent = text;
  return span.innerHTML;
}

/** @param {string} uuid */
async function getDocument(uuid) {
  return (await fromUuid(/** @type {Parameters<typeof fromUuid>[0]} any document's uuid */ (uuid))) ?? null;
}

function currentCombat() {
  const combat = game.combat;
  if (!combat) return null;
  const combatants = [...combat.combatants].map((/** @type {any} fvtt-types has no usable Combatant type without strictNullChecks (the lenient check) */ c) => {
    const view = c.token ? tokenView(c.token) : null;
    return {
      id: String(c.id), // a combat's combatants are stored documents: their id is set
      name: c.name ?? view?.name ?? "",
      defeated: !!(c.isDefeated ?? c.defeated),
      hidden: !!c.hidden,
      view: { ...(view ?? {}), actor: c.actor ?? view?.actor ?? null },
    };
  });
  return { id: combat.id, document: combat, combatants, current: combat.combatant?.id ?? null };
}

/**
 * @param {string} content
 * @param {string} title
 * @param {string} [okLabel]  the OK button's label (default: "Roll")
 * @returns {Promise<Record<string, unknown>|null>}
 */
async function promptForm(content, title, okLabel = undefined) {
  const DialogV2 = foundry.applications?.api?.DialogV2;
  if (!DialogV2) throw new Error(t("FRACAS.Error.Main01"));
  return DialogV2.prompt({
    window: { title },
    content,
    rejectClose: false,
    ok: {
      label: okLabel ?? t("FRACAS.Dialog.Roll"),
      callback: (_event, button) => Object.fromEntries(new FormData(button.form ?? undefined).entries()),
    },
  });
}

/** @type {import("./actions.js").Vtt} */
const vtt = {
  isGM: () => !!game.user?.isGM,
  controlled: () => viewsOfTokens(canvas?.tokens?.controlled ?? []),
  targeted: () => viewsOfTokens([...(game.user?.targets ?? [])]),
  toView,
  setting,
  setSetting: (key, value) => game.settings.set(MODULE_ID, /** @type {"lastStrike"|"lastBridged"} the settings the actions write */ (key), /** @type {object} the dialog's last answers */ (value)),
  makeRolls: async (specs) => makeRolls(specs),
  postCard,
  messageFlags: (id) => game.messages.get(id)?.flags?.[MODULE_ID] ?? null,
  setMessageFlags: async (id, values) => game.messages.get(id)?.update(/** @type {any} the module's own flags */ ({ flags: { [MODULE_ID]: values } })),
  /**
   * A card's GM-only ledger: its Body values before and after, in a message whispered to
   * the GMs (the server sends a whisper to its recipients only, so players never receive
   * it), hidden from the chat log. Returns the ledger's message id.
   */
  postLedger: async (changes) => {
    /** @type {any} the module's flags are its own */
    const data = {
      content: `<span class="fracas-ledger"></span>`,
      whisper: ChatMessage.getWhisperRecipients("GM").map((u) => u.id),
      flags: { [MODULE_ID]: { kind: "ledger", changes } },
      speaker: ChatMessage.getSpeaker({ alias: "fracas" }),
    };
    const message = await ChatMessage.create(data);
    return message?.id ?? null;
  },
  ledger: (id) => /** @type {import("./damage.js").Change[]|undefined} what postLedger wrote */ (game.messages.get(id)?.flags?.[MODULE_ID]?.changes) ?? null,
  setLedger: async (id, changes) => game.messages.get(id)?.update(/** @type {any} the module's own flags */ ({ [`flags.${MODULE_ID}.changes`]: changes })),
  getDocument,
  updateDocument: (doc, data) => doc.update(data),
  combat: currentCombat,
  /** The fracas encounter a combat plays on the bridge ({name, round, names, max}), kept in its flags. */
  combatFlag: (combat) => combat.document.getFlag(MODULE_ID, "encounter") ?? null,
  setCombatFlag: (combat, value) => combat.document.setFlag(MODULE_ID, "encounter", value),
  setInitiative: async (combat, values, { keepTurnOf = null } = {}) => {
    await combat.document.updateEmbeddedDocuments("Combatant", values.map((v) => ({ _id: v.id, initiative: v.value })));
    // The tracker re-sorts: keep the turn with the combatant whose turn it was.
    if (keepTurnOf) {
      const turn = combat.document.turns.findIndex((/** @type {{id: string}} */ t) => t.id === keepTurnOf);
      if (turn >= 0 && turn !== combat.document.turn) await combat.document.update({ turn });
    }
  },
  promptForm,
  notify: (level, text) => ui.notifications?.[level]?.(text),
  /** Whether this user owns a token's actor (a player may attack only with its own). */
  ownsToken: (view) => !!view?.actor?.isOwner,
  /** Whether the user `userId` owns a token's actor (checked on the GM's client). */
  userOwnsToken: (userId, view) => {
    const user = game.users?.get(userId);
    if (!user || !view?.actor) return false;
    const owner = CONST?.DOCUMENT_OWNERSHIP_LEVELS?.OWNER ?? 3;
    return typeof view.actor.testUserPermission === "function" ? view.actor.testUserPermission(user, owner) : false;
  },
  holdsConnection: () => holdsConnection(),
  /** Whether the user `userId` has a GM role (a GM or an assistant GM): its tab may relay any action. */
  userIsGM: (userId) => !!game.users?.get(userId)?.isGM,
  /** This user's chat roll mode: the core client setting "rollMode" (CONST.DICE_ROLL_MODES' values). */
  rollMode: () => {
    try {
      return String(game.settings.get("core", "rollMode") ?? "publicroll");
    } catch {
      return "publicroll";
    }
  },
  /**
   * The scene a user is viewing: User#viewedScene (v12/v13, "The ID of the Scene currently being
   * viewed by this User"; `string | null`, foundry-vtt-types 13.x user.d.mts l. 528): null when
   * not known (a GM who connected after the player may read null), and the caller then falls back.
   */
  userScene: (userId) => game.users?.get(userId)?.viewedScene ?? null,
  /** The status id that marks a token defeated (CONFIG.specialStatusEffects.DEFEATED). */
  defeatedStatus: () => CONFIG.specialStatusEffects?.DEFEATED ?? "dead",
  /** The game system's id (game.system.id): it picks the damage adapter (systems.js). */
  systemId: () => game.system?.id ?? null,
  /** A token id's document on the canvas (pf2e's applyDamage takes the token hit). */
  tokenDocument: (id) => {
    if (!id) return null;
    // The canvas's scene first; a player's attack may have hit a token on another scene.
    const onCanvas = canvas?.tokens?.get(id)?.document;
    if (onCanvas) return onCanvas;
    const scene = game.scenes?.find((s) => !!s.tokens?.get(id));
    return scene?.tokens?.get(id) ?? null;
  },
  /** The scene this client shows (a player's request names it). */
  sceneId: () => canvas?.scene?.id ?? null,
  sceneTokens,
  /** The fracas card of a request id, if one was posted ({id, total}). */
  findCard: (requestId) => {
    const message = game.messages?.find((m) => m.flags?.[MODULE_ID]?.requestId === requestId);
    return message ? { id: message.id, total: message.flags[MODULE_ID].total ?? null } : null;
  },
  /** Ask the active GM's client to run `action` with `data`; resolves with its answer. */
  askGM: (action, data) => askGM(action, data),
  /** Mark an actor's tokens defeated (or not): the status effect, and its combatants. */
  setDefeated: async (actor, on) => {
    const id = CONFIG.specialStatusEffects?.DEFEATED ?? "dead";
    if (typeof actor.toggleStatusEffect === "function") await actor.toggleStatusEffect(id, { active: on, overlay: true });
    for (const combatant of /** @type {any[]} as above: Combatants, untyped for the lenient check */ ([...(game.combat?.combatants ?? [])])) {
      if (combatant.actor === actor && !!combatant.defeated !== on) await combatant.update({ defeated: on });
    }
  },
  /**
   * A status effect on an actor's tokens, on or off: the first of `ids` the world has, through
   * Actor#toggleStatusEffect(statusId, {active}) ("A status effect ID defined in
   * CONFIG.statusEffects", foundry-vtt-types 13.x client/data/documents/actor.d.mts l. 758-772),
   * which makes the effect with ActiveEffect.fromStatusEffect ("throws … if there is no status
   * effect in CONFIG.statusEffects with the given status ID", active-effect.d.mts l. 641-653).
   * Null, and nothing changed, when the world has none of them (a system may replace the core list).
   */
  setStatus: async (actor, ids, on) => {
    const known = new Set((CONFIG.statusEffects ?? []).map((/** @type {{id?: string}} */ e) => e.id));
    const id = ids.find((x) => known.has(x));
    if (!id || typeof actor?.toggleStatusEffect !== "function") return null;
    await actor.toggleStatusEffect(id, { active: on });
    return id;
  },
};

// ── requests to the holding GM client ──────────────────────────────────────────────
// The transport is the module socket, which module.json asks the server for with
// `"socket": true` (without it a v12/v13 server relays no `module.fracas` message at all;
// https://foundryvtt.com/article/module-development/ "socket", and
// https://foundryvtt.wiki/en/development/api/sockets). The server relays a message to
// the other clients and hands the receiver the sender's user id, so a player cannot pose
// as another user (socketlib relies on the same argument: `_onSocketReceived(message,
// senderId)`). v13's CONFIG.queries/User#query would also do, but it exists on v13 only,
// while the manifest supports v12.
// A request that gets no answer is sent again with the same id: the holder answers a
// known id from what it already did (the card it posted), never by rolling again.

const SOCKET = `module.${MODULE_ID}`;
const ASK_TIMEOUT_MS = 15000;
const ASK_TRIES = 2;
const waiting = new Map(); // request id → {resolve, timer}

/**
 * @param {string} action
 * @param {unknown} data
 * @returns {Promise<unknown>}
 */
function askGM(action, data) {
  const gmUser = game.users?.activeGM;
  if (!gmUser) return Promise.reject(new InputError(t("FRACAS.Notify.NoGM")));
  const id = newRequestId();
  const message = { type: "ask", id, action, data, to: gmUser.id };
  return new Promise((resolve, reject) => {
    let tries = 0;
    const send = () => {
      tries += 1;
      const timer = setTimeout(() => {
        if (tries < ASK_TRIES) {
          send();
          return;
        }
        waiting.delete(id);
        reject(new InputError(t("FRACAS.Notify.GMSilent", { seconds: (ASK_TIMEOUT_MS * ASK_TRIES) / 1000 })));
      }, ASK_TIMEOUT_MS);
      waiting.set(id, { resolve, timer });
      game.socket.emit(SOCKET, message);
    };
    send();
  });
}

/**
 * @param {any} message  whatever another client sent: every field is checked before use
 * @param {unknown} senderId
 */
async function onSocket(message, senderId) {
  if (!message || typeof message !== "object" || typeof senderId !== "string") return;
  if (message.type === "holder") {
    // Only this user's own tabs take part in choosing the holder.
    if (senderId === game.user?.id) election?.receive(message);
    return;
  }
  // An answer counts only from a GM's client (the holder): every client sees each "ask" go
  // by, so a player could otherwise answer another player's request first, with a made-up
  // refusal or result. The server names the sender; the message cannot.
  if (message.type === "answer" && message.to === game.user?.id && game.users?.get(senderId)?.isGM === true) {
    const entry = waiting.get(message.id);
    if (!entry) return;
    waiting.delete(message.id);
    clearTimeout(entry.timer);
    entry.resolve(message.answer);
    return;
  }
  if (message.type === "ask" && message.to === game.user?.id) {
    const answer = await actions.answerRequest(message, senderId);
    if (answer) game.socket.emit(SOCKET, { type: "answer", id: message.id, to: senderId, answer });
  }
}

// ── the connection, held by one tab of the active GM only ──────────────────────────

/** @type {HolderElection|null} this tab's part in choosing the holder (active GM tabs only) */
let election = null;

/** Join or leave the choice of the holder as this user becomes or stops being the active GM. */
function syncElection() {
  const activeGM = !!game.user?.isGM && game.users?.activeGM?.id === game.user.id;
  if (activeGM && !election) {
    election = new HolderElection({
      clientId: newRequestId(), since: Date.now(),
      emit: (message) => game.socket?.emit(SOCKET, message),
      clock: { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (timer) => clearTimeout(/** @type {number} */ (timer)), now: () => Date.now() },
      onChange: () => syncConnection(),
    });
    election.start();
  } else if (!activeGM && election) {
    election.stop();
    election = null;
  }
  syncConnection();
}

function holdsConnection() {
  return !!game.user?.isGM && game.users?.activeGM?.id === game.user.id && !!election?.holds;
}

function newConnection() {
  const seconds = (/** @type {string} */ key, /** @type {number} */ fallback) => {
    const v = Number(setting(key));
    return Number.isFinite(v) && v > 0 ? v * 1000 : fallback;
  };
  return new BridgeConnection({
    url: String(setting("bridgeUrl") ?? "").trim(),
    token: String(setting("bridgeToken") ?? "").trim(),
    WebSocketImpl: globalThis.WebSocket,
    newId: newRequestId,
    heartbeatMs: seconds("heartbeatSeconds", 15000),
    requestTimeoutMs: seconds("requestTimeoutSeconds", 10000),
  });
}

function syncConnection({ rebuild = false } = {}) {
  if (!holdsConnection()) {
    if (connection) connection.stop(t("FRACAS.Conn.Elsewhere"));
    connection = null;
    renderStatus(null);
    return;
  }
  if (connection && !rebuild) return;
  connection?.stop(t("FRACAS.Conn.SettingsChanged"));
  connection = newConnection();
  connection.onStatus(onStatus);
  connection.start();
  renderStatus(connection.status);
  if (!setting("macrosInstalled")) installMacros();
}

/** @param {Status} status */
function onStatus(status) {
  renderStatus(status);
  const previous = lastState;
  lastState = status.state;
  if (status.state === previous) return;
  // One notification per episode: the first failure, a refusal, and the recovery.
  if (status.state === STATES.REFUSED || status.state === STATES.UNCONFIGURED) {
    troubled = true;
    ui.notifications?.error(t("FRACAS.Notify.Bridge", { state: describeState(status) }));
  } else if (status.state === STATES.RETRYING) {
    if (!troubled) ui.notifications?.warn(t("FRACAS.Notify.Bridge", { state: describeState(status) }));
    troubled = true;
  } else if (status.state === STATES.CONNECTED && troubled) {
    troubled = false;
    ui.notifications?.info(t("FRACAS.Notify.Connected"));
  }
}

/**
 * The small status light: GMs only; click to reconnect. It sits in the players list
 * (bottom left), above the names, where it covers nothing of Foundry's own UI; without
 * that list it floats at the top of the left column, clear of the scene controls.
 */
/** @param {Status|null} status */
function renderStatus(status) {
  if (!game.user?.isGM) return;
  let el = document.getElementById("fracas-status");
  if (!el) {
    const button = document.createElement("button");
    button.type = "button";
    el = button;
    el.id = "fracas-status";
    el.addEventListener("click", () => connection?.restart());
  }
  // Foundry re-renders the players list whenever a user joins or leaves (its contents are
  // replaced): the light is put back from the render hook (below), and here, wherever it is.
  const players = document.getElementById("players");
  if (players && el.parentElement !== players) players.prepend(el);
  else if (!players && !el.isConnected) document.body.append(el);
  const state = status?.state ?? "elsewhere";
  const text = status ? describeState(status) : t("FRACAS.Status.Elsewhere");
  el.className = `fracas-status fracas-${state}${el.parentElement?.id === "players" ? " fracas-in-players" : ""}`;
  el.dataset.state = state;
  el.textContent = t("FRACAS.Status.Label", { state: state === "elsewhere" ? t("FRACAS.Status.OtherGM") : state });
  el.title = t("FRACAS.Status.Title", { text }) + (connection ? `\n${t("FRACAS.Status.Reconnect")}` : "");
}

// ── the API ────────────────────────────────────────────────────────────────────────

const actions = createActions({
  vtt,
  connection: () => connection,
  newId: newRequestId,
  log: (error) => console.error("fracas |", error),
});

async function installMacros() {
  try {
    const made = [];
    for (const m of MACROS) {
      const exists = game.macros.find((macro) => macro.flags?.[MODULE_ID]?.macro === m.key);
      if (exists) continue;
      /** @type {any} the module's flag is its own */
      const data = {
        name: t(m.label), type: "script", img: m.img, command: m.command,
        flags: { [MODULE_ID]: { macro: m.key } },
      };
      await Macro.create(data);
      made.push(t(m.label));
    }
    await game.settings.set(MODULE_ID, "macrosInstalled", true);
    if (made.length) ui.notifications?.info(t("FRACAS.Notify.MacrosCreated", { names: made.join(", ") }));
    return made;
  } catch (error) {
    ui.notifications?.error(describeError(error));
    console.error("fracas |", error);
    return null;
  }
}

export const api = {
  ...actions,
  installMacros,
  /** The connection status ({state, detail, …}), or null when another GM's client holds it. */
  status: () => connection?.status ?? null,
  /** Drop the link and connect again now. */
  reconnect: () => (connection ? connection.restart() : syncConnection()),
  /** A raw bridge call (e.g. journal.get), with the same errors as the actions. */
  /**
   * @param {string} method
   * @param {Record<string, unknown>} [params]
   * @param {{timeoutMs?: number}} [options]
   */
  bridge: async (method, params, options) => {
    try {
      if (!connection) throw new Error(t("FRACAS.Error.Main02"));
      return await connection.call(method, params, options);
    } catch (error) {
      ui.notifications?.warn(describeError(error));
      return null;
    }
  },
};

/**
 * The token menu's "application": Foundry's settings window makes one (`new menu.type()`) and
 * renders it; it asks for the token in a dialog and keeps it in this browser. A player never
 * gets here (the menu is restricted); should one, nothing is shown or saved.
 */
class TokenMenu {
  /** @param {unknown} [_options] */
  async render(_options) {
    try {
      if (!game.user?.isGM) return this;
      const DialogV2 = foundry.applications?.api?.DialogV2;
      if (!DialogV2) throw new Error(t("FRACAS.Error.Main01"));
      const current = String(setting(TOKEN_MENU.setting) ?? "");
      const content = `<p>${escapeText(t(`FRACAS.Settings.${TOKEN_MENU.key}.Hint`))}</p>`
        + `<label>${escapeText(t(`FRACAS.Settings.${TOKEN_MENU.setting}.Name`))} <input type="password" name="token" autocomplete="off" value="${escapeText(current).replace(/"/g, "&quot;")}"></label>`;
      const answer = await DialogV2.prompt({
        window: { title: t(`FRACAS.Settings.${TOKEN_MENU.key}.Name`) }, content, rejectClose: false,
        ok: { label: t(`FRACAS.Settings.${TOKEN_MENU.key}.Save`),
          callback: (_event, button) => String(new FormData(button.form ?? undefined).get("token") ?? "") },
      });
      if (typeof answer === "string") await game.settings.set(MODULE_ID, /** @type {any} the module's own setting */ (TOKEN_MENU.setting), answer.trim());
    } catch (error) {
      ui.notifications?.error(describeError(error));
      console.error("fracas |", error);
    }
    return this;
  }
}

// ── hooks ──────────────────────────────────────────────────────────────────────────

const TYPES = { string: String, boolean: Boolean, number: Number, object: Object };

Hooks.once("init", () => {
  // Names and hints as translation keys: Foundry's settings window localizes them (the
  // translations load after init). Hidden settings are never shown and keep their text.
  const label = (/** @type {string} */ key, /** @type {"Name"|"Hint"} */ part, /** @type {string} */ text) => (SETTINGS.find((x) => x.key === key)?.config ? settingLabelKey(key, part) : text);
  for (const s of SETTINGS) {
    /** @type {any} a setting's registration (its type is the value's constructor) */
    const config = {
      name: label(s.key, "Name", s.name), hint: label(s.key, "Hint", s.hint), scope: s.scope, config: s.config,
      type: TYPES[s.type], default: s.default,
    };
    if (s.choices) {
      config.choices = Object.fromEntries(Object.entries(s.choices).map(([value, text]) => {
        return [value, settingChoiceKey(s.key, value)];
      }));
    }
    if (CONNECTION_KEYS.includes(s.key)) config.onChange = () => syncConnection({ rebuild: true });
    game.settings.register(MODULE_ID, /** @type {any} one of SettingConfig's keys (types/foundry.d.ts) */ (s.key), config);
  }
  // The token: a restricted menu (GMs only), never a field of the settings window (settings.js).
  game.settings.registerMenu(MODULE_ID, TOKEN_MENU.key, /** @type {any} a menu whose type renders a dialog, not a FormApplication */ ({
    name: `FRACAS.Settings.${TOKEN_MENU.key}.Name`, label: `FRACAS.Settings.${TOKEN_MENU.key}.Label`,
    hint: `FRACAS.Settings.${TOKEN_MENU.key}.Hint`, icon: TOKEN_MENU.icon, type: TokenMenu, restricted: TOKEN_MENU.restricted,
  }));
  const module = /** @type {any} the module's api is its own */ (game.modules.get(MODULE_ID));
  if (module) module.api = api;
  game.keybindings?.register(MODULE_ID, "attack", {
    name: "FRACAS.Keybinding.Attack", hint: "FRACAS.Keybinding.AttackHint",
    editable: [{ key: "KeyF", modifiers: ["Shift"] }],
    onDown: () => {
      api.attackDialog();
      return true;
    },
  });

  /**
   * @param {ChatMessage} message
   * @param {unknown} html  v13: an HTMLElement; v12: a jQuery object
   */
  const onRender = (message, html) => {
    try {
      let flags = message?.flags?.[MODULE_ID];
      const first = /** @type {ArrayLike<unknown>|null|undefined} */ (html)?.[0];
      const root = html instanceof HTMLElement ? html : first instanceof HTMLElement ? first : null;
      if (!flags || !root) return;
      // A ledger is data, not something to read: it stays out of the chat log.
      if (flags.kind === "ledger") {
        root.hidden = true;
        return;
      }
      // A GM sees the Body values, kept in the card's GM-only ledger.
      if (game.user?.isGM && flags.ledger) {
        const changes = game.messages.get(flags.ledger)?.flags?.[MODULE_ID]?.changes;
        if (Array.isArray(changes)) flags = { ...flags, changes };
      }
      decorateCard(root, flags, {
        isGM: !!game.user?.isGM,
        onUndo: () => api.undo(message.id),
        onApply: (targetId, multiplier) => api.applyTarget(message.id, targetId, multiplier),
        onUndoTarget: (targetId) => api.undoTarget(message.id, targetId),
        onVary: () => api.forecastVary(String(message.id)),
        onShare: () => api.forecastShare(message.id),
      });
    } catch (error) {
      console.error("fracas |", error);
    }
  };
  // v13 passes an HTMLElement to renderChatMessageHTML and deprecates renderChatMessage.
  if ((game.release?.generation ?? 12) >= 13) Hooks.on("renderChatMessageHTML", onRender);
  else Hooks.on("renderChatMessage", onRender);
});

// Buttons among the token controls, and a key (Shift+F by default), open the attack dialog; the
// second button the dialog of the kinds the bridge rolls (save, touch, drop, lock, throw: it asks which).
Hooks.on("getSceneControlButtons", (/** @type {any} v12: an array; v13: records */ controls) => {
  const tools = [
    { tool: { name: "fracasAttack", title: "FRACAS.Controls.Attack", icon: "fa-solid fa-dice-d20", button: true }, run: () => api.attackDialog() },
    { tool: { name: "fracasBridged", title: "FRACAS.Controls.Bridged", icon: "fa-solid fa-shield-halved", button: true }, run: () => api.bridgedDialog() },
  ];
  for (const { tool, run } of tools) {
    if (Array.isArray(controls)) {
      // v12: an array of controls, each with an array of tools.
      controls.find((c) => c.name === "token")?.tools.push({ ...tool, onClick: run });
    } else if (controls?.tokens?.tools) {
      // v13: records keyed by name; a button tool runs onChange.
      controls.tokens.tools[tool.name] = { ...tool, order: Object.keys(controls.tokens.tools).length + 1, onChange: run };
    }
  }
});

// The combat tracker gets, for GMs, a "fracas forecast" button (the fight on the map, played many
// times over: api.forecast) and, with a combat, a "fracas round" button (the next round of the
// fight on the bridge). The render hook of an application fires for its class and each parent
// class: v13's CombatTracker is an ApplicationV2 (foundry.applications.sidebar.tabs.CombatTracker,
// https://foundryvtt.com/api/classes/foundry.applications.sidebar.tabs.CombatTracker.html), whose
// "renderCombatTracker" hands over (application, element: HTMLElement, context, options)
// (https://foundryvtt.com/api/functions/hookEvents.renderApplicationV2.html; foundry-vtt-types 13.x
// src/foundry/client/hooks.d.mts l. 866-868); v12's CombatTracker is an Application (v1), whose
// hook hands over (application, html: jQuery, data)
// (https://foundryvtt.com/api/functions/hookEvents.renderApplication.html; hooks.d.mts l. 831-835).
// v13 renders the tracker from the parts header, tracker and footer (core
// client/applications/sidebar/tabs/combat-tracker.mjs, `static PARTS`, a stored public copy), the
// header a <header class="combat-tracker-header">; the buttons go to the first of the controls
// or the header, and each render puts them back (a re-render replaces the parts' contents).
Hooks.on("renderCombatTracker", (/** @type {any} the tracker application (unused; v12 and v13 render different classes) */ _app, /** @type {any} v12: jQuery; v13: HTMLElement */ html) => {
  try {
    if (!game.user?.isGM) return;
    const root = html instanceof HTMLElement ? html : html?.[0];
    if (!(root instanceof HTMLElement)) return;
    const where = root.querySelector(".combat-controls, nav.combat-controls, .encounter-controls, header");
    if (!where) return;
    /**
     * @param {string} cls
     * @param {string} label
     * @param {string} title
     * @param {() => unknown} action
     */
    const add = (cls, label, title, action) => {
      if (root.querySelector(`.${cls}`)) return;
      const button = document.createElement("button");
      button.type = "button";
      button.className = cls;
      button.textContent = label;
      button.title = title;
      button.addEventListener("click", (event) => {
        event.preventDefault();
        action();
      });
      where.append(button);
    };
    add("fracas-forecast-button", t("FRACAS.Forecast.Button"), t("FRACAS.Forecast.ButtonTitle"), () => api.forecast());
    if (game.combat) add("fracas-round-button", t("FRACAS.Round.Button"), t("FRACAS.Round.ButtonTitle"), () => api.round());
  } catch (error) {
    console.error("fracas |", error);
  }
});

Hooks.once("ready", () => {
  game.socket?.on(SOCKET, (/** @type {any} what another client sent: onSocket checks every field */ message, /** @type {string} */ senderId) => {
    onSocket(message, senderId).catch((error) => console.error("fracas |", error));
  });
  // A closing tab hands the bridge over at once (the others would wait for its beacon otherwise).
  globalThis.addEventListener?.("pagehide", () => election?.stop());
  syncElection();
});

// The players list is re-rendered when users join or leave, its old contents thrown away: the
// light goes back in on every render. ApplicationV2#render calls `render${name}` for the class
// and each parent: v13's Players (foundry.applications.ui.Players, foundry-vtt-types 13.x
// client-esm/applications/ui/players.d.mts) → "renderPlayers"; v12's PlayerList (an
// Application) → "renderPlayerList".
for (const hook of ["renderPlayers", "renderPlayerList"]) {
  Hooks.on(/** @type {any} a render hook of the players list (v12 or v13) */ (hook), () => {
    try {
      renderStatus(connection?.status ?? null);
    } catch (error) {
      console.error("fracas |", error);
    }
  });
}

// The active GM changes when GMs join or leave: the connection follows it.
Hooks.on("userConnected", () => syncElection());
