// What the macro API does, step by step, against an injected VTT adapter (the edge
// in main.js implements it with Foundry documents; tests implement it with fakes).
//
// Every action checks its input and the sheets before sending anything, and writes
// to the world only after the bridge has answered: damage is applied all-or-none,
// and taken back if the chat card cannot be posted, so a failure leaves nothing
// half-applied. Failures become one notification naming the problem.
//
// One module per feature in actions/ (attack, mob, odds, initiative, compete and
// impale, round, forecast, damage and undo, players' requests, the relay of a GM tab that
// does not hold the bridge, the dialogs), each a factory over the shared context
// (actions/context.js); createActions composes them into the API.

import { applyingActions } from "./actions/applying.js";
import { attackActions } from "./actions/attack.js";
import { bridgedActions } from "./actions/bridged.js";
import { makeContext } from "./actions/context.js";
import { dialogsActions } from "./actions/dialogs.js";
import { forecastActions } from "./actions/forecast.js";
import { initiativeActions } from "./actions/initiative.js";
import { KINDS } from "./kinds.js";
import { mobActions } from "./actions/mob.js";
import { oddsActions } from "./actions/odds.js";
import { LIMITS, playersActions } from "./actions/players.js";
import { relayActions } from "./actions/relay.js";
import { roundActions } from "./actions/round.js";
import { specialsActions } from "./actions/specials.js";

export { displayNames, explainPath } from "./actions/context.js";
export { LIMITS } from "./actions/players.js";

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
 *   messageId?: string|null, total_damage?: number|null, resent?: boolean, result?: any}} Answer
 *   result: a player's odds (the bridge's attack.odds answer)
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
 * @property {(card: {content: string, rolls?: any[], flags: Record<string, Flags>, speaker?: TokenView|null, whisperToGM?: boolean,
 *   rollMode?: string, requester?: string|null, gmRequester?: boolean}) => Promise<{id?: string|null}|null|undefined>} postCard
 *   rolls: Foundry Rolls (makeRolls' answer); whisperToGM: GMs only, whatever the roll mode; else rollMode
 *   (audience.js) for the user `requester` on another client (null: this client's own card; gmRequester: that
 *   user has a GM role) decides who sees it; a `masked` speaker is named by its alias only
 * @property {(id: string) => Flags|null} messageFlags   the message's fracas flags
 * @property {(id: string, flags: object) => Promise<unknown>} setMessageFlags
 * @property {(uuid: string) => Promise<any>} getDocument  a document (an Actor: its data is the game system's, untyped)
 * @property {(doc: any, data: object) => Promise<unknown>} updateDocument  doc: a document from getDocument
 * @property {() => CombatView|null} combat
 * @property {(combat: CombatView, values: {id: string, value: number}[], options?: {keepTurnOf?: string|null}) => Promise<unknown>} setInitiative
 * @property {(combat: CombatView) => any} combatFlag  the fracas encounter a combat plays (its flags: the module's own data), or null
 * @property {(combat: CombatView, value: object) => Promise<unknown>} setCombatFlag
 * @property {(html: string, title: string, okLabel?: string) => Promise<Record<string, unknown>|null>} promptForm
 *   a form in a dialog: its fields' values when submitted (the OK button says okLabel, else "Roll"), null when closed
 * @property {(level: "info"|"warn"|"error", text: string) => void} notify
 * @property {(actor: any, on: boolean) => Promise<unknown>} [setDefeated]  the defeated mark (actor: an Actor, the system's)
 * @property {(actor: any, ids: string[], on: boolean) => Promise<string|null>} [setStatus]  a status effect on or off (actor:
 *   an Actor): the first of `ids` the world has; its id, or null when the world has none of them
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
 * @property {() => string} [rollMode]                       this user's chat roll mode (core.rollMode)
 * @property {(userId: string) => string|null} [userScene]    the scene a user is viewing (User#viewedScene), null when unknown
 * @property {() => string} [defeatedStatus]                  the status id of a defeated token
 * @property {(sceneId?: string) => {grid: import("./bystanders.js").Grid, views: TokenView[]}|null} [sceneTokens]
 *   every token of a scene (by id, else the one this client shows) with its place, and the scene's grid
 */

/**
 * The shared part of the actions over an adapter and the connection.
 * @param {object} deps
 * @param {Vtt} deps.vtt
 * @param {() => import("./connection.js").BridgeConnection|null} deps.connection
 *   the live connection, or null when this client does not hold it
 * @param {() => string} deps.newId
 * @param {(error: unknown) => void} [deps.log]
 * @param {() => number} [deps.now]  the clock the per-player rate limit reads (ms)
 * @param {import("./damage.js").ActorQueue} [deps.queue]  the per-actor damage queue (one per client)
 */
export function createActions(deps) {
  const ctx = /** @type {import("./actions/context.js").Ctx} the features are added just below */ (makeContext(deps));
  for (const feature of [applyingActions, attackActions, playersActions, oddsActions, mobActions, initiativeActions,
    specialsActions, dialogsActions, roundActions, forecastActions, relayActions, bridgedActions]) Object.assign(ctx, feature(ctx));
  const { guarded, viaHolder } = ctx;
  return {
    answerRequest: ctx.answerRequest,
    LIMITS,
    round: guarded(viaHolder("round", ctx.round)),
    roundUndo: guarded(viaHolder("roundUndo", ctx.roundUndo)),
    attack: guarded(viaHolder("attack", ctx.attack)),
    odds: guarded(viaHolder("odds", ctx.odds)),
    mob: guarded(viaHolder("mob", ctx.mob)),
    initiative: guarded(viaHolder("initiative", ctx.initiative)),
    applyTarget: guarded(viaHolder("applyTarget", ctx.applyTarget)),
    undoTarget: guarded(viaHolder("undoTarget", ctx.undoTarget)),
    compete: guarded(viaHolder("compete", ctx.compete)),
    impale: guarded(viaHolder("impale", ctx.impale)),
    undo: guarded(viaHolder("undo", ctx.undo)),
    forecast: guarded(viaHolder("forecast", ctx.forecast)),
    // The dialog runs on this tab (it is the GM's screen); the sweep itself where the bridge is held.
    forecastVary: guarded(async (/** @type {string} */ messageId, /** @type {Json|undefined} */ choice = undefined) => {
      const asked = choice ?? await ctx.askVary(messageId);
      return asked ? viaHolder("forecastVary", ctx.forecastVary)(messageId, asked) : null;
    }),
    forecastShare: guarded(viaHolder("forecastShare", ctx.forecastShare)),
    attackDialog: guarded(ctx.attackDialog),
    mobDialog: guarded(ctx.mobDialog),
    // The kinds the bridge rolls (kinds.js): api.save(options), api.touch, api.drop, api.lock, api.throw, and
    // api.bridgedDialog(kind) (the macros'; without a kind it asks which).
    ...Object.fromEntries(Object.keys(KINDS).map((kind) => [kind, guarded(viaHolder(kind, (/** @type {Json} */ o = {}) => ctx.bridged(kind, o)))])),
    bridgedDialog: guarded(ctx.bridgedDialog),
  };
}
