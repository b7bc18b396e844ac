// What every action shares: the VTT adapter and the connection, settings and data paths,
// the guard that turns a failure into one notification, token lookups, and the card
// flags; with the GM's words for a bridge error's path. The actions themselves are one
// module per feature in this folder, composed by ../actions.js (createActions).

import { effectiveRollMode, gmOnly } from "../audience.js";
import { planDamage } from "../damage.js";
import { BridgeError, ConnectionError, FracasError, InputError, describeError } from "../errors.js";
import { t } from "../i18n.js";
import { normalizeSeed } from "../jsonrpc.js";
import { getPath } from "../paths.js";
import { MODULE_ID, readMapping } from "../settings.js";
import { word } from "../words.js";

/** @typedef {import("../actions.js").TokenView} TokenView */
/** @typedef {import("../actions.js").Json} Json */
/** @typedef {import("../actions.js").Flags} Flags */
/** @typedef {import("../actions.js").Vtt} Vtt */
/** @typedef {import("../actions.js").Answer} Answer */
/** @typedef {import("../actions.js").Post} Post */
/** @typedef {import("../actions.js").Change} Change */

/**
 * Names for the chat card: token names, numbered when two targets share one.
 * @param {{id: string, name?: string}[]} views
 */
export function displayNames(views) {
  /** @type {Record<string, number>} */
  const counts = {};
  for (const v of views) counts[String(v.name)] = (counts[String(v.name)] ?? 0) + 1;

  /** @type {Record<string, number>} */
  const seen = {};

  /** @type {Record<string, string>} */
  const names = {};
  for (const v of views) {
    const name = String(v.name);
    if (counts[name] > 1) {
      seen[name] = (seen[name] ?? 0) + 1;
      names[v.id] = `${v.name} #${seen[name]}`;
    } else {
      names[v.id] = v.name ?? v.id;
    }
  }
  return names;
}

/**
 * "melee slashing" in the user's language: a strike's method and style, for lists of attacks.
 * @param {Json|null} s
 */
export const strikeWords = (s) => [s?.method && word("Method", s.method), s?.style && word("Style", s.style)].filter(Boolean).join(" ");

/**
 * Where a bridge error points, in the GM's words: "$.params.strikes[1].dice" is
 * "strike 2, at Goblin"; "$.params.targets.<token id>.ac" is "target Goblin".
 * @param {unknown} path
 * @param {ExplainContext} [ctx]
 * @returns {string} a phrase, or "" when the path says nothing more
 */
export function explainPath(path, { strikes = [], names = {}, attackerName = "", profileNames = {} } = {}) {
  if (typeof path !== "string") return "";
  let m = /^\$\.params\.strikes\[(\d+)\]/.exec(path);
  if (m) {
    const strike = strikes[Number(m[1])];
    const n = Number(m[1]) + 1;
    return strike?.target && names[strike.target] ? t("FRACAS.Where.StrikeAt", { n, name: names[strike.target] }) : t("FRACAS.Where.Strike", { n });
  }
  m = /^\$\.params\.targets(?:\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\]|\\.)*)'\])/.exec(path);
  if (m) {
    const id = m[1] ?? m[2].replace(/\\(.)/g, "$1");
    return names[id] ? t("FRACAS.Where.Target", { name: names[id] }) : "";
  }
  m = /^\$\.params\.profiles(?:\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\]|\\.)*)'\])/.exec(path);
  if (m) {
    const id = m[1] ?? m[2].replace(/\\(.)/g, "$1");
    return profileNames[id] ? t("FRACAS.Where.Attackers", { name: profileNames[id] }) : "";
  }
  if (path.startsWith("$.params.attacker") && attackerName) return t("FRACAS.Where.Attacker", { name: attackerName });
  return "";
}

/**
 * @typedef {{strikes?: {target?: string}[], names?: Record<string, string>, attackerName?: string,
 *   profileNames?: Record<string, string>}} ExplainContext
 */

/**
 * Add the GM's words for a bridge error's path to its message.
 * @param {unknown} error
 * @param {ExplainContext} ctx
 */
export function explained(error, ctx) {
  if (error instanceof BridgeError) {
    const where = explainPath(error.path, ctx);
    if (where) error.message = `${error.message} [${where}]`;
  }
  return error;
}

/**
 * What one feature calls of another (as ctx.<name>, when it runs): typed here, so that
 * no feature's type depends on another's.
 * @typedef {object} Features
 * @property {(changes: Change[], card: Post) => Promise<{id?: string|null}|null|undefined>} applyAndPost
 * @property {(options?: Json) => Promise<any>} attack  (any: a player's answer, or {requestId, result, …} with the engine's JSON)
 * @property {(options?: Json) => Promise<any>} odds
 * @property {(options?: Json) => Promise<any>} mob
 * @property {(options?: Json) => Promise<any>} initiative
 * @property {(options?: Json) => Promise<any>} compete
 * @property {(options?: Json) => Promise<any>} impale
 * @property {(options?: Json) => Promise<any>} round
 * @property {() => Promise<any>} roundUndo
 * @property {(options?: Json) => Promise<any>} forecast
 * @property {(messageId: string, choice: Json) => Promise<any>} forecastVary
 * @property {(messageId: string) => Promise<Json|null>} askVary
 * @property {(messageId: string) => Promise<any>} forecastShare
 * @property {(messageId: string) => Promise<unknown>} undo
 * @property {(messageId: string, targetId: string, multiplier?: number) => Promise<unknown>} applyTarget
 * @property {(messageId: string, targetId: string) => Promise<unknown>} undoTarget
 * @property {(options: Json) => Promise<Answer>} playerAttack
 * @property {(options: Json) => Promise<Answer>} playerMob
 * @property {(options: Json) => Promise<Answer>} playerOdds
 * @property {(action: string, data: Json) => Promise<Answer>} relay
 * @property {(view: TokenView|null|undefined) => {id: string, name: string, strikes: unknown[]}[]} weaponsOf
 * @property {(view: TokenView, ref: unknown) => Json[]} itemStrikes
 * @property {(attacker: TokenView, request: Json) => Json[]} ownAttack
 * @property {(view: TokenView) => string} describeAttacks
 * @property {(attacker: TokenView, targets: TokenView[], options: Json) => Record<string, TokenView[]>|undefined} sceneBystanders
 * @property {(name: string, fn: (...args: any[]) => Promise<unknown>) => (...args: any[]) => Promise<unknown>} viaHolder
 *   (any[]: each action's own arguments, passed on as they are)
 * @property {Record<string, (o: Json) => Promise<unknown>>} RELAYED
 * @property {(message: any, senderId: unknown) => Promise<Answer|null>} answerRequest  (any: what another client sent)
 * @property {() => Promise<unknown>} attackDialog
 * @property {() => Promise<unknown>} mobDialog
 * @property {(kind: string, options?: Json) => Promise<any>} bridged  a kind the bridge rolls (kinds.js)
 * @property {(kind?: string) => Promise<unknown>} bridgedDialog
 * @property {(kind: string, request: any, senderId: string, bridgeId: string) => Promise<Answer>} resolvePlayerBridged
 *   (any: what another client sent)
 * @property {(flags: {statuses?: unknown}) => Promise<{removed: string[], failed: string[]}>} undoStatuses
 * @property {(key: string, data?: Record<string, string|number>) => Answer} refusal
 */
/**
 * The context every feature module gets: the shared helpers below and, once
 * createActions has composed them, every feature's actions.
 * @typedef {ReturnType<typeof makeContext> & Features} Ctx
 */

/**
 * The shared part of the actions over an adapter and the connection.
 * @param {object} deps
 * @param {Vtt} deps.vtt
 * @param {() => import("../connection.js").BridgeConnection|null} deps.connection
 *   the live connection, or null when this client does not hold it
 * @param {() => string} deps.newId
 * @param {(error: unknown) => void} [deps.log]
 * @param {() => number} [deps.now]  the clock the per-player rate limit reads (ms)
 * @param {import("../damage.js").ActorQueue} [deps.queue]  the per-actor damage queue (one per client)
 */
export function makeContext(deps) {
  const { vtt, connection, newId, log = () => {} } = deps;
  const mapping = () => readMapping((key) => vtt.setting(key));
  const setting = (/** @type {string} */ key) => vtt.setting(key);

  /**
   * Run `fn`; on failure notify the GM, log, and resolve null instead of throwing.
   * @template {unknown[]} A
   * @template R
   * @param {(...args: A) => Promise<R>} fn
   * @returns {(...args: A) => Promise<R|null>}
   */
  const guarded = (fn) => async (...args) => {
    try {
      return await fn(...args);
    } catch (error) {
      vtt.notify(error instanceof FracasError ? "warn" : "error", describeError(error));
      if (!(error instanceof FracasError)) log(error);
      return null;
    }
  };

  /** @param {string} what  the action (FRACAS.GMOnly.<what>) */
  function requireGM(what) {
    if (!vtt.isGM()) throw new InputError(t("FRACAS.Error.Actions01", { what: t(`FRACAS.GMOnly.${what}`) }));
  }
  function link() {
    const conn = connection();
    if (!conn) {
      throw new ConnectionError(t("FRACAS.Error.Actions02"));
    }
    return conn;
  }

  /** @param {Json} options */
  function seedOption(options) {
    const seed = normalizeSeed(options.seed);
    if (seed === null) throw new InputError(t("FRACAS.Error.Actions03", { p0: String(options.seed) }));
    return seed;
  }

  /**
   * Token refs as views, on `scene` (a player's scene, by id) or else the canvas's.
   * @param {unknown} refs
   * @param {string} label
   * @param {string} [scene]
   * @returns {TokenView[]|undefined}
   */
  function viewsOf(refs, label, scene = undefined) {
    if (refs === undefined) return undefined;
    const list = Array.isArray(refs) || refs instanceof Set ? [...refs] : [refs];
    return list.map((ref) => {
      const view = vtt.toView(ref, scene);
      if (!view) throw InputError.of("FRACAS.Error.Actions04", { label, p1: JSON.stringify(typeof ref === "string" ? ref : /** @type {{id?: unknown}|null} */ (ref)?.id ?? String(ref)) });
      return view;
    });
  }
  const numberAt = (/** @type {unknown} */ doc, /** @type {string|null|undefined} */ path) => {
    if (!path) return undefined;
    const raw = getPath(doc, path);
    const n = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
    return typeof n === "number" && Number.isFinite(n) ? n : undefined;
  };

  /**
   * @param {string} kind
   * @param {string} requestId
   * @param {unknown} seed
   * @param {object[]} changes
   * @param {Flags["targets"]} [targets]
   * @param {number|null} [total]
   * @returns {Record<string, Flags>}
   */
  function cardFlags(kind, requestId, seed, changes, targets = [], total = null) {
    return { [MODULE_ID]: { kind, requestId, seed, total, changes, targets, undone: null } };
  }

  /**
   * The card's targets as kept in its flags: what each may take (per-target buttons).
   * @param {import("../chat.js").CardModel} model
   * @param {TokenView[]} used
   */
  function flagTargets(model, used) {
    /** @type {{id: string, name: string, damage: number}[]} */
    const list = model.targets;
    return list.filter((t) => t.damage > 0).map((t) => {
      const view = used.find((v) => v.id === t.id);
      return { id: t.id, name: t.name, uuid: view?.actorUuid ?? null, damage: t.damage };
    });
  }

  /** The attacker: `options.attacker` (a token, its id or name), or the one controlled token. */
  /**
   * @param {Json} options
   * @returns {TokenView}
   */
  function attackerOf(options) {
    if (options.attacker !== undefined) return firstOf(options.attacker, "attacker", options.scene);
    const controlled = vtt.controlled();
    if (controlled.length !== 1) throw new InputError(t("FRACAS.Notify.OneAttacker", { count: controlled.length }));
    return controlled[0];
  }

  /**
   * The view of a single ref (viewsOf refuses one it cannot find).
   * @param {unknown} ref
   * @param {string} label
   * @param {string} [scene]
   * @returns {TokenView}
   */
  function firstOf(ref, label, scene = undefined) {
    const [view] = viewsOf(ref, label, scene) ?? [];
    if (!view) throw InputError.of("FRACAS.Error.Actions04", { label, p1: JSON.stringify(String(ref)) });
    return view;
  }

  /**
   * The one controlled token, or `ref` (a token, its id or name).
   * @param {unknown} ref
   * @param {string} label
   * @returns {TokenView}
   */
  function oneToken(ref, label) {
    if (ref !== undefined) return firstOf(ref, label);
    const controlled = vtt.controlled();
    if (controlled.length !== 1) throw new InputError(t("FRACAS.Error.Actions17", { label, length: controlled.length }));
    return controlled[0];
  }

  /**
   * The Body changes of `damageById` on `targets`, to apply with the card (none when
   * damage is not applied).
   * @param {boolean} apply
   * @param {TokenView[]} targets
   * @param {Record<string, number>} damageById
   */
  function planChanges(apply, targets, damageById) {
    return apply ? planDamage({ targets, damageById, path: mapping().body, floorAtZero: setting("floorBodyAtZero") !== false }) : [];
  }

  /**
   * A card model's damage by target id.
   * @param {import("../chat.js").CardModel} model  (its targets: {id, damage}[])
   */
  const damageOf = (model) => /** @type {Record<string, number>} */ (Object.fromEntries(model.targets.map((/** @type {{id: string, damage: number}} */ x) => [x.id, x.damage])));

  /**
   * Who a card is for (audience.js): the roll mode of the user who asked (a player's request
   * says its own; the GM's is this client's core.rollMode) with the world setting "Results in
   * chat" applied, and the player who asked (null for the GM's own).
   * @param {Json} options
   * @returns {{rollMode: string, requester: string|null, gmRequester: boolean}}
   */
  function audienceOf(options) {
    const requester = typeof options?.requester === "string" ? options.requester : null;
    const asked = options?.rollMode ?? (requester ? "publicroll" : vtt.rollMode?.());
    // A GM-role user on another tab (relayed): its own roll mode, seen as a GM's (audience.js gmOnly).
    const gmRequester = !!requester && vtt.userIsGM?.(requester) === true;
    return { rollMode: effectiveRollMode(asked, setting("chatVisibility")), requester, gmRequester };
  }

  /**
   * The names players may read on a card, or null when they may read every one: a hidden token
   * is "someone unseen" (the GM's, README: Bystanders), a token whose nameplate players do not
   * see (TokenView#unnamed: its display mode, audience.js othersSeeName) "an unnamed creature",
   * numbered when a card has several.
   * @param {(TokenView|null|undefined)[]} views  everyone the card names
   * @param {Record<string, string>} names  the GM's names by token id
   * @returns {Record<string, string>|null}
   */
  function shownNames(views, names) {
    /** @type {Map<string, TokenView>} */
    const byId = new Map();
    for (const v of views) if (v?.id && !byId.has(v.id)) byId.set(v.id, v);
    const unnamed = [...byId.values()].filter((v) => !v.hidden && v.unnamed);
    if (!unnamed.length && ![...byId.values()].some((v) => v.hidden)) return null;
    const out = { ...names };
    let n = 0;
    for (const v of byId.values()) {
      if (v.hidden) out[v.id] = t("FRACAS.Card.Unseen");
      else if (v.unnamed) out[v.id] = unnamed.length > 1 ? t("FRACAS.Card.UnnamedN", { n: ++n }) : t("FRACAS.Card.Unnamed");
    }
    return out;
  }

  /**
   * Post a card whose players' copy differs (names masked, hidden members left out): the GM's
   * card whole, to the GMs only (with its buttons and ledger), and `copy` to whoever the roll
   * mode gives the card. Without a copy, or when only GMs see the card anyway, the one card.
   * @param {Change[]} changes
   * @param {Post} card
   * @param {{content: string, rolls: any[], speaker?: TokenView|null, kind: string}|null} copy
   */
  async function postWithCopy(changes, card, copy) {
    const everyone = !gmOnly(card.rollMode ?? "publicroll", card.requester ?? null, card.gmRequester ?? false);
    // The features (applying.js's applyAndPost among them) are added to this same object.
    const ctx = /** @type {Ctx} */ (/** @type {unknown} */ (self));
    if (!copy || !everyone) return ctx.applyAndPost(changes, card);
    const message = await ctx.applyAndPost(changes, { ...card, whisperToGM: true });
    await vtt.postCard({
      content: copy.content, rolls: copy.rolls, flags: { [MODULE_ID]: { kind: `${copy.kind}-public`, requestId: card.flags?.[MODULE_ID]?.requestId } },
      speaker: copy.speaker ?? null, whisperToGM: false, rollMode: card.rollMode, requester: card.requester, gmRequester: card.gmRequester,
    });
    return message;
  }

  /**
   * A token as the speaker of the players' copy: its masked name, and no token or actor to
   * look up (postCard builds such a speaker from the alias alone).
   * @param {TokenView} view
   * @param {Record<string, string>|null} masked  shownNames' answer
   * @returns {TokenView}
   */
  const speakerAs = (view, masked) => (masked && masked[view.id] !== undefined && (view.hidden || view.unnamed)
    ? { id: view.id, name: masked[view.id], masked: true } : view);

  const self = { vtt, connection, newId, log, deps, planChanges, damageOf, mapping, setting, guarded, requireGM, link, seedOption, viewsOf, numberAt, cardFlags, flagTargets, attackerOf, firstOf, oneToken, audienceOf, shownNames, postWithCopy, speakerAs };
  return self;
}
