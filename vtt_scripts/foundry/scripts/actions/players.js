// Requests from other clients (players, and GMs whose tab does not hold the bridge),
// answered by the holding client, and a player's own attack sent there.

import { ROLL_MODES } from "../audience.js";
import { FracasError, InputError, errorText } from "../errors.js";
import { t } from "../i18n.js";
import { KINDS } from "../kinds.js";
import { uniqueViews, who } from "../request.js";
import { DEFAULT_RULESET } from "../rulesets.js";

/** @typedef {import("../actions.js").TokenView} TokenView */
/** @typedef {import("../actions.js").Json} Json */
/** @typedef {import("../actions.js").Answer} Answer */

/**
 * What one user may ask of the holding client: a request of at most `maxBytes` of JSON,
 * `maxTargets` targets, a mob of `maxMob` tokens, `perWindow` requests in `windowMs`, `inFlight` at once.
 */
export const LIMITS = Object.freeze({ maxBytes: 4096, maxTargets: 8, maxMob: 48, perWindow: 5, windowMs: 10000, inFlight: 2 });

/**
 * The players actions over the shared context (context.js).
 * @param {import("./context.js").Ctx} ctx
 */
export function playersActions(ctx) {
  const { vtt, deps, log, setting, viewsOf, attackerOf, firstOf } = ctx;

  // A player describes *which* attack, never its numbers: the attacking token, one of its
  // actor's own attacks (an item carrying flags.fracas.strikes, or an entry of the actor's
  // flags.fracas.strikes) and the targets. The holding GM's client reads every number
  // (dice, bonus, weight, crit range, attacker and target data) from the actors, takes the
  // ruleset from the world setting, and refuses anything else, unless the GM has turned
  // on free-form player attacks. Limits on size, targets and rate are checked first,
  // before anything is looked up or sent.

  /** What a free-form player request may carry (only when the GM allows free-form attacks). */
  const FREE_FORM_OPTIONS = ["strikes", "advantage", "disadvantage", "ruleset", "attackerData", "targetData", "nearby", "flee", "grappling"];
  /** What a player's mob may carry only with free-form attacks on. */
  const MOB_FREE_FORM = ["strikes", "advantage", "disadvantage", "ruleset", "attackerData", "targetData"];
  const now = deps.now ?? (() => Date.now());

  /** @type {Map<string, number[]>} user id → when its recent requests arrived */
  const recent = new Map();

  /** @type {Map<string, number>} user id → requests being worked on */
  const busy = new Map();

  /** @type {Map<string, Promise<Answer>>} "user:request id" → its answer (a resent request gets the same) */
  const answered = new Map();

  /**
   * The strikes of a player's attack or odds request, into `options`: the request's own
   * fields when the GM allows free-form attacks, else the token's own attacks at each target
   * (numbers from the actors, the ruleset from the world setting).
   * @param {Record<string, any>} request
   * @param {TokenView} attacker
   * @param {TokenView[]} targets
   * @param {Record<string, any>} options
   * @returns {Answer | null} the refusal when free-form fields come without the GM's leave
   */
  function chooseStrikes(request, attacker, targets, options) {
    const extra = FREE_FORM_OPTIONS.filter((k) => request[k] !== undefined);
    if (extra.length && setting("playerFreeForm") !== true) return refusal("FRACAS.Player.FreeFormOff", { fields: extra.join(", ") });
    if (extra.length) {
      for (const key of extra) options[key] = request[key];
      if (Array.isArray(options.nearby)) options.nearby = options.nearby.filter((/** @type {unknown} */ x) => typeof x === "string");
    } else {
      const list = ctx.ownAttack(attacker, request);
      options.ruleset = setting("ruleset") || DEFAULT_RULESET;
      options.strikes = targets.flatMap((tv) => list.map((st) => ({ ...st, target: tv.id })));
    }
    return null;
  }

  /**
   * What a player's own attack or odds names, checked on the player's client: a token the
   * player owns, the targets, and free-form fields only when the GM allows them.
   * @param {Json} options
   * @returns {{attacker: TokenView, targets: TokenView[], extra: string[]}}
   */
  function playerAim(options) {
    const attacker = attackerOf(options);
    if (!vtt.ownsToken(attacker)) throw new InputError(t("FRACAS.Notify.NotYourToken"));
    const targets = uniqueViews(viewsOf(options.targets, "targets") ?? vtt.targeted());
    if (!targets.length) throw new InputError(t("FRACAS.Notify.NoTargets"));
    const extra = FREE_FORM_OPTIONS.filter((key) => options[key] !== undefined);
    if (extra.length && setting("playerFreeForm") !== true) throw new InputError(t("FRACAS.Player.FreeFormOff", { fields: extra.join(", ") }));
    return { attacker, targets, extra };
  }

  /**
   * The request a player's client sends for `attack(options)`: ids and the choice of attack.
   * @param {Json} options
   * @param {TokenView} attacker
   * @param {TokenView[]} targets
   * @returns {Json}
   */
  function playerRequest(options, attacker, targets) {
    /** @type {Record<string, any>} */
    const request = { attacker: attacker.id, targets: targets.map((v) => v.id) };
    const scene = vtt.sceneId?.();
    if (scene) request.scene = scene;
    if (options.item !== undefined) request.item = String(options.item?.id ?? options.item);
    if (options.strike !== undefined) request.strike = options.strike;
    // The player's chat roll mode (core.rollMode): the GM's client posts the card as the
    // player would have (audience.js), the world setting applied on top.
    const rollMode = options.rollMode ?? vtt.rollMode?.();
    if (typeof rollMode === "string") request.rollMode = rollMode;
    if (setting("playerFreeForm") === true) {
      for (const key of FREE_FORM_OPTIONS) if (options[key] !== undefined) request[key] = options[key];
      if (Array.isArray(request.nearby)) request.nearby = (viewsOf(request.nearby, "nearby") ?? []).map((v) => v.id);
    } else {
      const extra = FREE_FORM_OPTIONS.filter((key) => options[key] !== undefined);
      if (extra.length) throw new InputError(t("FRACAS.Player.FreeFormOff", { fields: extra.join(", ") }));
    }
    return request;
  }

  /**
   * A player's attack: only the holding GM client reaches the bridge, so the request goes
   * there (vtt.askGM: Foundry's module socket, whose server names the sender) and that
   * client checks the sender owns the attacker, resolves it from the actors' own data,
   * applies the damage and posts the card. The player gets the outcome, or a clear message.
   * @param {Json} options
   */
  async function playerAttack(options) {
    if (options.seed !== undefined || options.rolls !== undefined) {
      throw new InputError(t("FRACAS.Player.NoDice"));
    }
    const { attacker, targets, extra } = playerAim(options);
    if (options.item === undefined && options.strike === undefined && setting("playerFreeForm") !== true) {
      throw new InputError(t("FRACAS.Player.PickAttack", { name: who(attacker), attacks: ctx.describeAttacks(attacker) }));
    }
    return relay("attack", playerRequest(options, attacker, targets));
  }

  /**
   * A player's mob of its own tokens (summons, familiars, hirelings), when the GM allows it
   * (the world setting "Players' mobs", as Mob Attack Tool's `playerAccess`): the controlled
   * tokens (or `attackers`), every one the player's, at the targets. The player chooses the
   * tokens, the targets and `assign`; each actor's strikes and numbers are the GM's data
   * (flags.fracas.strikes), read on the holding GM client, which checks all of it again.
   * @param {Json} options
   */
  async function playerMob(options) {
    if (setting("playerMobs") !== true) throw new InputError(t("FRACAS.Player.MobsOff"));
    if (options.seed !== undefined || options.rolls !== undefined) throw new InputError(t("FRACAS.Player.NoDice"));
    const attackers = uniqueViews(viewsOf(options.attackers, "attackers") ?? vtt.controlled());
    if (!attackers.length) throw new InputError(t("FRACAS.Error.Request17"));
    const notMine = attackers.find((v) => !vtt.ownsToken(v));
    if (notMine) throw new InputError(t("FRACAS.Notify.NotYourToken"));
    const targets = uniqueViews(viewsOf(options.targets, "targets") ?? vtt.targeted());
    if (!targets.length) throw new InputError(t("FRACAS.Notify.NoTargets"));
    /** @type {Record<string, any>} */
    const request = { attackers: attackers.map((v) => v.id), targets: targets.map((v) => v.id) };
    const scene = vtt.sceneId?.();
    if (scene) request.scene = scene;
    if (options.assign !== undefined) request.assign = options.assign;
    const rollMode = options.rollMode ?? vtt.rollMode?.();
    if (typeof rollMode === "string") request.rollMode = rollMode;
    const extra = MOB_FREE_FORM.filter((key) => options[key] !== undefined);
    if (extra.length && setting("playerFreeForm") !== true) throw new InputError(t("FRACAS.Player.FreeFormOff", { fields: extra.join(", ") }));
    for (const key of extra) request[key] = options[key];
    return relay("mob", request);
  }

  /**
   * A player's "what are my odds?" (as Roll20's `!fracas odds`): the attack `attack(options)`
   * would make with the player's own token, its odds computed through the holding GM client;
   * nothing is rolled. Returns {result, messageId}; the card goes to the player and the GMs.
   * @param {Json} options
   */
  async function playerOdds(options) {
    const { attacker, targets, extra } = playerAim(options);
    if (options.item === undefined && options.strike === undefined && !extra.length) {
      throw new InputError(t("FRACAS.Player.PickAttack", { name: who(attacker), attacks: ctx.describeAttacks(attacker) }));
    }
    const request = playerRequest(options, attacker, targets);
    delete request.rollMode; // odds are the asker's own: to the player and the GMs
    if (options.count !== undefined) request.count = options.count;
    if (options.atLeast !== undefined) request.atLeast = options.atLeast;
    return relay("odds", request);
  }

  /**
   * Send a request to the holding client and turn its answer into a result or an error.
   * @param {string} action
   * @param {Json} data
   * @returns {Promise<Answer>}
   */
  async function relay(action, data) {
    const answer = await vtt.askGM(action, data);
    if (!answer || answer.error) throw new FracasError(refusalText(answer) ?? t("FRACAS.Player.NoAnswer"));
    return answer;
  }

  /**
   * A refusal for another client: the text in the holder's language, and its key and
   * data so the asking client says it in its user's language.
   * @param {string} key
   * @param {Record<string, string|number>} [data]
   * @returns {Answer}
   */
  function refusal(key, data = {}) {
    return { error: t(key, data), i18n: { key, data } };
  }

  /**
   * An answer's refusal in this user's language: its key when it is one of the module's
   * player messages (data: plain values only), else the text as sent.
   * @param {Answer|null|undefined} answer
   */
  function refusalText(answer) {
    const i18n = answer?.i18n;
    const data = i18n?.data;
    if (i18n && typeof i18n.key === "string" && /^FRACAS\.(Player|Notify|Error)\.[A-Za-z0-9]+$/.test(i18n.key) && data && typeof data === "object"
      && Object.values(data).every((v) => typeof v === "string" || typeof v === "number")) {
      const text = t(i18n.key, /** @type {Record<string, string|number>} */ (data));
      if (text !== i18n.key) return text;
    }
    return answer?.error ?? null;
  }

  /** Size, target count and rate limits for one sender; a refusal names the limit. */
  /**
   * @param {unknown} data
   * @param {string} senderId
   */
  function checkLimits(data, senderId) {
    let size;
    try {
      size = JSON.stringify(data).length;
    } catch {
      return refusal("FRACAS.Player.Malformed");
    }
    if (size > LIMITS.maxBytes) return refusal("FRACAS.Player.TooLarge", { size, max: LIMITS.maxBytes });
    const aimed = /** @type {{targets?: unknown}|null} */ (data)?.targets;
    if (Array.isArray(aimed) && aimed.length > LIMITS.maxTargets) {
      return refusal("FRACAS.Player.TooManyTargets", { count: aimed.length, max: LIMITS.maxTargets });
    }
    const at = now();
    const times = (recent.get(senderId) ?? []).filter((x) => at - x < LIMITS.windowMs);
    if (times.length >= LIMITS.perWindow) {
      recent.set(senderId, times);
      return refusal("FRACAS.Player.TooFast", { count: LIMITS.perWindow, seconds: LIMITS.windowMs / 1000 });
    }
    if ((busy.get(senderId) ?? 0) >= LIMITS.inFlight) return refusal("FRACAS.Player.Busy", { count: LIMITS.inFlight });
    times.push(at);
    recent.set(senderId, times);
    return null;
  }

  /**
   * The holding client's side of a request from another client (`senderId`: the user the
   * server says sent it). Players may only "attack"; a GM-role user (an assistant GM, or
   * another tab that does not hold the bridge) may run any action. A request resent with
   * the same id gets the first answer, without rolling or applying anything again.
   * @param {any} message  what another client sent: every field is checked here
   * @param {unknown} senderId
   * @returns {Promise<Answer|null>} the answer, or null when this client does not answer
   */
  async function answerRequest(message, senderId) {
    if (!vtt.isGM() || !vtt.holdsConnection()) return null; // the holder answers
    if (!message || typeof message !== "object" || typeof senderId !== "string") return null;
    const id = message.id;
    if (typeof id !== "string" || !/^[A-Za-z0-9-]{8,64}$/.test(id)) return refusal("FRACAS.Player.Malformed");
    const key = `${senderId}:${id}`;
    const known = answered.get(key);
    if (known) return known;
    // A resend after the answer was lost (or after another tab took over): the card says what happened.
    const bridgeId = `player-${senderId}-${id}`.slice(0, 120);
    const posted = vtt.findCard?.(bridgeId);
    if (posted) return { requestId: bridgeId, messageId: posted.id, total_damage: posted.total ?? null, resent: true };
    const refused = checkLimits(message.data, senderId);
    if (refused) return refused;
    busy.set(senderId, (busy.get(senderId) ?? 0) + 1);
    const work = (async () => {
      try {
        const fromGM = vtt.userIsGM?.(senderId) === true;
        if (message.action === "attack" && !fromGM) return await resolvePlayerAttack(message.data, senderId, bridgeId);
        if (message.action === "mob" && !fromGM) return await resolvePlayerMob(message.data, senderId, bridgeId);
        if (message.action === "odds" && !fromGM) return await resolvePlayerOdds(message.data, senderId, bridgeId);
        // A bridge-rolled kind (kinds.js: save, touch, drop, lock) with the player's own tokens.
        if (!fromGM && typeof message.action === "string" && Object.prototype.hasOwnProperty.call(KINDS, message.action)) {
          return await ctx.resolvePlayerBridged(message.action, message.data, senderId, bridgeId);
        }
        if (fromGM && typeof message.action === "string" && Object.prototype.hasOwnProperty.call(ctx.RELAYED, message.action)) {
          const data = message.data && typeof message.data === "object" && !Array.isArray(message.data) ? message.data : {};
          // The card goes where the asking GM-role user's own roll mode sends it (a self roll to
          // that user, not to this tab's); an unknown mode counts as public.
          const rollMode = typeof data.rollMode === "string" && ROLL_MODES.includes(data.rollMode) ? data.rollMode : "publicroll";
          const out = await ctx.RELAYED[message.action]({ ...data, requestId: data.requestId ?? bridgeId, requester: senderId, rollMode });
          return summarize(out);
        }
        return refusal("FRACAS.Player.Refused", { action: String(message.action) });
      } catch (error) {
        if (!(error instanceof FracasError)) log(error);
        // A player is not told the bridge's own (English, GM-only) detail, and reads a
        // message that has its key in the player's own language (refusalText).
        const forPlayers = vtt.userIsGM?.(senderId) !== true;
        const text = errorText(error, { forPlayers });
        return error instanceof FracasError && error.i18n ? { error: text, i18n: error.i18n } : { error: text };
      } finally {
        busy.set(senderId, (busy.get(senderId) ?? 1) - 1);
      }
    })();
    answered.set(key, work);
    // Keep the answers of the latest requests only (a resend comes within seconds; an
    // older one is answered from its card).
    const oldest = answered.keys().next().value;
    if (answered.size > 500 && oldest !== undefined) answered.delete(oldest);
    return work;
  }

  /**
   * What goes back over the socket: ids and totals, never the GM-only detail.
   * @param {any} out  an action's answer (its result: the engine's JSON)
   * @returns {Answer}
   */
  function summarize(out) {
    if (!out || typeof out !== "object") return { error: t("FRACAS.Error.Actions13") };
    return { requestId: out.requestId ?? null, messageId: out.messageId ?? null, total_damage: out.result?.total_damage ?? null };
  }

  /**
   * @param {any} request  a player's request: every field is checked here
   * @param {string} senderId
   * @param {string} bridgeId
   * @returns {Promise<Answer>}
   */
  async function resolvePlayerAttack(request, senderId, bridgeId) {
    if (!request || typeof request !== "object" || typeof request.attacker !== "string" || !Array.isArray(request.targets)) {
      return refusal("FRACAS.Player.Malformed");
    }
    // The scene is the one the server says the player is viewing, not one the request names
    // (a request could name the GM's other scenes); the request's only when Foundry does not say.
    const scene = vtt.userScene?.(senderId) ?? (typeof request.scene === "string" ? request.scene : undefined);
    const attacker = firstOf(request.attacker, "attacker", scene);
    if (!vtt.userOwnsToken(senderId, attacker)) return refusal("FRACAS.Notify.NotYourToken");
    if (!request.targets.every((/** @type {unknown} */ x) => typeof x === "string")) return refusal("FRACAS.Player.Malformed");
    const targets = uniqueViews(viewsOf(request.targets, "targets", scene) ?? []);
    // A hidden token is the GM's: to a player it is not there (named by the id they sent, never its name).
    const unseen = targets.find((v) => v.hidden);
    if (unseen) throw InputError.of("FRACAS.Error.Actions04", { label: "targets", p1: JSON.stringify(unseen.id) });
    if (!targets.length) return refusal("FRACAS.Notify.NoTargets");
    const rollMode = typeof request.rollMode === "string" && ROLL_MODES.includes(request.rollMode) ? request.rollMode : "publicroll";
    /** @type {Record<string, any>} */
    const options = { attacker: attacker.id, targets: targets.map((v) => v.id), scene, requestId: bridgeId, requester: senderId, rollMode };
    const refused = chooseStrikes(request, attacker, targets, options);
    if (refused) return refused;
    const out = await ctx.attack(options);
    // What the player's table saw: a hidden bystander's damage is not in it.
    // A blind roll: the player learns that it was made, not what it did.
    const blind = ctx.audienceOf(options).rollMode === "blindroll";
    return { requestId: out.requestId, messageId: out.messageId, total_damage: blind ? null : out.shownTotal ?? out.result.total_damage };
  }

  /**
   * The holder's side of a player's mob (playerMob): allowed by the world setting, every
   * attacker the sender's own token on the sender's scene, visible targets, at most
   * LIMITS.maxMob tokens; the strikes are each actor's own (the GM's data), the ruleset the
   * world's; the player's `assign` ("split" | "each") and roll mode are its choices.
   * @param {any} request  a player's request: every field is checked here
   * @param {string} senderId
   * @param {string} bridgeId
   * @returns {Promise<Answer>}
   */
  async function resolvePlayerMob(request, senderId, bridgeId) {
    if (setting("playerMobs") !== true) return refusal("FRACAS.Player.MobsOff");
    if (!request || typeof request !== "object" || !Array.isArray(request.attackers) || !Array.isArray(request.targets)
      || ![...request.attackers, ...request.targets].every((x) => typeof x === "string")) return refusal("FRACAS.Player.Malformed");
    if (!request.attackers.length) return refusal("FRACAS.Player.Malformed");
    if (request.attackers.length > LIMITS.maxMob) return refusal("FRACAS.Player.TooManyAttackers", { count: request.attackers.length, max: LIMITS.maxMob });
    if (request.assign !== undefined && request.assign !== "split" && request.assign !== "each") return refusal("FRACAS.Player.Malformed");
    const scene = vtt.userScene?.(senderId) ?? (typeof request.scene === "string" ? request.scene : undefined);
    const attackers = uniqueViews(viewsOf(request.attackers, "attackers", scene) ?? []);
    if (attackers.some((v) => !vtt.userOwnsToken(senderId, v))) return refusal("FRACAS.Notify.NotYourToken");
    const targets = uniqueViews(viewsOf(request.targets, "targets", scene) ?? []);
    const unseen = targets.find((v) => v.hidden);
    if (unseen) throw InputError.of("FRACAS.Error.Actions04", { label: "targets", p1: JSON.stringify(unseen.id) });
    if (!targets.length) return refusal("FRACAS.Notify.NoTargets");
    const rollMode = typeof request.rollMode === "string" && ROLL_MODES.includes(request.rollMode) ? request.rollMode : "publicroll";
    /** @type {Record<string, any>} */
    const options = { attackers: attackers.map((v) => v.id), targets: targets.map((v) => v.id), scene, requestId: bridgeId,
      requester: senderId, rollMode, ruleset: setting("ruleset") || DEFAULT_RULESET };
    if (request.assign !== undefined) options.assign = request.assign;
    const extra = MOB_FREE_FORM.filter((k) => request[k] !== undefined);
    if (extra.length && setting("playerFreeForm") !== true) return refusal("FRACAS.Player.FreeFormOff", { fields: extra.join(", ") });
    for (const key of extra) options[key] = request[key];
    const out = await ctx.mob(options);
    const blind = ctx.audienceOf(options).rollMode === "blindroll";
    return { requestId: out.requestId, messageId: out.messageId, total_damage: blind ? null : out.shownTotal ?? out.result.total_damage };
  }

  /**
   * The holder's side of a player's odds (playerOdds): the sender's own token and one of its
   * own attacks (or, with free-form attacks on, the player's strikes), visible targets; the
   * chance a target drops only for a token whose Body the player may read (one it owns), as
   * Roll20's odds give no P(drops) for a Body the GM keeps. Nothing is rolled; the card goes to
   * the player and the GMs, named as the player knows the tokens.
   * @param {any} request
   * @param {string} senderId
   * @param {string} bridgeId
   * @returns {Promise<Answer>}
   */
  async function resolvePlayerOdds(request, senderId, bridgeId) {
    if (!request || typeof request !== "object" || typeof request.attacker !== "string" || !Array.isArray(request.targets)
      || !request.targets.every((/** @type {unknown} */ x) => typeof x === "string")) return refusal("FRACAS.Player.Malformed");
    const scene = vtt.userScene?.(senderId) ?? (typeof request.scene === "string" ? request.scene : undefined);
    const attacker = firstOf(request.attacker, "attacker", scene);
    if (!vtt.userOwnsToken(senderId, attacker)) return refusal("FRACAS.Notify.NotYourToken");
    const targets = uniqueViews(viewsOf(request.targets, "targets", scene) ?? []);
    const unseen = targets.find((v) => v.hidden);
    if (unseen) throw InputError.of("FRACAS.Error.Actions04", { label: "targets", p1: JSON.stringify(unseen.id) });
    if (!targets.length) return refusal("FRACAS.Notify.NoTargets");
    const count = request.count ?? 1;
    if (!Number.isInteger(count) || count < 1 || count > 10000) return refusal("FRACAS.Player.Malformed");
    const atLeast = request.atLeast ?? [];
    if (!Array.isArray(atLeast) || atLeast.length > 8 || !atLeast.every((x) => Number.isInteger(x) && x >= 0 && x <= 100000)) return refusal("FRACAS.Player.Malformed");
    /** @type {Record<string, any>} */
    const options = { attacker: attacker.id, targets: targets.map((v) => v.id), scene, requestId: bridgeId, requester: senderId,
      count, atLeast: atLeast.length ? atLeast : undefined, readsBody: targets.filter((v) => vtt.userOwnsToken(senderId, v)).map((v) => v.id) };
    const refused = chooseStrikes(request, attacker, targets, options);
    if (refused) return refused;
    const out = await ctx.odds(options);
    return { requestId: bridgeId, messageId: out.messageId, result: out.result };
  }

  return { playerMob, playerOdds, resolvePlayerMob, resolvePlayerOdds, playerRequest, playerAttack, relay, refusal, refusalText, checkLimits, answerRequest, summarize, resolvePlayerAttack };
}
