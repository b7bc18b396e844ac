// What the macro API does, step by step, against an injected VTT adapter (the edge
// in main.js implements it with Foundry documents; tests implement it with fakes).
//
// Every action checks its input and the sheets before sending anything, and writes
// to the world only after the bridge has answered: damage is applied all-or-none,
// and taken back if the chat card cannot be posted, so a failure leaves nothing
// half-applied. Failures become one notification naming the problem.

import {
  attackCardModel, attackRollSpecs, initiativeCardModel, initiativeRollSpecs, initiativeValues,
  mobCardModel, renderAttackCard, renderCompeteCard, renderImpaleCard, renderInitiativeCard, renderMobCard,
  renderOddsCard, renderRoundCard, renderRulesetCard, renderSideInitiativeCard, rulesetCardModel,
} from "./chat.js";
import { planDamage, planUndo } from "./damage.js";
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

/**
 * The VTT adapter the actions use.
 * @typedef {object} Vtt
 * @property {() => boolean} isGM
 * @property {() => object[]} controlled     token views of the controlled tokens
 * @property {() => object[]} targeted       token views of the user's targets
 * @property {(ref: unknown) => object|null} toView  a token, token document, id or name → view
 * @property {(key: string) => unknown} setting
 * @property {(key: string, value: unknown) => Promise<unknown>} setSetting
 * @property {(specs: object[]) => Promise<object[]>} makeRolls
 * @property {(card: object) => Promise<{id: string}>} postCard
 * @property {(id: string) => object|null} messageFlags   the message's fracas flags
 * @property {(id: string, flags: object) => Promise<unknown>} setMessageFlags
 * @property {(uuid: string) => Promise<object|null>} getDocument
 * @property {(doc: object, data: object) => Promise<unknown>} updateDocument
 * @property {() => object|null} combat     {id, combatants: [{id, name, view}]}
 * @property {(combat: object, values: object[], options?: {keepTurnOf?: string|null}) => Promise<unknown>} setInitiative
 * @property {(combat: any) => any} combatFlag  the fracas encounter a combat plays (its flags), or null
 * @property {(combat: any, value: object) => Promise<unknown>} setCombatFlag
 * @property {(html: string, title: string) => Promise<object|null>} promptForm
 * @property {(level: "info"|"warn"|"error", text: string) => void} notify
 * @property {(actor: object, on: boolean) => Promise<unknown>} [setDefeated]  the defeated mark
 * @property {(view: object) => boolean} ownsToken      this user owns the token's actor
 * @property {(userId: string, view: object) => boolean} userOwnsToken  that user owns it (GM side)
 * @property {() => boolean} holdsConnection    this client holds the bridge connection
 * @property {(action: string, data: object) => Promise<any>} askGM  a request to the active GM's client
 */

/** Names for the chat card: token names, numbered when two targets share one. */
export function displayNames(views) {
  /** @type {Record<string, number>} */
  const counts = {};
  for (const v of views) counts[v.name] = (counts[v.name] ?? 0) + 1;
  /** @type {Record<string, number>} */
  const seen = {};
  /** @type {Record<string, string>} */
  const names = {};
  for (const v of views) {
    if (counts[v.name] > 1) {
      seen[v.name] = (seen[v.name] ?? 0) + 1;
      names[v.id] = `${v.name} #${seen[v.name]}`;
    } else {
      names[v.id] = v.name ?? v.id;
    }
  }
  return names;
}

/**
 * Where a bridge error points, in the GM's words: "$.params.strikes[1].dice" is
 * "strike 2, at Goblin"; "$.params.targets.<token id>.ac" is "target Goblin".
 * @returns {string} a phrase, or "" when the path says nothing more
 */
export function explainPath(path, { strikes = [], names = {}, attackerName = "", profileNames = {} } = {}) {
  if (typeof path !== "string") return "";
  let m = /^\$\.params\.strikes\[(\d+)\]/.exec(path);
  if (m) {
    const strike = strikes[Number(m[1])];
    const at = strike && names[strike.target] ? `, at ${names[strike.target]}` : "";
    return `strike ${Number(m[1]) + 1}${at}`;
  }
  m = /^\$\.params\.targets(?:\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\]|\\.)*)'\])/.exec(path);
  if (m) {
    const id = m[1] ?? m[2].replace(/\\(.)/g, "$1");
    return names[id] ? `target ${names[id]}` : "";
  }
  m = /^\$\.params\.profiles(?:\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\]|\\.)*)'\])/.exec(path);
  if (m) {
    const id = m[1] ?? m[2].replace(/\\(.)/g, "$1");
    return profileNames[id] ? `attackers ${profileNames[id]}` : "";
  }
  if (path.startsWith("$.params.attacker") && attackerName) return `attacker ${attackerName}`;
  return "";
}

/** Add the GM's words for a bridge error's path to its message. */
function explained(error, ctx) {
  if (error instanceof BridgeError) {
    const where = explainPath(error.path, ctx);
    if (where) error.message = `${error.message} [${where}]`;
  }
  return error;
}

/**
 * The module API over an adapter and the connection.
 * @param {object} deps
 * @param {Vtt} deps.vtt
 * @param {() => import("./connection.js").BridgeConnection|null} deps.connection
 *   the live connection, or null when this client does not hold it
 * @param {() => string} deps.newId
 * @param {(error: unknown) => void} [deps.log]
 */
export function createActions({ vtt, connection, newId, log = () => {} }) {
  const mapping = () => readMapping((key) => vtt.setting(key));
  const setting = (key) => vtt.setting(key);

  /** Run `fn`; on failure notify the GM, log, and resolve null instead of throwing. */
  const guarded = (fn) => async (...args) => {
    try {
      return await fn(...args);
    } catch (error) {
      vtt.notify(error instanceof FracasError ? "warn" : "error", describeError(error));
      if (!(error instanceof FracasError)) log(error);
      return null;
    }
  };

  function requireGM(what) {
    if (!vtt.isGM()) throw new InputError(`only a GM can ${what}: the GM's browser is the one connected to the bridge`);
  }

  function link() {
    const conn = connection();
    if (!conn) {
      throw new ConnectionError("this browser does not hold the bridge connection: only the active GM's client connects");
    }
    return conn;
  }

  function seedOption(options) {
    const seed = normalizeSeed(options.seed);
    if (seed === null) throw new InputError(`seed ${String(options.seed)} is not a whole number from 0 to 2^64 − 1`);
    return seed;
  }

  function viewsOf(refs, label) {
    if (refs === undefined) return undefined;
    const list = Array.isArray(refs) || refs instanceof Set ? [...refs] : [refs];
    return list.map((ref) => {
      const view = vtt.toView(ref);
      if (!view) throw new InputError(`${label}: ${JSON.stringify(typeof ref === "string" ? ref : ref?.id ?? String(ref))} is not a token on this scene`);
      return view;
    });
  }

  /**
   * Apply `changes` (all or none), then post the card; if posting fails the damage
   * is taken back, so the world never holds damage without its Undo button.
   */
  async function applyAndPost(changes, card) {
    await applyChanges(changes);
    try {
      return await vtt.postCard(card);
    } catch (error) {
      let tail = "the damage was taken back";
      try {
        await revertChanges(changes);
      } catch (inner) {
        tail = `and taking the damage back failed too (${inner.message})`;
      }
      throw new FracasError(`posting the chat card failed (${error?.message ?? error}); ${tail}`);
    }
  }

  const numberAt = (doc, path) => {
    if (!path) return undefined;
    const raw = getPath(doc, path);
    const n = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
    return typeof n === "number" && Number.isFinite(n) ? n : undefined;
  };

  /**
   * Apply planned changes, all or none. An actor with the game system's own damage method
   * (actor.applyDamage, e.g. dnd5e: temporary HP first) takes the damage through it, when
   * the setting allows; the others get the Body path written. Each change records what it
   * found before (Body and temporary Body) so Undo restores exactly that; a target brought
   * to 0 is marked defeated (when the setting allows), and Undo takes that back too.
   */
  async function applyChanges(changes) {
    const docs = [];
    for (const c of changes) {
      let doc = null;
      try {
        doc = await vtt.getDocument(c.uuid);
      } catch {
        doc = null;
      }
      if (!doc) throw new FracasError(`${c.name}: the actor is gone (${c.uuid}); nothing was changed`);
      docs.push(doc);
    }
    const done = [];
    const tempPath = mapping().bodyTemp;
    for (let i = 0; i < changes.length; i++) {
      const c = changes[i];
      const doc = docs[i];
      try {
        if (tempPath) {
          c.tempPath = tempPath;
          c.tempBefore = numberAt(doc, tempPath) ?? null;
        }
        if (setting("damageThroughSystem") !== false && typeof doc.applyDamage === "function") {
          await doc.applyDamage(c.damage);
          c.system = true;
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
        const failedBack = [];
        for (const j of done.reverse()) {
          try {
            await revertOne(changes[j], docs[j]);
          } catch {
            failedBack.push(changes[j].name);
          }
        }
        const why = error instanceof Error ? error.message : String(error);
        const tail = failedBack.length ? `; could not put back ${failedBack.join(", ")}: check them by hand` : "; nothing was changed";
        throw new FracasError(`updating ${c.name} failed (${why})${tail}`);
      }
    }
  }

  /** Put one applied change back: Body (and temporary Body) as before, the defeated mark off. */
  async function revertOne(c, doc) {
    const data = { [c.path]: c.before };
    if (c.tempPath && c.tempBefore !== null && c.tempBefore !== undefined) data[c.tempPath] = c.tempBefore;
    await vtt.updateDocument(doc, data);
    if (c.defeated && vtt.setDefeated) await vtt.setDefeated(doc, false);
  }

  async function revertChanges(changes) {
    for (const c of changes) {
      const doc = await vtt.getDocument(c.uuid);
      if (doc) await revertOne(c, doc);
    }
  }

  function cardFlags(kind, requestId, seed, changes, targets = []) {
    return { [MODULE_ID]: { kind, requestId, seed, changes, targets, undone: null } };
  }

  /** The card's targets as kept in its flags: what each may take (per-target buttons). */
  function flagTargets(model, used) {
    return model.targets.filter((t) => t.damage > 0).map((t) => {
      const view = used.find((v) => v.id === t.id);
      return { id: t.id, name: t.name, uuid: view?.actorUuid ?? null, damage: t.damage };
    });
  }

  /**
   * Resolve an attack: the controlled token (or `attacker`) strikes the user's
   * targets (or `targets`). Returns { requestId, result, messageId, changes }.
   */
  async function attack(options = {}) {
    if (!vtt.isGM()) return playerAttack(options);
    requireGM("resolve attacks with fracas");
    const conn = link();
    const attacker = attackerOf(options);
    const targets = uniqueViews(viewsOf(options.targets, "targets") ?? vtt.targeted());
    const apply = options.applyDamage ?? setting("applyDamage") !== false;
    const map = mapping();
    const ruleset = options.ruleset ?? "enchanted-realms";
    if (options.item !== undefined && options.strikes === undefined) {
      // A weapon item's strikes (flags.fracas.strikes): each at every target.
      const list = itemStrikes(attacker, options.item);
      options = { ...options, strikes: targets.flatMap((tv) => list.map((st) => ({ ...st, target: tv.id }))) };
    }
    if (ruleset !== "enchanted-realms") return rulesetAttack(conn, ruleset, attacker, targets, apply, map, options);
    const { request, targets: used } = buildAttackRequest({
      attacker, targets, strikes: options.strikes, mapping: map,
      options: {
        advantage: options.advantage, disadvantage: options.disadvantage, seed: seedOption(options),
        rolls: options.rolls, conditions: setting("conditionsFromStatuses") !== false, needBody: apply,
        nearby: viewsOf(options.nearby, "nearby"), flee: options.flee, grappling: options.grappling,
        defenseRolls: options.defenseRolls, defenseRollsSetting: setting("defenseRolls") === true,
      },
    });
    const requestId = options.requestId ?? newId();
    const names = displayNames(used);
    const result = await conn.call("attack.resolve", request, { id: requestId }).catch((error) => {
      throw explained(error, { strikes: request.strikes, names, attackerName: attacker.name });
    });
    const model = attackCardModel(result, { attackerName: attacker.name, names, requestId });
    const changes = apply
      ? planDamage({
        targets: used, damageById: Object.fromEntries(model.targets.map((t) => [t.id, t.damage])),
        path: map.body, floorAtZero: setting("floorBodyAtZero") !== false,
      })
      : [];
    for (const c of changes) c.targets = used.filter((v) => v.actorUuid === c.uuid).map((v) => v.id);
    const rolls = await vtt.makeRolls(attackRollSpecs(model));
    const message = await applyAndPost(changes, {
      content: renderAttackCard(model, { undoable: changes.length > 0 }),
      rolls,
      flags: cardFlags("attack", requestId, model.seed, changes, flagTargets(model, used)),
      speaker: attacker,
      whisperToGM: setting("chatVisibility") === "gm",
    });
    return { requestId, result, messageId: message?.id ?? null, changes };
  }

  /** The fracas weapons of a token's actor: items whose flags.fracas.strikes (or .strike) hold strikes. */
  function weaponsOf(view) {
    const out = [];
    for (const item of view?.actor?.items ?? []) {
      const data = item?.flags?.[MODULE_ID];
      const strikes = Array.isArray(data?.strikes) ? data.strikes : data?.strike ? [data.strike] : null;
      if (strikes && strikes.length) out.push({ id: item.id, name: item.name, strikes });
    }
    return out;
  }

  function itemStrikes(view, ref) {
    const weapons = weaponsOf(view);
    const found = weapons.filter((w) => w.id === ref || w.name === ref);
    if (found.length !== 1) {
      throw new InputError(`${who(view)}: no single weapon "${ref}" with fracas strikes (flags.fracas.strikes); `
        + `weapons with them: ${weapons.map((w) => w.name).join(", ") || "none"}`);
    }
    return found[0].strikes.map((st) => {
      if (st === null || typeof st !== "object" || Array.isArray(st)) throw new InputError(`${found[0].name}: a strike in flags.fracas.strikes is not an object`);
      const { target: _ignored, ...rest } = st;
      return rest;
    });
  }

  /** What a player's attack request may carry to the GM (the dice are the GM's to choose). */
  const PLAYER_OPTIONS = ["strikes", "advantage", "disadvantage", "ruleset", "attackerData", "targetData", "nearby",
    "flee", "grappling", "item"];

  /**
   * A player's attack: only the active GM's client reaches the bridge, so the request goes
   * there (vtt.askGM: Foundry's socket, which names the sender) and the GM's client checks
   * that this user owns the attacking token, resolves it, applies the damage and posts the
   * card. The player gets the outcome, or a clear message when no GM is connected.
   */
  async function playerAttack(options) {
    if (options.seed !== undefined || options.rolls !== undefined) {
      throw new InputError("only the GM chooses the dice (seed, physical dice); attack without them");
    }
    const attacker = attackerOf(options);
    if (!vtt.ownsToken(attacker)) throw new InputError(t("FRACAS.Notify.NotYourToken"));
    const targets = uniqueViews(viewsOf(options.targets, "targets") ?? vtt.targeted());
    if (!targets.length) throw new InputError("no targets: target at least one token (T key)");
    const request = { attacker: attacker.id, targets: targets.map((v) => v.id) };
    for (const key of PLAYER_OPTIONS) if (options[key] !== undefined) request[key] = options[key];
    if (Array.isArray(request.nearby)) request.nearby = viewsOf(request.nearby, "nearby").map((v) => v.id);
    const answer = await vtt.askGM("attack", request);
    if (!answer || answer.error) throw new FracasError(answer?.error ?? "the GM's client gave no answer");
    return answer;
  }

  /**
   * The GM's side of a player's attack (`senderId`: the user Foundry says sent it). Refuses
   * a token that user does not own; answers {requestId, messageId, total_damage} or {error}.
   */
  async function answerPlayerAttack(request, senderId) {
    try {
      if (!vtt.isGM() || !vtt.holdsConnection()) return null; // another GM's client answers
      if (!request || typeof request !== "object" || typeof request.attacker !== "string") {
        return { error: "a malformed attack request" };
      }
      const [attacker] = viewsOf(request.attacker, "attacker");
      if (!vtt.userOwnsToken(senderId, attacker)) return { error: t("FRACAS.Notify.NotYourToken") };
      const options = { attacker: attacker.id, targets: Array.isArray(request.targets) ? request.targets : [] };
      for (const key of PLAYER_OPTIONS) if (request[key] !== undefined) options[key] = request[key];
      const out = await attack(options);
      return { requestId: out.requestId, messageId: out.messageId, total_damage: out.result.total_damage };
    } catch (error) {
      if (!(error instanceof FracasError)) log(error);
      return { error: describeError(error) };
    }
  }

  /** `attack({ruleset, …})` for Worldwalker, Cartyrion and old-school: same steps, the ruleset's card. */
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
    const model = rulesetCardModel(result, { attackerName: attacker.name, names, requestId });
    const changes = apply
      ? planDamage({
        targets: used, damageById: Object.fromEntries(model.targets.map((t) => [t.id, t.damage])),
        path: map.body, floorAtZero: setting("floorBodyAtZero") !== false,
      })
      : [];
    const message = await applyAndPost(changes, {
      content: renderRulesetCard(model, { undoable: changes.length > 0 }),
      rolls: [],
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
   */
  async function odds(options = {}) {
    requireGM("ask fracas for odds");
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
    const remaining = {};
    for (const t of used) {
      const body = Number(getPath(t.actor, map.body));
      if (Number.isInteger(body) && body > 0) remaining[t.id] = body;
    }
    const params = { ...request, remaining };
    if (options.count !== undefined) params.count = options.count;
    if (options.atLeast !== undefined) params.at_least = options.atLeast;
    const names = displayNames(used);
    const result = await conn.call("attack.odds", params, { id: newId() }).catch((error) => {
      throw explained(error, { strikes: request.strikes, names, attackerName: attacker.name });
    });
    const message = await vtt.postCard({
      content: renderOddsCard(result, { attackerName: attacker.name, names }),
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
    requireGM("resolve mob attacks with fracas");
    const conn = link();
    const attackers = viewsOf(options.attackers, "attackers") ?? vtt.controlled();
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
    const model = mobCardModel(result, { names, profileNames, requestId });
    const changes = apply
      ? planDamage({
        targets: used, damageById: Object.fromEntries(model.targets.map((t) => [t.id, t.damage])),
        path: map.body, floorAtZero: setting("floorBodyAtZero") !== false,
      })
      : [];
    const message = await applyAndPost(changes, {
      content: renderMobCard(model, { undoable: changes.length > 0 }),
      rolls: [],
      flags: cardFlags("mob", requestId, model.seed, changes),
      speaker: null,
      whisperToGM: setting("chatVisibility") === "gm",
    });
    return { requestId, result, messageId: message?.id ?? null, changes };
  }

  /** ER-18 initiative for the active combat; sets the tracker and posts the dice. */
  async function initiative(options = {}) {
    requireGM("roll initiative with fracas");
    const conn = link();
    const combat = vtt.combat();
    if (!combat) throw new InputError("no active combat encounter: start one in the combat tracker");
    // Defeated combatants roll nothing and keep their place.
    const standing = combat.combatants.filter((c) => !c.defeated);
    if (!standing.length) throw new InputError("every combatant is defeated: nobody rolls initiative");
    const ruleset = options.ruleset ?? "enchanted-realms";
    if (ruleset === "cartyrion" || ruleset === "old-school") return sideInitiative(conn, ruleset, combat, standing, options);
    /** @type {Record<string, any>} */
    let request;
    if (ruleset === "worldwalker") {
      // WW-1: d20 + Dexterity modifier, from the actor flag flags.fracas.worldwalker.dex_mod.
      request = { ruleset, combatants: standing.map((c) => {
        const dex = getPath(c.view?.actor, "flags.fracas.worldwalker.dex_mod");
        if (!Number.isInteger(dex)) throw new InputError(`${c.name}: no Dexterity modifier in flags.fracas.worldwalker.dex_mod (WW-1)`);
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
    const visible = { ...model, order: model.order.filter((e) => !hidden.has(e.id)).map((e, i) => ({ ...e, rank: i + 1 })) };
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
    const result = /** @type {any} */ (await conn.call("initiative.roll", request, { id: requestId }));
    const sideOf = (c) => (c.view?.actor?.hasPlayerOwner ? "party" : "opponents");
    // Groups of sides in acting order: CT-1 names who goes first; OS-1 gives the groups.
    const groups = ruleset === "cartyrion"
      ? [[result.first], [result.first === "party" ? "opponents" : "party"]]
      : result.order;
    const values = standing.map((c) => ({ id: c.id, value: groups.length - groups.findIndex((g) => g.includes(sideOf(c))) }));
    await vtt.setInitiative(combat, values, { keepTurnOf: combat.current ?? null });
    const message = await vtt.postCard({
      content: renderSideInitiativeCard(result), rolls: [],
      flags: { [MODULE_ID]: { kind: "initiative", requestId, seed: String(result.seed), changes: [], undone: null } },
      speaker: null, whisperToGM: setting("chatVisibility") === "gm",
    });
    return { requestId, result, values, messageId: message?.id ?? null };
  }

  /** The attacker: `options.attacker` (a token, its id or name), or the one controlled token. */
  function attackerOf(options) {
    if (options.attacker !== undefined) return viewsOf(options.attacker, "attacker")[0];
    const controlled = vtt.controlled();
    if (controlled.length !== 1) throw new InputError(`select exactly one attacking token (${controlled.length} are selected)`);
    return controlled[0];
  }

  /** The one controlled token, or `ref` (a token, its id or name). */
  function oneToken(ref, label) {
    if (ref !== undefined) return viewsOf(ref, label)[0];
    const controlled = vtt.controlled();
    if (controlled.length !== 1) throw new InputError(`select exactly one token as the ${label} (${controlled.length} are selected)`);
    return controlled[0];
  }

  /**
   * An ER-19 competition: the controlled token (or `challenger`) against `defender` (or
   * the one targeted token). `contest`: plain, grapple, escape, shove, trip; `use` /
   * `against`: each side's attribute (strength or agility); `slick`, `challengerEdge` /
   * `defenderEdge`: "advantage" or "disadvantage". Posts the card; nothing is applied.
   */
  async function compete(options = {}) {
    requireGM("resolve competitions with fracas");
    const conn = link();
    const challenger = oneToken(options.challenger, "challenger");
    let defender;
    if (options.defender !== undefined) [defender] = viewsOf(options.defender, "defender");
    else {
      const targeted = uniqueViews(vtt.targeted());
      if (targeted.length !== 1) throw new InputError(`target exactly one token as the defender (${targeted.length} are targeted)`);
      [defender] = targeted;
    }
    if (challenger.id === defender.id) throw new InputError("a competition has two sides: target another token");
    const map = mapping();
    const edge = (value, label) => {
      if (value === undefined || value === null) return {};
      if (!["advantage", "disadvantage"].includes(value)) throw new InputError(`${label}: "${value}" is not advantage or disadvantage`);
      return { [value]: true };
    };
    const fromStatuses = { conditions: setting("conditionsFromStatuses") !== false };
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
      content: renderCompeteCard(result, { names }), rolls: [],
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
   */
  async function impale(options = {}) {
    requireGM("resolve impalements with fracas");
    const conn = link();
    const pikeman = oneToken(options.pikeman, "pikeman");
    let charger;
    if (options.charger !== undefined) [charger] = viewsOf(options.charger, "charger");
    else {
      const targeted = uniqueViews(vtt.targeted());
      if (targeted.length !== 1) throw new InputError(`target exactly one charging token (${targeted.length} are targeted)`);
      [charger] = targeted;
    }
    if (!Number.isInteger(options.closed)) throw new InputError("closed: give the feet the charger closed this turn (25 or more)");
    const map = mapping();
    const apply = options.applyDamage ?? setting("applyDamage") !== false;
    const body = Number(getPath(charger.actor, map.body));
    if (!Number.isInteger(body)) throw new InputError(`${who(charger)}: no Body at ${map.body || "(no data path set)"}: impalement needs it`);
    const { request: strikeRequest } = buildAttackRequest({
      attacker: pikeman, targets: [charger], mapping: map,
      strikes: [{ method: "melee", style: "pole-arm", dice: 3, damage_type: "piercing" }],
      options: { conditions: setting("conditionsFromStatuses") !== false, needBody: apply },
    });
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
      content: renderImpaleCard(result, { pikemanName: pikeman.name, chargerName: charger.name, requestId },
        { undoable: changes.length > 0 }),
      rolls: [],
      flags: cardFlags("impale", requestId, String(result.seed), changes),
      speaker: pikeman, whisperToGM: setting("chatVisibility") === "gm",
    });
    return { requestId, result, messageId: message?.id ?? null, changes };
  }

  /** Undo the damage of a fracas chat card: restore every exact previous value. */
  async function undo(messageId) {
    requireGM("undo fracas damage");
    const flags = vtt.messageFlags(messageId);
    if (!flags) throw new InputError("this chat message is not a fracas result");
    if (flags.undone) throw new InputError("this damage was already undone");
    const changes = Array.isArray(flags.changes) ? flags.changes : [];
    if (!changes.length) throw new InputError("this card applied no damage: nothing to undo");
    const docs = new Map();
    for (const c of changes) {
      const doc = await vtt.getDocument(c.uuid);
      if (!doc) throw new FracasError(`${c.name}: the actor is gone (${c.uuid}); nothing was undone`);
      docs.set(c.uuid, doc);
    }
    const { writes, drifted } = planUndo(changes, (c) => {
      const raw = getPath(docs.get(c.uuid), c.path);
      return typeof raw === "string" && raw.trim() !== "" && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    });
    for (const c of [...changes].reverse()) await revertOne(c, docs.get(c.uuid));
    await vtt.setMessageFlags(messageId, { undone: { at: new Date().toISOString() } });
    vtt.notify("info", `fracas: damage undone (${changes.map((c) => `${c.name} back to ${c.before}`).join(", ")})`);
    if (drifted.length) {
      vtt.notify("warn", `fracas: ${drifted.map((d) => `${d.name}'s Body had changed since the attack (${d.expected} expected, ${d.current} found)`).join("; ")}; restored to the value from before the attack anyway`);
    }
    return { restored: writes.map((w) => ({ uuid: w.uuid, name: w.name, value: w.value })), drifted };
  }

  /**
   * The per-target buttons of a card: apply `multiplier` (1, 0.5 or 2) of the damage the
   * target took in that attack (half rounds down), or undo what was applied to it.
   */
  async function applyTarget(messageId, targetId, multiplier = 1) {
    requireGM("apply fracas damage");
    const flags = vtt.messageFlags(messageId);
    if (!flags) throw new InputError("this chat message is not a fracas result");
    const target = (flags.targets ?? []).find((x) => x.id === targetId);
    if (!target) throw new InputError("this card has no damage for that target");
    if (![1, 0.5, 2].includes(multiplier)) throw new InputError(`multiplier ${multiplier}: apply 1, 0.5 (half) or 2 (double)`);
    const changes = Array.isArray(flags.changes) ? flags.changes : [];
    if (changes.some((c) => (c.targets ?? []).includes(targetId))) {
      throw new InputError(`${target.name} already took this damage: undo it first`);
    }
    if (!target.uuid) throw new InputError(`${target.name}: the token has no actor to take damage`);
    const doc = await vtt.getDocument(target.uuid);
    if (!doc) throw new FracasError(`${target.name}: the actor is gone (${target.uuid}); nothing was applied`);
    const map = mapping();
    const { value: before, problem } = readInteger(doc, map.body);
    if (problem) throw new InputError(`${target.name}: Body: ${problem}; nothing was applied`);
    const damage = Math.floor(target.damage * multiplier);
    const floor = setting("floorBodyAtZero") !== false;
    const change = { uuid: target.uuid, name: target.name, path: map.body, before, damage,
      after: Math.min(before, floor ? Math.max(0, before - damage) : before - damage), targets: [targetId], multiplier };
    await applyChanges([change]);
    await vtt.setMessageFlags(messageId, { changes: [...changes, change], undone: null });
    return change;
  }

  async function undoTarget(messageId, targetId) {
    requireGM("undo fracas damage");
    const flags = vtt.messageFlags(messageId);
    if (!flags) throw new InputError("this chat message is not a fracas result");
    const changes = Array.isArray(flags.changes) ? flags.changes : [];
    const mine = changes.filter((c) => (c.targets ?? []).includes(targetId));
    if (!mine.length) throw new InputError("nothing was applied to that target: nothing to undo");
    for (const c of [...mine].reverse()) {
      const doc = await vtt.getDocument(c.uuid);
      if (!doc) throw new FracasError(`${c.name}: the actor is gone (${c.uuid}); nothing was undone`);
      await revertOne(c, doc);
    }
    const rest = changes.filter((c) => !mine.includes(c));
    await vtt.setMessageFlags(messageId, { changes: rest, undone: rest.length ? null : flags.undone });
    return mine;
  }

  async function askStrike(title, attackerName, targets, weapons = []) {
    const last = vtt.setting("lastStrike");
    const form = await vtt.promptForm(attackFormHtml(last, { attacker: attackerName, targets: targets.map(who), weapons }), title);
    if (!form) return null;
    const parsed = parseAttackForm(form);
    await vtt.setSetting("lastStrike", parsed.remember);
    return parsed;
  }

  /** The ready-made macro: ask for the weapon, one strike at each target. */
  async function attackDialog() {
    if (vtt.isGM()) link(); // a player's attack goes through the GM's client
    const controlled = vtt.controlled();
    if (controlled.length !== 1) throw new InputError(`select exactly one attacking token (${controlled.length} are selected)`);
    const targets = uniqueViews(vtt.targeted());
    if (!targets.length) throw new InputError("no targets: target at least one token (T key)");
    const parsed = await askStrike(t("FRACAS.Dialog.Title"), controlled[0].name, targets, weaponsOf(controlled[0]));
    if (!parsed) return null;
    // A weapon item's strikes, or the dialog's strike, at each target.
    const strikes = parsed.weapon
      ? targets.flatMap((x) => itemStrikes(controlled[0], parsed.weapon).map((st) => ({ ...st, target: x.id })))
      : targets.map((x) => ({ ...parsed.strike, target: x.id }));
    const options = { ...parsed.options, attacker: controlled[0].id, targets: targets.map((x) => x.id), strikes };
    return parsed.action === "odds" ? odds(options) : attack(options);
  }

  /** The mob macro: the dialog's strike for every actor without its own strikes flag. */
  async function mobDialog() {
    requireGM("resolve mob attacks with fracas");
    link();
    const attackers = vtt.controlled();
    if (!attackers.length) throw new InputError("no attackers: select (control) the tokens of the mob");
    const targets = uniqueViews(vtt.targeted());
    if (!targets.length) throw new InputError("no targets: target at least one token (T key)");
    const parsed = await askStrike(t("FRACAS.Dialog.MobTitle"), `${attackers.length} tokens`, targets);
    if (!parsed) return null;
    if (parsed.options.rolls) throw new InputError("physical dice are for single attacks; a mob attack rolls its own");
    return mob({ ...parsed.options, strikes: [parsed.strike] });
  }

  /** The combat's standing combatants by token id (their views), for a fight's members. */
  function membersOf(combat) {
    const byToken = new Map();
    for (const c of combat.combatants) if (c.view?.id) byToken.set(c.view.id, { ...c.view, name: c.name ?? c.view.name });
    return byToken;
  }

  /**
   * A whole fight on the bridge (docs/ENCOUNTERS.md), one round per call: the first call
   * (or `new: true`) makes the encounter from the combat's standing combatants (players'
   * actors are the party, the rest the foes); each call plays the next round with every
   * member's Body as it is now, applies the damage (the system's damage API where there
   * is one, defeated at 0) and posts the round's card with Undo. The encounter's name and
   * round are kept in the combat's flags.
   */
  async function round(options = {}) {
    requireGM("play fracas rounds");
    const conn = link();
    const combat = vtt.combat();
    if (!combat) throw new InputError("no active combat encounter: start one in the combat tracker");
    const map = mapping();
    let state = options.new ? null : vtt.combatFlag(combat);
    if (!state || typeof state.name !== "string") {
      const built = buildScenario({ ruleset: options.ruleset ?? "enchanted-realms", combatants: combat.combatants, mapping: map });
      const name = `foundry-${String(combat.id).replace(/[^A-Za-z0-9]/g, "").slice(0, 20)}-${newId().slice(0, 8)}`;
      const made = /** @type {any} */ (await conn.call("encounter.new", { name, scenario: built.scenario, replace: true },
        { id: newId() }));
      const max = {};
      for (const side of Object.values(made.sides ?? {})) for (const m of /** @type {any[]} */ (side)) max[m.id] = m.hp_max;
      state = { name, round: 0, names: built.names, max };
      await vtt.setCombatFlag(combat, state);
    }
    const views = membersOf(combat);
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
    const log = /** @type {any} */ (await conn.call("encounter.round", params, { id: requestId }));
    /** @type {Record<string, number>} */
    const damageById = {};
    const hit = [];
    for (const [id, m] of Object.entries(log.members ?? {})) {
      // Only this fight's tokens: an answer cannot reach any other.
      if (!Object.prototype.hasOwnProperty.call(state.names, id) || hp[id] === undefined) continue;
      const taken = hp[id] - /** @type {any} */ (m).hp;
      if (Number.isInteger(taken) && taken > 0 && views.get(id)) {
        damageById[id] = taken;
        hit.push(views.get(id));
      }
    }
    const apply = options.applyDamage ?? setting("applyDamage") !== false;
    const changes = apply ? planDamage({ targets: hit, damageById, path: map.body,
      floorAtZero: setting("floorBodyAtZero") !== false }) : [];
    const message = await applyAndPost(changes, {
      content: renderRoundCard(log, { names: state.names, requestId }, { undoable: changes.length > 0 }),
      rolls: [],
      flags: cardFlags("round", requestId, String(log.seed), changes),
      speaker: null,
      whisperToGM: setting("chatVisibility") === "gm",
    });
    await vtt.setCombatFlag(combat, { ...state, round: log.round });
    return { requestId, result: log, messageId: message?.id ?? null, changes };
  }

  /** Take the last round back on the bridge, and set every member's Body (and defeated mark) to match. */
  async function roundUndo() {
    requireGM("undo fracas rounds");
    const conn = link();
    const combat = vtt.combat();
    if (!combat) throw new InputError("no active combat encounter");
    const state = vtt.combatFlag(combat);
    if (!state || typeof state.name !== "string" || !state.round) throw new InputError("this combat has no fracas round to undo");
    const shown = /** @type {any} */ (await conn.call("encounter.undo", { name: state.name, expect_round: state.round },
      { id: newId() }));
    const map = mapping();
    const views = membersOf(combat);
    for (const side of Object.values(shown.sides ?? {})) {
      for (const m of /** @type {any[]} */ (side)) {
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

  return {
    answerPlayerAttack,
    round: guarded(round),
    roundUndo: guarded(roundUndo),
    attack: guarded(attack),
    odds: guarded(odds),
    mob: guarded(mob),
    initiative: guarded(initiative),
    applyTarget: guarded(applyTarget),
    undoTarget: guarded(undoTarget),
    compete: guarded(compete),
    impale: guarded(impale),
    undo: guarded(undo),
    attackDialog: guarded(attackDialog),
    mobDialog: guarded(mobDialog),
  };
}
