// What the macro API does, step by step, against an injected VTT adapter (the edge
// in main.js implements it with Foundry documents; tests implement it with fakes).
//
// Every action checks its input and the sheets before sending anything, and writes
// to the world only after the bridge has answered: damage is applied all-or-none,
// and taken back if the chat card cannot be posted, so a failure leaves nothing
// half-applied. Failures become one notification naming the problem.

import {
  attackCardModel, attackRollSpecs, initiativeCardModel, initiativeRollSpecs, initiativeValues,
  mobCardModel, mobRollSpecs, renderAttackCard, renderCompeteCard, renderImpaleCard, renderInitiativeCard, renderMobCard,
  renderOddsCard, renderRoundCard, renderRulesetCard, renderSideInitiativeCard, roundRollSpecs, rulesetCardModel,
  competeRollSpecs, impaleRollSpecs, rulesetRollSpecs, sideInitiativeRollSpecs,
} from "./chat.js";
import { ActorQueue, planDamage, undoValue } from "./damage.js";
import { damageAdapter } from "./systems.js";
import { bystandersOf } from "./bystanders.js";
import { word } from "./words.js";
import { attackFormHtml, parseAttackForm } from "./dialog.js";
import { BridgeError, ConnectionError, FracasError, InputError, describeError } from "./errors.js";
import { normalizeSeed } from "./jsonrpc.js";
import { getPath, readInteger } from "./paths.js";
import {
  buildAttackRequest, buildBulkRequest, buildInitiativeRequest, buildRulesetAttackRequest, buildRulesetBulkRequest,
  buildScenario,
  readCompetitor, uniqueViews, who,
} from "./request.js";
import { t } from "./i18n.js";
import { MODULE_ID, readMapping } from "./settings.js";

/** @typedef {import("./request.js").TokenView} TokenView */
/** @typedef {import("./request.js").Json} Json  options from a macro or another client: any JSON, every field checked */
/** @typedef {import("./damage.js").Change} Change */
/**
 * What a card's fracas flags hold (the module's own data).
 * @typedef {{kind?: string, requestId?: string, seed?: unknown, total?: number|null, changes?: object[],
 *   targets?: {id: string, name?: string, uuid?: string|null, damage?: number}[], undone?: unknown, ledger?: string|null,
 *   [key: string]: unknown}} Flags
 */
/** @typedef {Parameters<Vtt["postCard"]>[0]} Post  a card to post */
/**
 * A request's answer to another client (a refusal also as its key and data, for the asker's language).
 * @typedef {{error?: string, i18n?: {key: string, data: Record<string, string|number>}, requestId?: string|null,
 *   messageId?: string|null, total_damage?: number|null, resent?: boolean}} Answer
 */
/**
 * A roll for the chat card: dice groups with the engine's faces (chat.js's *RollSpecs).
 * @typedef {{label?: string, total?: number, groups: {faces: number, flavor?: string,
 *   results: object[]}[]}} RollSpec  results: Foundry Die results ({result, active, success, failure})
 */
/**
 * A combatant of the current combat, with its token's view.
 * @typedef {{id: string, name: string, defeated: boolean, hidden: boolean, view: Partial<TokenView>}} CombatantView
 */
/**
 * The current combat: its document (fvtt-types' Combat), its combatants, whose turn it is.
 * @typedef {{id: string, document: any, combatants: CombatantView[], current: string|null}} CombatView
 *   document: a Combat, typed `any` because its flags (`fracas.encounter`) are the module's own
 */

/**
 * The VTT adapter the actions use.
 * @typedef {object} Vtt
 * @property {() => boolean} isGM
 * @property {() => TokenView[]} controlled     token views of the controlled tokens
 * @property {() => TokenView[]} targeted       token views of the user's targets
 * @property {(ref: unknown, sceneId?: string) => TokenView|null} toView  a token, token document, id or name → view
 * @property {(key: string) => unknown} setting
 * @property {(key: string, value: unknown) => Promise<unknown>} setSetting
 * @property {(specs: RollSpec[]) => Promise<any[]>} makeRolls  Foundry Rolls (handed to postCard only)
 * @property {(card: {content: string, rolls?: any[], flags: Record<string, Flags>, speaker?: TokenView|null, whisperToGM?: boolean}) => Promise<{id?: string|null}|null|undefined>} postCard
 *   rolls: Foundry Rolls (makeRolls' answer)
 * @property {(id: string) => Flags|null} messageFlags   the message's fracas flags
 * @property {(id: string, flags: object) => Promise<unknown>} setMessageFlags
 * @property {(uuid: string) => Promise<any>} getDocument  a document (an Actor: its data is the game system's, untyped)
 * @property {(doc: any, data: object) => Promise<unknown>} updateDocument  doc: a document from getDocument
 * @property {() => CombatView|null} combat
 * @property {(combat: CombatView, values: {id: string, value: number}[], options?: {keepTurnOf?: string|null}) => Promise<unknown>} setInitiative
 * @property {(combat: CombatView) => any} combatFlag  the fracas encounter a combat plays (its flags: the module's own data), or null
 * @property {(combat: CombatView, value: object) => Promise<unknown>} setCombatFlag
 * @property {(html: string, title: string) => Promise<Record<string, unknown>|null>} promptForm
 * @property {(level: "info"|"warn"|"error", text: string) => void} notify
 * @property {(actor: any, on: boolean) => Promise<unknown>} [setDefeated]  the defeated mark (actor: an Actor, the system's)
 * @property {(view: TokenView|null) => boolean} ownsToken      this user owns the token's actor
 * @property {(userId: string, view: TokenView|null) => boolean} userOwnsToken  that user owns it (GM side)
 * @property {() => boolean} holdsConnection    this client holds the bridge connection
 * @property {(action: string, data: object) => Promise<any>} askGM  a request to the holding GM client (its answer: JSON from another client)
 * @property {(changes: Change[]) => Promise<string|null>} [postLedger]  a GM-only ledger of Body values; its id
 * @property {(id: string) => Change[]|null} [ledger]          a ledger's changes
 * @property {(id: string, changes: Change[]) => Promise<unknown>} [setLedger]
 * @property {() => string|null} [systemId]                   game.system.id (the damage adapter)
 * @property {(tokenId: string) => object|null} [tokenDocument]  a token id's document (pf2e's applyDamage)
 * @property {() => string|null} [sceneId]                    the scene this client shows
 * @property {(requestId: string) => {id: string, total: number|null}|null} [findCard]  the card of a request id
 * @property {(userId: string) => boolean} [userIsGM]         whether a user has a GM role
 * @property {() => string} [defeatedStatus]                  the status id of a defeated token
 * @property {(sceneId?: string) => {grid: import("./bystanders.js").Grid, views: TokenView[]}|null} [sceneTokens]
 *   every token of a scene (by id, else the one this client shows) with its place, and the scene's grid
 */

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
const strikeWords = (s) => [s?.method && word("Method", s.method), s?.style && word("Style", s.style)].filter(Boolean).join(" ");

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
function explained(error, ctx) {
  if (error instanceof BridgeError) {
    const where = explainPath(error.path, ctx);
    if (where) error.message = `${error.message} [${where}]`;
  }
  return error;
}

/**
 * What one user may ask of the holding client: a request of at most `maxBytes` of JSON,
 * `maxTargets` targets, `perWindow` requests in `windowMs`, `inFlight` at once.
 */
export const LIMITS = Object.freeze({ maxBytes: 4096, maxTargets: 8, perWindow: 5, windowMs: 10000, inFlight: 2 });

/**
 * The module API over an adapter and the connection.
 * @param {object} deps
 * @param {Vtt} deps.vtt
 * @param {() => import("./connection.js").BridgeConnection|null} deps.connection
 *   the live connection, or null when this client does not hold it
 * @param {() => string} deps.newId
 * @param {(error: unknown) => void} [deps.log]
 * @param {() => number} [deps.now]  the clock the per-player rate limit reads (ms)
 * @param {ActorQueue} [deps.queue]  the per-actor damage queue (one per client)
 */
export function createActions(deps) {
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
      if (!view) throw new InputError(t("FRACAS.Error.Actions04", { label, p1: JSON.stringify(typeof ref === "string" ? ref : /** @type {{id?: unknown}|null} */ (ref)?.id ?? String(ref)) }));
      return view;
    });
  }

  /**
   * Apply `changes` (all or none), then post the card; if posting fails the damage
   * is taken back, so the world never holds damage without its Undo button.
   * @param {Change[]} changes
   * @param {Post} card
   */
  async function applyAndPost(changes, card) {
    await applyChanges(changes);
    try {
      // Body values are the GM's: on a card players see, the flags keep only what the card
      // shows (who took how much); before and after go to a GM-only ledger (a whisper).
      const flags = card.flags?.[MODULE_ID];
      if (flags && changes.length && !card.whisperToGM && vtt.postLedger) {
        flags.ledger = await vtt.postLedger(changes);
        flags.changes = publicChanges(changes);
      }
      return await vtt.postCard(card);
    } catch (error) {
      let tail = t("FRACAS.Damage.TakenBack");
      try {
        await revertChanges(changes);
      } catch (inner) {
        tail = t("FRACAS.Damage.TakeBackFailed", { why: inner instanceof Error ? inner.message : String(inner) });
      }
      throw new FracasError(t("FRACAS.Error.Actions05", { p0: error instanceof Error ? error.message : String(error), tail }));
    }
  }

  /** What the flags of a card players see may say of its changes: no Body values. */
  const publicChanges = (/** @type {Change[]} */ changes) => changes.map((c) => ({ uuid: c.uuid, name: c.name, damage: c.damage, targets: c.targets ?? [] }));

  /**
   * A card's changes with their Body values (from its GM-only ledger when it has one).
   * @param {Flags} flags
   * @returns {Change[]}
   */
  function changesOf(flags) {
    const list = flags.ledger ? vtt.ledger?.(flags.ledger) : flags.changes;
    // a card's own flags keep the changes applyAndPost wrote (a ledger's, or the public ones)
    return Array.isArray(list) ? /** @type {Change[]} */ (list) : [];
  }

  /**
   * Keep a card's changes (and other flags): Body values in its ledger, the rest on the card.
   * @param {string} messageId
   * @param {Flags} flags
   * @param {Change[]} changes
   * @param {Json} [extra]
   */
  async function saveChanges(messageId, flags, changes, extra = {}) {
    if (flags.ledger && vtt.setLedger) {
      await vtt.setLedger(flags.ledger, changes);
      await vtt.setMessageFlags(messageId, { ...extra, changes: publicChanges(changes) });
    } else {
      await vtt.setMessageFlags(messageId, { ...extra, changes });
    }
  }

  const numberAt = (/** @type {unknown} */ doc, /** @type {string|null|undefined} */ path) => {
    if (!path) return undefined;
    const raw = getPath(doc, path);
    const n = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
    return typeof n === "number" && Number.isFinite(n) ? n : undefined;
  };

  /** Every damage and undo of an actor, in order, on this (the holding) client. */
  const queue = deps.queue ?? new ActorQueue();

  /**
   * @param {Change[]} changes
   * @returns {Promise<any[]>} the actors (documents of the game system's, untyped)
   */
  async function documentsOf(changes) {
    const docs = [];
    for (const c of changes) {
      let doc = null;
      try {
        doc = await vtt.getDocument(c.uuid);
      } catch {
        doc = null;
      }
      if (!doc) throw new FracasError(t("FRACAS.Error.Actions06", { name: c.name, uuid: c.uuid }));
      docs.push(doc);
    }
    return docs;
  }

  /**
   * Apply planned changes, all or none, on the actors' queue: each change's Body is read
   * when its turn comes and the damage taken from that value (never from the value the
   * attack saw when it was sent). The game system's adapter (systems.js, by
   * game.system.id) takes the damage where there is one and the setting allows; otherwise
   * the Body path is written. Each change records what it found and left (Body and
   * temporary Body), so Undo gives back exactly the difference; a target brought to 0 is
   * marked defeated (when the setting allows), and Undo takes that back too.
   */
  /** @param {Change[]} changes */
  function applyChanges(changes) {
    return queue.run(changes.map((c) => c.uuid), () => applyNow(changes));
  }

  /** @param {Change[]} changes */
  async function applyNow(changes) {
    const docs = await documentsOf(changes);
    /** @type {number[]} */
    const done = [];
    const tempPath = mapping().bodyTemp;
    const adapter = setting("damageThroughSystem") !== false ? damageAdapter(vtt.systemId?.()) : null;
    const floor = setting("floorBodyAtZero") !== false;
    for (let i = 0; i < changes.length; i++) {
      const c = changes[i];
      const doc = docs[i];
      try {
        const { value: current, problem } = readInteger(doc, c.path);
        if (problem) throw new InputError(t("FRACAS.Error.Actions07", { problem }));
        if (current === undefined) throw new InputError(t("FRACAS.Error.Actions07", { problem: c.path }));
        c.before = current;
        c.after = Math.min(current, floor ? Math.max(0, current - c.damage) : current - c.damage);
        if (tempPath) {
          c.tempPath = tempPath;
          c.tempBefore = numberAt(doc, tempPath) ?? null;
        }
        if (adapter) {
          await adapter.apply(doc, c.damage, vtt.tokenDocument?.(c.targets[0]) ?? null);
          c.system = adapter.id;
          const after = numberAt(doc, c.path);
          if (after !== undefined) c.after = after;
        } else {
          await vtt.updateDocument(doc, { [c.path]: c.after });
        }
        if (tempPath) c.tempAfter = numberAt(doc, tempPath) ?? null;
        if (setting("markDefeated") !== false && c.after <= 0 && c.before > 0 && vtt.setDefeated) {
          await vtt.setDefeated(doc, true);
          c.defeated = true;
        }
        done.push(i);
      } catch (error) {
        /** @type {string[]} */
        const failedBack = [];
        for (const j of done.reverse()) {
          try {
            await revertOne(changes[j], docs[j]);
          } catch {
            failedBack.push(changes[j].name);
          }
        }
        const why = error instanceof Error ? error.message : String(error);
        const tail = failedBack.length ? t("FRACAS.Damage.NotPutBack", { names: failedBack.join(", ") }) : t("FRACAS.Damage.NothingChanged");
        throw new FracasError(t("FRACAS.Error.Actions08", { name: c.name, why, tail }));
      }
    }
  }

  /**
   * Give back one applied change by delta (Body and temporary Body), the defeated mark
   * off when Body is above 0 again. Returns what was written and what a maximum kept back.
   * @param {Change} c
   * @param {any} doc  the actor (the game system's document, untyped)
   */
  async function revertOne(c, doc) {
    const { value: current, problem } = readInteger(doc, c.path);
    if (problem || current === undefined) throw new FracasError(t("FRACAS.Error.Actions09", { problem: problem ?? c.path }));
    const max = mapping().bodyMax ? numberAt(doc, mapping().bodyMax) : undefined;
    const { value, taken, lost } = undoValue(c, current, max);
    /** @type {Record<string, number>} */
    const data = { [c.path]: value };
    if (c.tempPath && typeof c.tempBefore === "number" && typeof c.tempAfter === "number" && Number.isFinite(c.tempBefore) && Number.isFinite(c.tempAfter)) {
      const temp = numberAt(doc, c.tempPath) ?? 0;
      data[c.tempPath] = temp + Math.max(0, c.tempBefore - c.tempAfter);
    }
    await vtt.updateDocument(doc, data);
    if (c.defeated && vtt.setDefeated && value > 0) await vtt.setDefeated(doc, false);
    return { value, taken, lost };
  }

  /** @param {Change[]} changes */
  function revertChanges(changes) {
    return queue.run(changes.map((c) => c.uuid), async () => {
      for (const c of changes) {
        const doc = await vtt.getDocument(c.uuid);
        if (doc) await revertOne(c, doc);
      }
    });
  }

  /**
   * Undo `changes` on their actors' queues, each on its own: what was given back, and
   * exactly what could not be (an actor gone, a Body no longer a number, a maximum).
   * @param {Change[]} changes
   */
  function undoChanges(changes) {
    return queue.run(changes.map((c) => c.uuid), async () => {
      /** @type {{change: Change, value: number, taken: number, lost: number}[]} */
      const restored = [];
      /** @type {{change: Change, why: string, partial?: boolean}[]} */
      const failed = [];
      for (const c of [...changes].reverse()) {
        let doc = null;
        try {
          doc = await vtt.getDocument(c.uuid);
        } catch {
          doc = null;
        }
        if (!doc) {
          failed.push({ change: c, why: t("FRACAS.Undo.Gone", { name: c.name }) });
          continue;
        }
        try {
          const out = await revertOne(c, doc);
          restored.push({ change: c, ...out });
          if (out.lost) failed.push({ change: c, partial: true, why: t("FRACAS.Undo.Capped", { name: c.name, lost: out.lost, taken: out.taken }) });
        } catch (error) {
          failed.push({ change: c, why: `${c.name}: ${error instanceof Error ? error.message : String(error)}` });
        }
      }
      return { restored: restored.reverse(), failed };
    });
  }

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
   * @param {import("./chat.js").CardModel} model
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

  /**
   * Resolve an attack: the controlled token (or `attacker`) strikes the user's
   * targets (or `targets`). Returns { requestId, result, messageId, changes }.
   * @param {Json} [options]
   * @returns {Promise<any>} a player's answer, or {requestId, result, messageId, changes}
   *   (result: the engine's JSON)
   */
  async function attack(options = {}) {
    if (!vtt.isGM()) return playerAttack(options);
    requireGM("Attacks");
    const conn = link();
    const attacker = attackerOf(options);
    const targets = uniqueViews(viewsOf(options.targets, "targets", options.scene) ?? vtt.targeted());
    const apply = options.applyDamage ?? setting("applyDamage") !== false;
    const map = mapping();
    const ruleset = options.ruleset ?? "enchanted-realms";
    if (options.item !== undefined && options.strikes === undefined) {
      // A weapon item's strikes (flags.fracas.strikes): each at every target.
      const list = itemStrikes(attacker, options.item);
      options = { ...options, strikes: targets.flatMap((tv) => list.map((/** @type {Json} */ st) => ({ ...st, target: tv.id }))) };
    }
    if (ruleset !== "enchanted-realms") return rulesetAttack(conn, ruleset, attacker, targets, apply, map, options);
    const { request, targets: used, unread } = buildAttackRequest({
      attacker, targets, strikes: options.strikes, mapping: map,
      options: {
        advantage: options.advantage, disadvantage: options.disadvantage, seed: seedOption(options),
        rolls: options.rolls, conditions: setting("conditionsFromStatuses") !== false, needBody: apply,
        nearby: viewsOf(options.nearby, "nearby", options.scene), flee: options.flee, grappling: options.grappling,
        bystanders: options.nearby === undefined ? sceneBystanders(attacker, targets, options) : undefined,
        defenseRolls: options.defenseRolls, defenseRollsSetting: setting("defenseRolls") === true,
      },
    });
    for (const { view, why } of unread) vtt.notify("warn", t("FRACAS.Notify.BystanderUnread", { name: who(view), why }));
    const requestId = options.requestId ?? newId();
    const names = displayNames(used);
    const result = await conn.call("attack.resolve", request, { id: requestId }).catch((error) => {
      throw explained(error, { strikes: request.strikes, names, attackerName: attacker.name });
    });
    const aimed = new Set(request.strikes.map((/** @type {{target: string}} */ s) => s.target));
    const model = shownTargets(attackCardModel(result, { attackerName: attacker.name ?? attacker.id, names, requestId }), aimed);
    const changes = apply
      ? planDamage({
        targets: used, damageById: Object.fromEntries(model.targets.map((/** @type {{id: string, damage: number}} */ x) => [x.id, x.damage])),
        path: map.body, floorAtZero: setting("floorBodyAtZero") !== false,
      })
      : [];
    // A hidden bystander the shot touched (hit, or picked by the stray die) is the GM's:
    // the card with its name and buttons goes to the GMs, and everyone else gets one that
    // calls it "someone unseen" and leaves out its damage.
    const secret = new Set(used.filter((v) => v.hidden && !aimed.has(v.id)).map((v) => v.id));
    const touched = model.targets.some((/** @type {{id: string}} */ x) => secret.has(x.id));
    const everyone = setting("chatVisibility") !== "gm";
    /** @type {import("./chat.js").CardModel|null} the card everyone sees, when it differs */
    let open = null;
    if (everyone && touched) {
      const unseen = Object.fromEntries([...secret].map((id) => [id, t("FRACAS.Card.Unseen")]));
      open = shownTargets(attackCardModel(result, { attackerName: attacker.name ?? attacker.id, names: { ...names, ...unseen }, requestId }), aimed);
      open.targets = open.targets.filter((/** @type {{id: string}} */ x) => !secret.has(x.id));
      open.totalDamage = open.targets.reduce((/** @type {number} */ sum, /** @type {{damage: number}} */ x) => sum + x.damage, 0);
    }
    // What a resent request and a player's answer say: the total the players' card shows.
    const shownTotal = open ? open.totalDamage : model.totalDamage;
    const message = await applyAndPost(changes, {
      content: renderAttackCard(model, { undoable: changes.length > 0 }),
      rolls: await vtt.makeRolls(attackRollSpecs(model)),
      flags: cardFlags("attack", requestId, model.seed, changes, flagTargets(model, used), shownTotal),
      speaker: attacker,
      whisperToGM: !everyone || touched,
    });
    if (open) {
      await vtt.postCard({
        content: renderAttackCard(open), rolls: await vtt.makeRolls(attackRollSpecs(open)),
        flags: { [MODULE_ID]: { kind: "attack-public" } }, speaker: attacker, whisperToGM: false,
      });
    }
    return { requestId, result, messageId: message?.id ?? null, changes, shownTotal };
  }

  /**
   * ER-17 bystanders from the scene (bystanders.js), per target, for an attack with a
   * ranged strike when the GM's setting allows: the creatures around each target and in
   * the line of fire, hidden ones included, the defeated and tokens without an actor not.
   * Undefined when there is nothing to derive (no scene, no ranged strike, the setting off).
   * @param {TokenView} attacker
   * @param {TokenView[]} targets
   * @param {Json} options
   * @returns {Record<string, TokenView[]>|undefined}
   */
  function sceneBystanders(attacker, targets, options) {
    if (setting("bystandersFromScene") === false || !vtt.sceneTokens) return undefined;
    const ranged = Array.isArray(options.strikes) && options.strikes.some((/** @type {Json|null} */ s) => s?.method === "range");
    if (!ranged) return undefined;
    const scene = vtt.sceneTokens(typeof options.scene === "string" ? options.scene : undefined);
    if (!scene) return undefined;
    const out = vtt.defeatedStatus?.() ?? "dead";
    const others = scene.views.filter((v) => v.actor && !(v.statuses ?? []).includes(out));
    const placed = (/** @type {TokenView} */ v) => scene.views.find((x) => x.id === v.id) ?? null;
    const from = placed(attacker);
    /** @type {Record<string, TokenView[]>} */
    const found = {};
    for (const tv of targets) {
      const here = placed(tv);
      if (here) found[tv.id] = bystandersOf({ target: here, attacker: from, others, grid: scene.grid });
    }
    return found;
  }

  /**
   * An attack card's targets as shown: the ones aimed at, and any bystander the shot
   * touched (took damage, or the stray die picked it); untouched bystanders stay off.
   * @param {import("./chat.js").CardModel} model
   * @param {Set<string>} aimed
   */
  function shownTargets(model, aimed) {
    const picked = new Set(model.strikes.map((/** @type {{stray: {creature?: string|null}|null}} */ s) => s.stray?.creature).filter(Boolean));
    model.targets = model.targets.filter((/** @type {{id: string, damage: number}} */ x) => aimed.has(x.id) || x.damage > 0 || picked.has(x.id));
    return model;
  }

  /**
   * The fracas weapons of a token's actor: items whose flags.fracas.strikes (or .strike) hold strikes.
   * @param {TokenView|null|undefined} view
   */
  function weaponsOf(view) {
    /** @type {{id: string, name: string, strikes: unknown[]}[]} */
    const out = [];
    for (const item of view?.actor?.items ?? []) {
      const data = item?.flags?.[MODULE_ID];
      const strikes = Array.isArray(data?.strikes) ? data.strikes : data?.strike ? [data.strike] : null;
      if (strikes && strikes.length) out.push({ id: item.id, name: item.name, strikes });
    }
    return out;
  }

  /**
   * @param {TokenView} view
   * @param {unknown} ref  an item's id or name
   * @returns {Json[]}
   */
  function itemStrikes(view, ref) {
    const weapons = weaponsOf(view);
    const found = weapons.filter((w) => w.id === ref || w.name === ref);
    if (found.length !== 1) {
      throw new InputError(t("FRACAS.Error.NoWeapon", { name: who(view), ref, weapons: weapons.map((w) => w.name).join(", ") || t("FRACAS.Word.None") }));
    }
    return found[0].strikes.map((st) => {
      if (st === null || typeof st !== "object" || Array.isArray(st)) throw new InputError(t("FRACAS.Error.Actions10", { p0: found[0].name }));
      const { target: _ignored, ...rest } = /** @type {Json} */ (st);
      return rest;
    });
  }

  // ── requests from other clients (players, and GMs whose tab does not hold the bridge) ──
  //
  // A player describes *which* attack, never its numbers: the attacking token, one of its
  // actor's own attacks (an item carrying flags.fracas.strikes, or an entry of the actor's
  // flags.fracas.strikes) and the targets. The holding GM's client reads every number
  // (dice, bonus, weight, crit range, attacker and target data) from the actors, takes the
  // ruleset from the world setting, and refuses anything else, unless the GM has turned
  // on free-form player attacks. Limits on size, targets and rate are checked first,
  // before anything is looked up or sent.

  /** What a free-form player request may carry (only when the GM allows free-form attacks). */
  const FREE_FORM_OPTIONS = ["strikes", "advantage", "disadvantage", "ruleset", "attackerData", "targetData", "nearby", "flee", "grappling"];

  const now = deps.now ?? (() => Date.now());
  /** @type {Map<string, number[]>} user id → when its recent requests arrived */
  const recent = new Map();
  /** @type {Map<string, number>} user id → requests being worked on */
  const busy = new Map();
  /** @type {Map<string, Promise<Answer>>} "user:request id" → its answer (a resent request gets the same) */
  const answered = new Map();

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
    const attacker = attackerOf(options);
    if (!vtt.ownsToken(attacker)) throw new InputError(t("FRACAS.Notify.NotYourToken"));
    const targets = uniqueViews(viewsOf(options.targets, "targets") ?? vtt.targeted());
    if (!targets.length) throw new InputError(t("FRACAS.Notify.NoTargets"));
    const extra = FREE_FORM_OPTIONS.filter((key) => options[key] !== undefined);
    if (extra.length && setting("playerFreeForm") !== true) throw new InputError(t("FRACAS.Player.FreeFormOff", { fields: extra.join(", ") }));
    if (options.item === undefined && options.strike === undefined && setting("playerFreeForm") !== true) {
      throw new InputError(t("FRACAS.Player.PickAttack", { name: who(attacker), attacks: describeAttacks(attacker) }));
    }
    return relay("attack", playerRequest(options, attacker, targets));
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
    if (i18n && typeof i18n.key === "string" && /^FRACAS\.(Player|Notify)\.[A-Za-z]+$/.test(i18n.key) && data && typeof data === "object"
      && Object.values(data).every((v) => typeof v === "string" || typeof v === "number")) {
      return t(i18n.key, /** @type {Record<string, string|number>} */ (data));
    }
    return answer?.error ?? null;
  }

  /** "Longsword, strike 1 (melee slashing)" : the attacks a token's actor has, for messages. */
  /** @param {TokenView} view */
  function describeAttacks(view) {
    const names = weaponsOf(view).map((w) => w.name);
    const own = getPath(view?.actor, "flags.fracas.strikes");
    if (Array.isArray(own)) own.forEach((/** @type {Json|null} */ s, /** @type {number} */ i) => names.push(`${t("FRACAS.Dialog.OwnStrike", { n: i + 1 })} (${strikeWords(s)})`));
    return names.join(", ") || t("FRACAS.Word.None");
  }

  /** The strikes of one of the attacker's own attacks, chosen by item (id or name) or flag index. */
  /**
   * @param {TokenView} attacker
   * @param {Json} request
   * @returns {Json[]}
   */
  function ownAttack(attacker, request) {
    if (request.item !== undefined) {
      if (typeof request.item !== "string") throw new InputError(t("FRACAS.Error.Actions11"));
      return itemStrikes(attacker, request.item);
    }
    if (request.strike !== undefined) {
      const own = getPath(attacker.actor, "flags.fracas.strikes");
      const i = request.strike;
      if (!Array.isArray(own) || !Number.isInteger(i) || i < 0 || i >= own.length) {
        throw new InputError(t("FRACAS.Player.NoSuchAttack", { name: who(attacker), attacks: describeAttacks(attacker) }));
      }
      const spec = own[i];
      if (spec === null || typeof spec !== "object" || Array.isArray(spec)) throw new InputError(t("FRACAS.Error.Actions12", { p0: who(attacker), p1: i + 1 }));
      const { target: _aimed, ...rest } = spec;
      return [rest];
    }
    throw new InputError(t("FRACAS.Player.PickAttack", { name: who(attacker), attacks: describeAttacks(attacker) }));
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
        if (fromGM && typeof message.action === "string" && Object.prototype.hasOwnProperty.call(RELAYED, message.action)) {
          const data = message.data && typeof message.data === "object" && !Array.isArray(message.data) ? message.data : {};
          const out = await RELAYED[message.action]({ ...data, requestId: data.requestId ?? bridgeId });
          return summarize(out);
        }
        return refusal("FRACAS.Player.Refused", { action: String(message.action) });
      } catch (error) {
        if (!(error instanceof FracasError)) log(error);
        // A player is not told the bridge's own (English, GM-only) detail.
        return { error: describeError(error, { forPlayers: vtt.userIsGM?.(senderId) !== true }) };
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
    const scene = typeof request.scene === "string" ? request.scene : undefined;
    const attacker = firstOf(request.attacker, "attacker", scene);
    if (!vtt.userOwnsToken(senderId, attacker)) return refusal("FRACAS.Notify.NotYourToken");
    if (!request.targets.every((/** @type {unknown} */ x) => typeof x === "string")) return refusal("FRACAS.Player.Malformed");
    const targets = uniqueViews(viewsOf(request.targets, "targets", scene) ?? []);
    if (!targets.length) return refusal("FRACAS.Notify.NoTargets");
    /** @type {Record<string, any>} */
    const options = { attacker: attacker.id, targets: targets.map((v) => v.id), scene, requestId: bridgeId };
    const freeForm = setting("playerFreeForm") === true;
    const extra = FREE_FORM_OPTIONS.filter((k) => request[k] !== undefined);
    if (!freeForm && extra.length) return refusal("FRACAS.Player.FreeFormOff", { fields: extra.join(", ") });
    if (freeForm && extra.length) {
      for (const key of extra) options[key] = request[key];
      if (Array.isArray(options.nearby)) options.nearby = options.nearby.filter((/** @type {unknown} */ x) => typeof x === "string");
    } else {
      const list = ownAttack(attacker, request);
      options.ruleset = setting("ruleset") || "enchanted-realms";
      options.strikes = targets.flatMap((tv) => list.map((st) => ({ ...st, target: tv.id })));
    }
    const out = await attack(options);
    // What the player's table saw: a hidden bystander's damage is not in it.
    return { requestId: out.requestId, messageId: out.messageId, total_damage: out.shownTotal ?? out.result.total_damage };
  }

  /**
   * `attack({ruleset, …})` for Worldwalker, Cartyrion and old-school: same steps, the ruleset's card.
   * @param {import("./connection.js").BridgeConnection} conn
   * @param {string} ruleset
   * @param {TokenView} attacker
   * @param {TokenView[]} targets
   * @param {boolean} apply
   * @param {import("./request.js").Mapping} map
   * @param {Json} options
   */
  async function rulesetAttack(conn, ruleset, attacker, targets, apply, map, options) {
    const { request, targets: used } = buildRulesetAttackRequest({
      ruleset, attacker, targets, strikes: options.strikes, attackerData: options.attackerData,
      targetData: options.targetData, mapping: map,
      options: { seed: seedOption(options), rolls: options.rolls, needBody: apply },
    });
    const requestId = options.requestId ?? newId();
    const names = displayNames(used);
    const result = await conn.call("attack.resolve", request, { id: requestId }).catch((error) => {
      throw explained(error, { strikes: request.strikes, names, attackerName: attacker.name });
    });
    const model = rulesetCardModel(result, { attackerName: attacker.name ?? attacker.id, names, requestId });
    const changes = apply
      ? planDamage({
        targets: used, damageById: Object.fromEntries(model.targets.map((t) => [t.id, t.damage])),
        path: map.body, floorAtZero: setting("floorBodyAtZero") !== false,
      })
      : [];
    const message = await applyAndPost(changes, {
      content: renderRulesetCard(model, { undoable: changes.length > 0 }),
      rolls: await vtt.makeRolls(rulesetRollSpecs(result)),
      flags: cardFlags("attack", requestId, model.seed, changes),
      speaker: attacker,
      whisperToGM: setting("chatVisibility") === "gm",
    });
    return { requestId, result, messageId: message?.id ?? null, changes };
  }

  /**
   * Exact odds of the attack `attack(options)` would make (any ruleset), through the
   * bridge's `attack.odds`: nothing is rolled or applied. Each target's Body (the
   * configured path) is read for the chance it drops; `count` (a mob of identical
   * attacks) and `atLeast` (damage thresholds) are optional. Shows a card to the GM
   * and returns the bridge's answer.
   * @param {Json} [options]
   */
  async function odds(options = {}) {
    requireGM("Odds");
    const conn = link();
    const attacker = attackerOf(options);
    const targets = uniqueViews(viewsOf(options.targets, "targets") ?? vtt.targeted());
    const map = mapping();
    const ruleset = options.ruleset ?? "enchanted-realms";
    const built = ruleset === "enchanted-realms"
      ? buildAttackRequest({
        attacker, targets, strikes: options.strikes, mapping: map,
        options: { advantage: options.advantage, disadvantage: options.disadvantage,
          conditions: setting("conditionsFromStatuses") !== false },
      })
      : buildRulesetAttackRequest({
        ruleset, attacker, targets, strikes: options.strikes, attackerData: options.attackerData,
        targetData: options.targetData, mapping: map,
      });
    const { request, targets: used } = built;
    /** @type {Record<string, number>} */
    const remaining = {};
    for (const t of used) {
      const body = Number(getPath(t.actor, map.body));
      if (Number.isInteger(body) && body > 0) remaining[t.id] = body;
    }
    /** @type {Record<string, any>} the odds request: the attack's, with what the targets have left */
    const params = { ...request, remaining };
    if (options.count !== undefined) params.count = options.count;
    if (options.atLeast !== undefined) params.at_least = options.atLeast;
    const names = displayNames(used);
    const result = await conn.call("attack.odds", params, { id: newId() }).catch((error) => {
      throw explained(error, { strikes: request.strikes, names, attackerName: attacker.name });
    });
    const message = await vtt.postCard({
      content: renderOddsCard(result, { attackerName: attacker.name ?? attacker.id, names }),
      rolls: [], flags: { [MODULE_ID]: { kind: "odds" } }, speaker: attacker, whisperToGM: true,
    });
    return { result, messageId: message?.id ?? null };
  }

  /**
   * A mob attack (bulk, summary): the controlled tokens grouped by actor attack the
   * targets; per-target totals applied with Undo; one compact card.
   * @param {Record<string, any>} [options] strikes, assign ("split" | "each"), attackers, targets, seed,
   *   advantage, disadvantage, ruleset, attackerData, targetData, applyDamage, requestId
   */
  async function mob(options = {}) {
    requireGM("Mobs");
    const conn = link();
    const chosen = viewsOf(options.attackers, "attackers") ?? vtt.controlled();
    // Defeated tokens do not attack: left out, and named on the card.
    const out = vtt.defeatedStatus?.() ?? "dead";
    const attackers = chosen.filter((v) => !(v.statuses ?? []).includes(out));
    const skipped = chosen.filter((v) => !attackers.includes(v)).map((v) => v.name ?? v.id);
    if (chosen.length && !attackers.length) throw new InputError(t("FRACAS.Notify.AllDefeated", { names: skipped.join(", ") }));
    const targets = uniqueViews(viewsOf(options.targets, "targets") ?? vtt.targeted());
    const apply = options.applyDamage ?? setting("applyDamage") !== false;
    const map = mapping();
    const ruleset = options.ruleset ?? "enchanted-realms";
    const { request, targets: used, profileNames } = ruleset === "enchanted-realms"
      ? buildBulkRequest({
        attackers, targets, strikes: options.strikes, assign: options.assign, mapping: map,
        options: {
          seed: seedOption(options), advantage: options.advantage, disadvantage: options.disadvantage,
          conditions: setting("conditionsFromStatuses") !== false, needBody: apply,
        },
      })
      : buildRulesetBulkRequest({
        ruleset, attackers, targets, strikes: options.strikes, attackerData: options.attackerData,
        targetData: options.targetData, assign: options.assign, mapping: map,
        options: { seed: seedOption(options), needBody: apply },
      });
    const requestId = options.requestId ?? newId();
    const names = displayNames(used);
    const result = await conn.call("attack.bulk", request, { id: requestId }).catch((error) => {
      throw explained(error, { names, profileNames });
    });
    const model = { ...mobCardModel(result, { names, profileNames, requestId }), skipped };
    const changes = apply
      ? planDamage({
        targets: used, damageById: Object.fromEntries(model.targets.map((t) => [t.id, t.damage])),
        path: map.body, floorAtZero: setting("floorBodyAtZero") !== false,
      })
      : [];
    const message = await applyAndPost(changes, {
      content: renderMobCard(model, { undoable: changes.length > 0 }),
      rolls: await vtt.makeRolls(mobRollSpecs(result, { names, profileNames })),
      flags: cardFlags("mob", requestId, model.seed, changes, flagTargets(model, used), model.totalDamage),
      speaker: null,
      whisperToGM: setting("chatVisibility") === "gm",
    });
    return { requestId, result, messageId: message?.id ?? null, changes };
  }

  /**
   * ER-18 initiative for the active combat; sets the tracker and posts the dice.
   * @param {Json} [options]
   */
  async function initiative(options = {}) {
    requireGM("Initiative");
    const conn = link();
    const combat = vtt.combat();
    if (!combat) throw new InputError(t("FRACAS.Error.Actions14"));
    // Defeated combatants roll nothing and keep their place.
    const standing = combat.combatants.filter((c) => !c.defeated);
    if (!standing.length) throw new InputError(t("FRACAS.Error.Actions15"));
    const ruleset = options.ruleset ?? "enchanted-realms";
    if (ruleset === "cartyrion" || ruleset === "old-school") return sideInitiative(conn, ruleset, combat, standing, options);
    /** @type {Record<string, any>} */
    let request;
    if (ruleset === "worldwalker") {
      // WW-1: d20 + Dexterity modifier, from the actor flag flags.fracas.worldwalker.dex_mod.
      request = { ruleset, combatants: standing.map((c) => {
        const dex = getPath(c.view?.actor, "flags.fracas.worldwalker.dex_mod");
        if (!Number.isInteger(dex)) throw new InputError(t("FRACAS.Error.Actions16", { name: c.name }));
        return { id: c.id, dex_mod: dex };
      }) };
      const seed = seedOption(options);
      if (seed !== undefined && seed !== null) request.seed = seed;
      if (options.rolls) request.rolls = options.rolls;
    } else {
      request = buildInitiativeRequest({
        combatants: standing, mapping: mapping(),
        options: { seed: seedOption(options), rolls: options.rolls },
      });
    }
    const requestId = options.requestId ?? newId();
    const result = await conn.call("initiative.roll", request, { id: requestId });
    const names = Object.fromEntries(standing.map((c) => [c.id, c.name]));
    const model = initiativeCardModel(result, { names, requestId });
    const values = initiativeValues(model.order);
    await vtt.setInitiative(combat, values, { keepTurnOf: combat.current ?? null });
    const flags = { [MODULE_ID]: { kind: "initiative", requestId, seed: model.seed, changes: [], undone: null } };
    // Hidden combatants are the GM's: the whole order goes to the GM; a public card
    // (when chat is public) shows only the combatants the players can see.
    const hidden = new Set(standing.filter((c) => c.hidden).map((c) => c.id));
    const everyone = setting("chatVisibility") !== "gm";
    let message;
    if (!everyone || hidden.size) {
      message = await vtt.postCard({
        content: renderInitiativeCard(model), rolls: await vtt.makeRolls(initiativeRollSpecs(model)),
        flags, speaker: null, whisperToGM: true,
      });
    }
    // A roll-off shows only when someone visible tied: a tie with a hidden combatant alone
    // would tell the players it is there.
    /** @type {{id: string, total: number, tiebreaks: number[]}[]} */
    const order = model.order;
    const shown = order.filter((e) => !hidden.has(e.id));
    const visible = { ...model, order: shown.map((e, i) => ({ ...e, rank: i + 1,
      tiebreaks: shown.some((o) => o !== e && o.total === e.total) ? e.tiebreaks : [] })) };
    if (everyone && visible.order.length) {
      message = await vtt.postCard({
        content: renderInitiativeCard(visible), rolls: await vtt.makeRolls(initiativeRollSpecs(visible)),
        flags, speaker: null, whisperToGM: false,
      });
    }
    return { requestId, result, values, messageId: message?.id ?? null };
  }

  /**
   * Side initiative (Cartyrion CT-1, old-school OS-1): the party (combatants a player owns)
   * and its opponents (the rest) roll as sides; every combatant of the side that acts first
   * gets the higher initiative (sides acting together get the same). The card names the
   * sides, not the combatants, so hidden ones stay hidden.
   * @param {import("./connection.js").BridgeConnection} conn
   * @param {string} ruleset
   * @param {import("./actions.js").CombatView & {round?: number}} combat
   * @param {import("./actions.js").CombatantView[]} standing
   * @param {Json} options
   */
  async function sideInitiative(conn, ruleset, combat, standing, options) {
    /** @type {Record<string, any>} */
    const request = ruleset === "cartyrion"
      ? { ruleset, round: combat.round ?? options.round ?? 1, ambush: options.ambush ?? "none" }
      : { ruleset, sides: [{ id: "party" }, { id: "opponents" }], ties: options.ties ?? "reroll" };
    const seed = seedOption(options);
    if (seed !== undefined && seed !== null) request.seed = seed;
    if (options.rolls) request.rolls = options.rolls;
    const requestId = options.requestId ?? newId();
    const result = await conn.call("initiative.roll", request, { id: requestId });
    const sideOf = (/** @type {import("./actions.js").CombatantView} */ c) => (c.view?.actor?.hasPlayerOwner ? "party" : "opponents");
    // Groups of sides in acting order: CT-1 names who goes first; OS-1 gives the groups.
    const groups = ruleset === "cartyrion"
      ? [[result.first], [result.first === "party" ? "opponents" : "party"]]
      : result.order;
    const values = standing.map((c) => ({ id: c.id, value: groups.length - groups.findIndex((/** @type {string[]} */ g) => g.includes(sideOf(c))) }));
    await vtt.setInitiative(combat, values, { keepTurnOf: combat.current ?? null });
    const message = await vtt.postCard({
      content: renderSideInitiativeCard(result), rolls: await vtt.makeRolls(sideInitiativeRollSpecs(result)),
      flags: { [MODULE_ID]: { kind: "initiative", requestId, seed: String(result.seed), changes: [], undone: null } },
      speaker: null, whisperToGM: setting("chatVisibility") === "gm",
    });
    return { requestId, result, values, messageId: message?.id ?? null };
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
    if (!view) throw new InputError(t("FRACAS.Error.Actions04", { label, p1: JSON.stringify(String(ref)) }));
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
   * An ER-19 competition: the controlled token (or `challenger`) against `defender` (or
   * the one targeted token). `contest`: plain, grapple, escape, shove, trip; `use` /
   * `against`: each side's attribute (strength or agility); `slick`, `challengerEdge` /
   * `defenderEdge`: "advantage" or "disadvantage". Posts the card; nothing is applied.
   * @param {Json} [options]
   */
  async function compete(options = {}) {
    requireGM("Competitions");
    const conn = link();
    const challenger = oneToken(options.challenger, "challenger");
    let defender;
    if (options.defender !== undefined) defender = firstOf(options.defender, "defender");
    else {
      const targeted = uniqueViews(vtt.targeted());
      if (targeted.length !== 1) throw new InputError(t("FRACAS.Error.Actions18", { length: targeted.length }));
      [defender] = targeted;
    }
    if (challenger.id === defender.id) throw new InputError(t("FRACAS.Error.Actions19"));
    const map = mapping();
    const edge = (/** @type {unknown} */ value, /** @type {string} */ label) => {
      if (value === undefined || value === null) return {};
      if (typeof value !== "string" || !["advantage", "disadvantage"].includes(value)) throw new InputError(t("FRACAS.Error.Actions20", { label, value }));
      return { [value]: true };
    };
    const fromStatuses = { conditions: setting("conditionsFromStatuses") !== false };
    /** @type {Json} */
    const request = {
      contest: options.contest ?? "plain", slick: !!options.slick,
      challenger: readCompetitor(challenger, map, options.use ?? "strength", edge(options.challengerEdge, "challengerEdge"),
        fromStatuses),
      defender: readCompetitor(defender, map, options.against ?? "strength", edge(options.defenderEdge, "defenderEdge"),
        fromStatuses),
    };
    const seed = seedOption(options);
    if (seed !== undefined && seed !== null) request.seed = seed;
    if (options.rolls) request.rolls = options.rolls;
    const requestId = options.requestId ?? newId();
    const result = /** @type {any} the engine's competition result */ (await conn.call("compete.roll", request, { id: requestId }));
    const names = displayNames([challenger, defender]);
    const message = await vtt.postCard({
      content: renderCompeteCard(result, { names }), rolls: await vtt.makeRolls(competeRollSpecs(result, { [challenger.id]: names[challenger.id], [defender.id]: names[defender.id] })),
      flags: { [MODULE_ID]: { kind: "compete", requestId, seed: String(result.seed), changes: [], undone: null } },
      speaker: challenger, whisperToGM: setting("chatVisibility") === "gm",
    });
    return { requestId, result, messageId: message?.id ?? null };
  }

  /**
   * An ER-23 impalement: the controlled pikeman (or `pikeman`) strikes the targeted
   * charger (or `charger`) that closed `closed` feet, before its charge. `forte`,
   * `weight`, `bonus` describe the pole-arm. The damage is applied with Undo; the card
   * says whether the charge is void.
   * @param {Json} [options]
   */
  async function impale(options = {}) {
    requireGM("Impalements");
    const conn = link();
    const pikeman = oneToken(options.pikeman, "pikeman");
    let charger;
    if (options.charger !== undefined) charger = firstOf(options.charger, "charger");
    else {
      const targeted = uniqueViews(vtt.targeted());
      if (targeted.length !== 1) throw new InputError(t("FRACAS.Error.Actions21", { length: targeted.length }));
      [charger] = targeted;
    }
    if (!Number.isInteger(options.closed)) throw new InputError(t("FRACAS.Error.Actions22"));
    const map = mapping();
    const apply = options.applyDamage ?? setting("applyDamage") !== false;
    const body = Number(getPath(charger.actor, map.body));
    if (!Number.isInteger(body)) throw new InputError(t("FRACAS.Error.Actions23", { p0: who(charger), p1: map.body || "(no data path set)" }));
    const { request: strikeRequest } = buildAttackRequest({
      attacker: pikeman, targets: [charger], mapping: map,
      strikes: [{ method: "melee", style: "pole-arm", dice: 3, damage_type: "piercing" }],
      options: { conditions: setting("conditionsFromStatuses") !== false, needBody: apply },
    });
    /** @type {Json} */
    const request = {
      pikeman: strikeRequest.attacker,
      weapon: { forte: !!options.forte, weight: options.weight ?? 0, bonus: options.bonus ?? 0 },
      charger: { ...strikeRequest.targets[charger.id], id: charger.id, body, closed: options.closed },
    };
    const seed = seedOption(options);
    if (seed !== undefined && seed !== null) request.seed = seed;
    if (options.rolls) request.rolls = options.rolls;
    const requestId = options.requestId ?? newId();
    const result = /** @type {any} the engine's impalement result */ (await conn.call("impale.resolve", request, { id: requestId }));
    const changes = apply
      ? planDamage({ targets: [charger], damageById: { [charger.id]: result.charger.damage }, path: map.body,
        floorAtZero: setting("floorBodyAtZero") !== false })
      : [];
    const message = await applyAndPost(changes, {
      content: renderImpaleCard(result, { pikemanName: pikeman.name ?? pikeman.id, chargerName: charger.name ?? charger.id, requestId },
        { undoable: changes.length > 0 }),
      rolls: await vtt.makeRolls(impaleRollSpecs(result, { pikemanName: pikeman.name ?? pikeman.id, chargerName: charger.name ?? charger.id })),
      flags: cardFlags("impale", requestId, String(result.seed), changes,
        result.charger.damage > 0 ? [{ id: charger.id, name: charger.name, uuid: charger.actorUuid ?? null, damage: result.charger.damage }] : []),
      speaker: pikeman, whisperToGM: setting("chatVisibility") === "gm",
    });
    return { requestId, result, messageId: message?.id ?? null, changes };
  }

  /** Undo the damage of a fracas chat card: restore every exact previous value. */
  /** Cards whose damage is being applied or undone now: one button press at a time per card. */
  /** @type {Set<string>} */
  const cardBusy = new Set();

  /**
   * Run `fn` for one card at a time (two quick clicks on Undo give back the damage once).
   * @template T
   * @param {string} messageId
   * @param {() => Promise<T>} fn
   * @returns {Promise<T>}
   */
  async function onCard(messageId, fn) {
    if (cardBusy.has(messageId)) throw new InputError(t("FRACAS.Undo.Busy"));
    cardBusy.add(messageId);
    try {
      return await fn();
    } finally {
      cardBusy.delete(messageId);
    }
  }

  /**
   * Tell the GM what an undo gave back and, one by one, what it could not.
   * @param {Awaited<ReturnType<typeof undoChanges>>} out
   */
  function reportUndo({ restored, failed }) {
    const back = restored.filter((r) => !failed.some((f) => f.change === r.change && !f.partial));
    if (back.length) {
      vtt.notify("info", t("FRACAS.Undo.Done", { list: back.map((r) => t("FRACAS.Undo.Back", { name: r.change.name, value: r.value })).join(", ") }));
    }
    if (failed.length) vtt.notify("warn", t("FRACAS.Undo.NotRestored", { list: failed.map((f) => f.why).join("; ") }));
  }

  /**
   * Undo the damage of a fracas chat card, by delta: each actor gets back what the card
   * took, whatever happened to it since; what cannot be given back is named, and stays
   * on the card to undo later.
   * @param {string} messageId
   */
  async function undo(messageId) {
    requireGM("UndoDamage");
    return onCard(messageId, async () => {
      const flags = vtt.messageFlags(messageId);
      if (!flags) throw new InputError(t("FRACAS.Error.Actions24"));
      if (flags.undone) throw new InputError(t("FRACAS.Error.Actions25"));
      const changes = changesOf(flags);
      if (!changes.length) throw new InputError(t("FRACAS.Error.Actions26"));
      const out = await undoChanges(changes);
      const kept = out.failed.filter((f) => !f.partial).map((f) => f.change);
      if (kept.length) await saveChanges(messageId, flags, changes.filter((c) => kept.some((k) => k.uuid === c.uuid)));
      else await vtt.setMessageFlags(messageId, { undone: { at: new Date().toISOString() } });
      reportUndo(out);
      return {
        restored: out.restored.map((r) => ({ uuid: r.change.uuid, name: r.change.name, value: r.value, given: r.taken - r.lost })),
        failed: out.failed.map((f) => f.why),
      };
    });
  }

  /**
   * The per-target buttons of a card: apply `multiplier` (1, 0.5 or 2) of the damage the
   * target took in that attack (half rounds down), or undo what was applied to it.
   * @param {string} messageId
   * @param {string} targetId
   * @param {number} [multiplier]
   */
  async function applyTarget(messageId, targetId, multiplier = 1) {
    requireGM("ApplyDamage");
    return onCard(messageId, async () => {
      const flags = vtt.messageFlags(messageId);
      if (!flags) throw new InputError(t("FRACAS.Error.Actions27"));
      const target = (flags.targets ?? []).find((x) => x.id === targetId);
      if (!target) throw new InputError(t("FRACAS.Error.Actions28"));
      if (![1, 0.5, 2].includes(multiplier)) throw new InputError(t("FRACAS.Error.Actions29", { multiplier }));
      const changes = changesOf(flags);
      if (changes.some((c) => (c.targets ?? []).includes(targetId))) {
        throw new InputError(t("FRACAS.Error.Actions30", { name: target.name }));
      }
      if (!target.uuid) throw new InputError(t("FRACAS.Error.Actions31", { name: target.name }));
      const damage = Math.floor((target.damage ?? 0) * multiplier);
      // before and after are measured on the actor's queue, when the damage lands.
      /** @type {Change & {multiplier: number}} */
      const change = { uuid: target.uuid, name: target.name ?? targetId, path: mapping().body, before: 0, damage, after: 0, targets: [targetId], multiplier };
      await applyChanges([change]);
      await saveChanges(messageId, flags, [...changes, change], { undone: null });
      return change;
    });
  }

  /**
   * @param {string} messageId
   * @param {string} targetId
   */
  async function undoTarget(messageId, targetId) {
    requireGM("UndoDamage");
    return onCard(messageId, async () => {
      const flags = vtt.messageFlags(messageId);
      if (!flags) throw new InputError(t("FRACAS.Error.Actions32"));
      const changes = changesOf(flags);
      const mine = changes.filter((c) => (c.targets ?? []).includes(targetId));
      if (!mine.length) throw new InputError(t("FRACAS.Error.Actions33"));
      const out = await undoChanges(mine);
      const kept = out.failed.filter((f) => !f.partial).map((f) => f.change);
      const rest = changes.filter((c) => !mine.includes(c) || kept.includes(c));
      await saveChanges(messageId, flags, rest, { undone: rest.length ? null : flags.undone });
      reportUndo(out);
      return mine;
    });
  }

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
    const choices = weaponsOf(view).map((w) => ({ id: w.id, name: w.name }));
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
    if (!vtt.isGM() && parsed.action !== "odds" && setting("playerFreeForm") !== true) {
      // Only which attack: the GM's side reads its numbers from the actor.
      const choice = flagIndex ? { strike: Number(flagIndex[1]) } : parsed.weapon ? { item: parsed.weapon } : {};
      return attack({ attacker: base.attacker, targets: base.targets, ...choice });
    }
    // A weapon item's strikes, an own strike, or the dialog's strike, at each target.
    const list = flagIndex ? ownAttack(controlled[0], { strike: Number(flagIndex[1]) })
      : parsed.weapon ? itemStrikes(controlled[0], parsed.weapon) : [parsed.strike];
    const strikes = targets.flatMap((x) => list.map((st) => ({ ...st, target: x.id })));
    const options = { ...base, strikes };
    return parsed.action === "odds" ? viaHolder("odds", odds)(options) : viaHolder("attack", attack)(options);
  }

  /** The mob macro: the dialog's strike for every actor without its own strikes flag. */
  async function mobDialog() {
    requireGM("Mobs");
    if (vtt.holdsConnection()) link();
    const attackers = vtt.controlled();
    if (!attackers.length) throw new InputError(t("FRACAS.Error.Actions34"));
    const targets = uniqueViews(vtt.targeted());
    if (!targets.length) throw new InputError(t("FRACAS.Notify.NoTargets"));
    const parsed = await askStrike(t("FRACAS.Dialog.MobTitle"), `${attackers.length} tokens`, targets);
    if (!parsed) return null;
    if (parsed.options.rolls) throw new InputError(t("FRACAS.Error.Actions35"));
    return viaHolder("mob", mob)({ ...parsed.options, strikes: [parsed.strike] });
  }

  /** The combat's standing combatants by token id (their views), for a fight's members. */
  /**
   * @param {CombatView} combat
   * @returns {Map<string, TokenView>}
   */
  function membersOf(combat) {
    /** @type {Map<string, TokenView>} */
    const byToken = new Map();
    for (const c of combat.combatants) if (c.view?.id) byToken.set(c.view.id, { ...c.view, id: c.view.id, name: c.name ?? c.view.name });
    return byToken;
  }

  /**
   * A whole fight on the bridge (docs/ENCOUNTERS.md), one round per call: the first call
   * (or `new: true`) makes the encounter from the combat's standing combatants (players'
   * actors are the party, the rest the foes); each call plays the next round with every
   * member's Body as it is now, applies the damage (the system's damage API where there
   * is one, defeated at 0) and posts the round's card with Undo. The encounter's name and
   * round are kept in the combat's flags.
   * @param {Json} [options]
   */
  async function round(options = {}) {
    requireGM("Rounds");
    const conn = link();
    const combat = vtt.combat();
    if (!combat) throw new InputError(t("FRACAS.Error.Actions36"));
    const map = mapping();
    let state = options.new ? null : vtt.combatFlag(combat);
    if (!state || typeof state.name !== "string") {
      const built = buildScenario({ ruleset: options.ruleset ?? "enchanted-realms", combatants: combat.combatants, mapping: map });
      const name = `foundry-${String(combat.id).replace(/[^A-Za-z0-9]/g, "").slice(0, 20)}-${newId().slice(0, 8)}`;
      const made = await conn.call("encounter.new", { name, scenario: built.scenario, replace: true },
        { id: newId() });
      /** @type {Record<string, number>} */
      const max = {};
      for (const side of Object.values(made.sides ?? {})) for (const m of side) max[m.id] = m.hp_max;
      state = { name, round: 0, names: built.names, max };
      await vtt.setCombatFlag(combat, state);
    }
    const views = membersOf(combat);
    /** @type {Record<string, number>} */
    const hp = {};
    for (const id of Object.keys(state.names)) {
      const view = views.get(id);
      const raw = view?.actor ? numberAt(view.actor, map.body) : undefined;
      if (raw !== undefined && Number.isFinite(state.max?.[id])) hp[id] = Math.max(0, Math.min(state.max[id], Math.round(raw)));
    }
    /** @type {Record<string, any>} */
    const params = { name: state.name, expect_round: state.round, hp };
    const seed = seedOption(options);
    if (seed !== undefined && seed !== null) params.seed = seed;
    const requestId = options.requestId ?? newId();
    const log = await conn.call("encounter.round", params, { id: requestId });
    /** @type {Record<string, number>} */
    const damageById = {};
    /** @type {TokenView[]} */
    const hit = [];
    for (const [id, m] of Object.entries(log.members ?? {})) {
      // Only this fight's tokens: an answer cannot reach any other.
      if (!Object.prototype.hasOwnProperty.call(state.names, id) || hp[id] === undefined) continue;
      const taken = hp[id] - m.hp;
      const view = views.get(id);
      if (Number.isInteger(taken) && taken > 0 && view) {
        damageById[id] = taken;
        hit.push(view);
      }
    }
    const apply = options.applyDamage ?? setting("applyDamage") !== false;
    const changes = apply ? planDamage({ targets: hit, damageById, path: map.body,
      floorAtZero: setting("floorBodyAtZero") !== false }) : [];
    // Hidden combatants are the GM's: with any in the fight, the whole round goes to the
    // GMs (with its Undo), and the players get a card without them.
    /** @type {Set<string>} */
    const hidden = new Set();
    for (const c of combat.combatants) if (c.hidden && c.view?.id) hidden.add(c.view.id);
    // Who took damage this round, for the card's per-target buttons (Undo, Apply, Half, Double).
    const hurt = hit.map((v) => ({ id: v.id, name: state.names[v.id] ?? v.name, uuid: v.actorUuid ?? null, damage: damageById[v.id] }));
    const everyone = setting("chatVisibility") !== "gm";
    const message = await applyAndPost(changes, {
      content: renderRoundCard(log, { names: state.names, requestId, hurt }, { undoable: changes.length > 0 }),
      rolls: await vtt.makeRolls(roundRollSpecs(log, new Set(), state.names)),
      flags: cardFlags("round", requestId, String(log.seed), changes, hurt),
      speaker: null,
      whisperToGM: !everyone || hidden.size > 0,
    });
    if (everyone && hidden.size) {
      await vtt.postCard({
        content: renderRoundCard(log, { names: state.names, requestId, hidden }),
        rolls: await vtt.makeRolls(roundRollSpecs(log, hidden, state.names)),
        flags: { [MODULE_ID]: { kind: "round-public", requestId } }, speaker: null, whisperToGM: false,
      });
    }
    await vtt.setCombatFlag(combat, { ...state, round: log.round });
    return { requestId, result: log, messageId: message?.id ?? null, changes };
  }

  /** Take the last round back on the bridge, and set every member's Body (and defeated mark) to match. */
  async function roundUndo() {
    requireGM("UndoRounds");
    const conn = link();
    const combat = vtt.combat();
    if (!combat) throw new InputError(t("FRACAS.Error.Actions37"));
    const state = vtt.combatFlag(combat);
    if (!state || typeof state.name !== "string" || !state.round) throw new InputError(t("FRACAS.Error.Actions38"));
    const shown = await conn.call("encounter.undo", { name: state.name, expect_round: state.round },
      { id: newId() });
    const map = mapping();
    const views = membersOf(combat);
    for (const side of Object.values(shown.sides ?? {})) {
      for (const m of side) {
        const view = views.get(m.id);
        if (!view?.actorUuid || !Object.prototype.hasOwnProperty.call(state.names, m.id)) continue;
        const doc = await vtt.getDocument(view.actorUuid);
        if (!doc) continue;
        await vtt.updateDocument(doc, { [map.body]: m.hp });
        if (vtt.setDefeated && setting("markDefeated") !== false) await vtt.setDefeated(doc, m.status === "down");
      }
    }
    await vtt.setCombatFlag(combat, { ...state, round: shown.round });
    vtt.notify("info", t("FRACAS.Round.Undone", { round: shown.round }));
    return shown;
  }

  // ── a GM whose tab does not hold the bridge (an assistant GM, a second tab) ──
  // Its actions go to the holding client like a player's request, with the selection of
  // this tab (controlled and targeted tokens) written out as token ids.

  /** @param {any} ref  a token, a token document or an id, from a macro */
  const idOf = (ref) => (ref && typeof ref === "object" ? ref.document?.id ?? ref.id : ref);
  /** @param {unknown} refs */
  const idsOf = (refs) => (refs === undefined ? undefined : (Array.isArray(refs) || refs instanceof Set ? [...refs] : [refs]).map(idOf));
  const controlledIds = () => vtt.controlled().map((v) => v.id);
  const targetedIds = () => uniqueViews(vtt.targeted()).map((v) => v.id);
  const oneControlled = () => (vtt.controlled().length === 1 ? vtt.controlled()[0].id : undefined);
  /** Each relayed action: how this tab's selection fills its options. */
  /** @type {Record<string, (o: Json) => Json>} */
  const SELECTION = {
    attack: (o) => ({ attacker: idOf(o.attacker) ?? oneControlled(), targets: idsOf(o.targets) ?? targetedIds(), nearby: idsOf(o.nearby),
      scene: o.scene ?? vtt.sceneId?.() ?? undefined }),
    odds: (o) => ({ attacker: idOf(o.attacker) ?? oneControlled(), targets: idsOf(o.targets) ?? targetedIds() }),
    mob: (o) => ({ attackers: idsOf(o.attackers) ?? controlledIds(), targets: idsOf(o.targets) ?? targetedIds() }),
    compete: (o) => ({ challenger: idOf(o.challenger) ?? oneControlled(), defender: idOf(o.defender) ?? targetedIds()[0] }),
    impale: (o) => ({ pikeman: idOf(o.pikeman) ?? oneControlled(), charger: idOf(o.charger) ?? targetedIds()[0] }),
    initiative: () => ({}),
    round: () => ({}),
    roundUndo: () => ({}),
  };
  /** The holder's side: the actions a GM-role sender may run there. */
  /** @type {Record<string, (o: Json) => Promise<unknown>>} the actions another GM tab may relay */
  const RELAYED = {
    attack: (o) => attack(o), odds: (o) => odds(o), mob: (o) => mob(o), compete: (o) => compete(o),
    impale: (o) => impale(o), initiative: (o) => initiative(o), round: (o) => round(o), roundUndo: () => roundUndo(),
    undo: (o) => undo(o.messageId), applyTarget: (o) => applyTarget(o.messageId, o.targetId, o.multiplier),
    undoTarget: (o) => undoTarget(o.messageId, o.targetId),
  };

  /** `fn`, or on a GM tab that does not hold the bridge, the same action on the holding client. */
  /**
   * @param {string} name
   * @param {(...args: any[]) => Promise<unknown>} fn  one of the actions (each with its own arguments)
   */
  const viaHolder = (name, fn) => async (/** @type {any[]} the action's own arguments, passed on as they are */ ...args) => {
    if (!vtt.isGM() || vtt.holdsConnection()) return fn(...args);
    /** @type {Record<string, any>} */
    let data;
    if (name === "undo") data = { messageId: args[0] };
    else if (name === "applyTarget") data = { messageId: args[0], targetId: args[1], multiplier: args[2] ?? 1 };
    else if (name === "undoTarget") data = { messageId: args[0], targetId: args[1] };
    else {
      const options = { ...(args[0] ?? {}) };
      data = { ...options, ...SELECTION[name](options) };
      for (const [k, v] of Object.entries(data)) if (v === undefined) delete data[k];
    }
    return relay(name, data);
  };

  return {
    answerRequest,
    LIMITS,
    round: guarded(viaHolder("round", round)),
    roundUndo: guarded(viaHolder("roundUndo", roundUndo)),
    attack: guarded(viaHolder("attack", attack)),
    odds: guarded(viaHolder("odds", odds)),
    mob: guarded(viaHolder("mob", mob)),
    initiative: guarded(viaHolder("initiative", initiative)),
    applyTarget: guarded(viaHolder("applyTarget", applyTarget)),
    undoTarget: guarded(viaHolder("undoTarget", undoTarget)),
    compete: guarded(viaHolder("compete", compete)),
    impale: guarded(viaHolder("impale", impale)),
    undo: guarded(viaHolder("undo", undo)),
    attackDialog: guarded(attackDialog),
    mobDialog: guarded(mobDialog),
  };
}
