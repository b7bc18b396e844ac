// A minimal Foundry-like environment for the browser test: exactly the globals the
// module touches (game, canvas, ui, Hooks, Roll, ChatMessage, Macro, CONFIG,
// foundry.*, fromUuid), behaving as Foundry v12/v13 do where the module relies on
// it: dice terms built from results are evaluated, Roll.fromTerms refuses a mix of
// evaluated and unevaluated terms, messages render into a chat log and fire the
// render hook of the chosen generation (?gen=12 → renderChatMessage with a jQuery-
// like array, ?gen=13 → renderChatMessageHTML with an HTMLElement).
//
// Stricter than a kind shim, as Foundry's server and client are:
//   * the module socket relays only for a package whose manifest says `"socket": true`;
//   * rendering a message enriches it as v13 does: text node by text node, decoded;
//   * one user may have several tabs (?tab=…), and there is an assistant GM (?user=assistant);
//   * tokens live on scenes, and the canvas shows one of them (?scene=…).

const params = new URLSearchParams(location.search);
const generation = Number(params.get("gen") ?? 13);

// ── Hooks ──────────────────────────────────────────────────────────────────────────
const hooks = new Map();
globalThis.Hooks = {
  on(name, fn) {
    if (!hooks.has(name)) hooks.set(name, []);
    hooks.get(name).push({ fn, once: false });
  },
  once(name, fn) {
    if (!hooks.has(name)) hooks.set(name, []);
    hooks.get(name).push({ fn, once: true });
  },
  callAll(name, ...args) {
    const list = hooks.get(name) ?? [];
    hooks.set(name, list.filter((h) => !h.once));
    for (const h of list) h.fn(...args);
    return true;
  },
  call(name, ...args) {
    return this.callAll(name, ...args);
  },
  registered: (name) => (hooks.get(name) ?? []).length,
};

// ── utils ──────────────────────────────────────────────────────────────────────────
let idCounter = 0;
// Documents travel between the pages of a test (one page per client): ids are unique per page.
const pagePrefix = Math.random().toString(36).slice(2, 6).padEnd(4, "x");
const randomID = () => `${pagePrefix}${(++idCounter).toString().padStart(12, "0")}`;

function setProperty(object, path, value) {
  const keys = path.split(".");
  let node = object;
  for (const k of keys.slice(0, -1)) node = node[k] ??= {};
  node[keys.at(-1)] = value;
}

function expandObject(data) {
  const out = {};
  for (const [k, v] of Object.entries(data)) setProperty(out, k, v);
  return out;
}

function mergeObject(target, source) {
  for (const [k, v] of Object.entries(source)) {
    if (v && typeof v === "object" && !Array.isArray(v) && target[k] && typeof target[k] === "object") mergeObject(target[k], v);
    else target[k] = v;
  }
  return target;
}

const documents = new Map(); // uuid → document, for fromUuid

// ── Documents ──────────────────────────────────────────────────────────────────────
class Actor {
  constructor({ id, name, system, statuses = [], flags = {}, uuid, owners = [], items = [] }) {
    this.id = id;
    this.name = name;
    this.system = structuredClone(system);
    this.flags = flags;
    this.statuses = new Set(statuses);
    this.uuid = uuid ?? `Actor.${id}`;
    this.documentName = "Actor";
    this.owners = new Set(owners); // user ids with OWNER permission (GMs always have it)
    this.items = items.map((i) => ({ id: i.id ?? randomID(), name: i.name, flags: structuredClone(i.flags ?? {}) }));
    documents.set(this.uuid, this);
  }

  /** As Foundry: a GM owns everything; a player what it was given. */
  testUserPermission(user, level) {
    if (!user) throw new Error("testUserPermission needs a user");
    if (level !== 3 && level !== "OWNER") throw new Error(`the shim knows only the OWNER level, not ${level}`);
    return !!user.isGM || this.owners.has(user.id);
  }

  get isOwner() { return this.testUserPermission(game.user, 3); }

  /** ClientDocumentMixin#hasPlayerOwner (v12/v13): "Test whether this Document is owned by any non-Gamemaster User." */
  get hasPlayerOwner() { return [...this.owners].some((id) => game.users.get(id)?.isGM === false); }

  async toggleStatusEffect(id, { active, overlay = false } = {}) {
    await new Promise((r) => setTimeout(r, 5));
    if (typeof id !== "string") throw new Error("toggleStatusEffect needs a status id");
    // Turning one on makes its effect with ActiveEffect.fromStatusEffect, which "throws … if there is no
    // status effect in CONFIG.statusEffects with the given status ID" (foundry-vtt-types 13.x
    // client/data/documents/active-effect.d.mts l. 641-653).
    if ((active ?? !this.statuses.has(id)) && !CONFIG.statusEffects.some((e) => e.id === id)) {
      throw new Error(`Invalid status ID "${id}" provided to ActiveEffect#fromStatusEffect`);
    }
    if (active === undefined ? !this.statuses.has(id) : active) this.statuses.add(id);
    else this.statuses.delete(id);
    this.overlay = overlay;
    return active;
  }

  async update(data) {
    await new Promise((r) => setTimeout(r, 5)); // a server round trip
    const expanded = expandObject(data);
    if (expanded.system?.health?.value !== undefined && !Number.isFinite(Number(expanded.system.health.value))) {
      throw new Error("system.health.value must be a number");
    }
    mergeObject(this, expanded);
    Hooks.callAll("updateActor", this, data);
    return this;
  }
}

/**
 * Refuse what a document's data may not hold: Foundry's DataModel knows its schema's fields and
 * nothing else (a test world built with a misspelt field would test something other than it says).
 * @param {string} what
 * @param {object} data
 * @param {string[]} fields
 */
function onlyFields(what, data, fields) {
  for (const key of Object.keys(data ?? {})) {
    if (!fields.includes(key)) throw new Error(`${what}: ${JSON.stringify(key)} is not a field the shim knows (${fields.join(", ")})`);
  }
}

/**
 * As BaseToken's schema (foundry.documents.BaseToken, v12/v13 API docs): x and y are the
 * top-left corner in pixels, width and height in grid spaces, hidden is the GM-only flag;
 * disposition a CONST.TOKEN_DISPOSITIONS value, HOSTILE (-1) when not given (foundry-vtt-types
 * 13.x src/foundry/client/data/documents/token.d.mts l. 330-345: `initial:
 * CONST.TOKEN_DISPOSITIONS.HOSTILE`, `choices` the four dispositions).
 */
class TokenDocument {
  constructor({ id, name, actor, parent, x, y, width = 1, height = 1, hidden = false, displayName = 0, disposition = -1 }) {
    if (![-2, -1, 0, 1].includes(disposition)) throw new Error(`disposition ${disposition} must be a value in CONST.TOKEN_DISPOSITIONS`);
    this.id = id;
    // BaseToken#displayName: a CONST.TOKEN_DISPLAY_MODES value, NONE (0) by default (BaseToken schema).
    this.displayName = displayName;
    this.name = name;
    this.actor = actor;
    this.parent = parent;
    this.documentName = "Token";
    Object.assign(this, { x, y, width, height, hidden, disposition });
  }
}

/**
 * A scene: its tokens (TokenDocuments) by id, as Scene#tokens, and its grid (Scene#grid,
 * v12/v13: a BaseGrid with size in pixels, type 1 square, distance and units per space).
 */
class Scene {
  constructor(id) {
    this.id = id;
    this.tokens = new Collection();
    this.grid = Object.freeze({ size: 100, type: 1, distance: 5, units: "ft" });
  }
}
let placed = 0; // tokens without a place given stand 5 spaces apart, never next to each other

class Token {
  constructor(doc) {
    this.document = doc;
  }

  get id() { return this.document.id; }
  get name() { return this.document.name; }
  get actor() { return this.document.actor; }
}

class Combatant {
  constructor({ id, name, token, actor, defeated = false, hidden = false }) {
    Object.assign(this, { id, name, token, actor, initiative: null, defeated, hidden });
  }

  get isDefeated() { return this.defeated; }

  async update(data) {
    await new Promise((r) => setTimeout(r, 5));
    for (const key of Object.keys(data)) if (!["defeated", "initiative", "hidden"].includes(key)) throw new Error(`Combatant.update: ${key}`);
    Object.assign(this, data);
    return this;
  }
}

class Combat {
  constructor(combatants) {
    this.id = randomID();
    this.combatants = new Map(combatants.map((c) => [c.id, c]));
    this.combatants[Symbol.iterator] = function* iterate() { yield* Map.prototype.values.call(this); };
    this.round = 1;
    this.turn = 0;
  }

  get combatant() { return this.turns[this.turn] ?? null; }

  // ClientDocumentMixin#getFlag/#setFlag (v12/v13): flags[scope][key], set through an update.
  getFlag(scope, key) { return this.flags?.[scope]?.[key]; }

  async setFlag(scope, key, value) {
    await new Promise((r) => setTimeout(r, 5));
    JSON.stringify(value);
    this.flags ??= {};
    this.flags[scope] = { ...(this.flags[scope] ?? {}), [key]: structuredClone(value) };
    return this;
  }

  async update(data) {
    await new Promise((r) => setTimeout(r, 5));
    for (const key of Object.keys(data)) if (!["turn", "round"].includes(key)) throw new Error(`Combat.update: ${key}`);
    if (data.turn !== undefined && !(Number.isInteger(data.turn) && data.turn >= 0 && data.turn < this.turns.length)) {
      throw new Error(`turn ${data.turn} is out of range`);
    }
    Object.assign(this, data);
    return this;
  }

  async updateEmbeddedDocuments(type, updates) {
    if (type !== "Combatant") throw new Error(`unknown embedded type ${type}`);
    await new Promise((r) => setTimeout(r, 5));
    for (const u of updates) {
      const c = this.combatants.get(u._id);
      if (!c) throw new Error(`no combatant ${u._id}`);
      if (typeof u.initiative !== "number") throw new Error("initiative must be a number");
      c.initiative = u.initiative;
    }
    return updates;
  }

  get turns() {
    return [...this.combatants.values()].sort((a, b) => (b.initiative ?? -Infinity) - (a.initiative ?? -Infinity));
  }
}

// ── Dice ───────────────────────────────────────────────────────────────────────────
class RollTerm {
  _evaluated = false;

  constructor({ options = {} } = {}) {
    this.options = options;
  }

  get flavor() { return this.options.flavor || ""; }
  get formula() { return this.flavor ? `${this.expression}[${this.flavor}]` : this.expression; }

  static fromData(data) {
    const cls = CONFIG.Dice.termTypes[data.class] ?? Die;
    return cls._fromData(data);
  }

  static _fromData(data) {
    const term = new this(data);
    term._evaluated = data.evaluated ?? true;
    return term;
  }
}

class DiceTerm extends RollTerm {
  constructor({ number = 1, faces = 6, modifiers = [], results = [], options = {} }) {
    super({ options });
    this.number = number;
    this.faces = faces;
    this.modifiers = modifiers;
    this.results = results;
    if (results.length) this._evaluated = true;
  }

  get expression() { return `${this.number}d${this.faces}${this.modifiers.join("")}`; }

  get total() {
    if (!this._evaluated) return undefined;
    return this.results.reduce((t, r) => (r.active ? t + (r.count ?? r.result) : t), 0);
  }

  get values() { return this.results.filter((r) => r.active).map((r) => r.result); }

  toJSON() {
    return { class: this.constructor.name, options: this.options, evaluated: this._evaluated, number: this.number, faces: this.faces, modifiers: this.modifiers, results: this.results };
  }
}

class Die extends DiceTerm {}

class OperatorTerm extends RollTerm {
  constructor({ operator, options } = {}) {
    super({ options });
    this.operator = operator;
    this._evaluated = true;
  }

  static _fromData(data) { return new this(data); }
  get expression() { return ` ${this.operator} `; }
  get total() { return ` ${this.operator} `; }
  toJSON() { return { class: "OperatorTerm", options: this.options, evaluated: true, operator: this.operator }; }
}

class Roll {
  constructor(formula, data = {}, options = {}) {
    this._formula = formula;
    this.data = data;
    this.options = options;
    this.terms = [];
    this._evaluated = false;
    this._total = undefined;
  }

  static getFormula(terms) { return terms.map((t) => t.formula).join("").replace(/ +/g, " ").trim(); }

  static fromTerms(terms, options = {}) {
    if (!terms.every((t) => t instanceof RollTerm)) throw new Error("All provided terms must be RollTerm instances");
    const allEvaluated = terms.every((t) => t._evaluated);
    const noneEvaluated = !terms.some((t) => t._evaluated);
    if (!(allEvaluated || noneEvaluated)) {
      throw new Error("You can only call Roll.fromTerms with an array of terms which are either all evaluated, or none evaluated");
    }
    const roll = new this(this.getFormula(terms), {}, options);
    roll.terms = terms;
    roll._evaluated = allEvaluated;
    if (allEvaluated) {
      let total = 0;
      let op = "+";
      for (const t of terms) {
        if (t instanceof OperatorTerm) op = t.operator;
        else total = op === "-" ? total - t.total : total + t.total;
      }
      roll._total = total;
    }
    return roll;
  }

  /** As Foundry: a roll rebuilt from its JSON (what the database stores), total included. */
  static fromData(data) {
    if (data?.class !== "Roll" || !Array.isArray(data.terms)) throw new Error("Roll.fromData needs Roll JSON");
    const roll = new this(data.formula, {}, data.options ?? {});
    roll.terms = data.terms.map((t) => RollTerm.fromData(t));
    roll._evaluated = !!data.evaluated;
    roll._total = data.total;
    return roll;
  }

  get formula() { return this._formula; }
  get total() { return this._total; }
  get dice() { return this.terms.filter((t) => t instanceof DiceTerm); }

  toJSON() {
    return { class: "Roll", formula: this.formula, terms: this.terms.map((t) => t.toJSON()), total: this._total, evaluated: this._evaluated };
  }
}

// ── Chat ───────────────────────────────────────────────────────────────────────────
// As Foundry v13 core client/documents/chat-message.mjs (quoted in full by the stored
// copy the foundry-vtt-types 13.x declarations describe: src/foundry/client/data/documents/
// chat-message.d.mts lines 590-626 declare the same members):
//   * `get isAuthor()` (l. 64): `game.user === this.author`;
//   * `get isContentVisible()` (l. 75-83): for a roll, a whisper's content is visible to its
//     recipients and to its author unless blind; a message without rolls: `this.visible`;
//   * `get isRoll()` (l. 91): `this.rolls.length > 0`;
//   * `get visible()` (l. 102-108): a whisper *with rolls* is visible to everyone (its
//     content then rendered as "<user> rolled privately", #renderRollContent); a whisper
//     without rolls to its author and recipients only;
//   * `static applyRollMode(chatData, rollMode)` (l. 152-172): public → whisper [], self →
//     [game.user.id], private/blind → the GMs unless whisper is already set; blind = BLIND;
//   * ChatLog#postOne returns for a message that is not `visible`; `_onUpdate` (l. ~420)
//     removes a message that stopped being visible.
// Delivery: every client holds every message it can see (the issue 39 rule: the server
// sends each client the documents `visible` says it may see; a player's console reads
// them whole, flags included). The shim relays each created or updated message to the
// other pages and keeps it there only when `visible` is true for that page's user; every
// document a page receives is logged in __world.received (the hostile player's log).
const DICE_ROLL_MODES = Object.freeze({ PUBLIC: "publicroll", PRIVATE: "gmroll", BLIND: "blindroll", SELF: "selfroll" });
const documentChannel = new BroadcastChannel("fracas-test-documents");
const received = [];

/**
 * The fields of a ChatMessage's data (BaseChatMessage's schema, foundry-vtt-types 13.x
 * src/foundry/client/data/documents/chat-message.d.mts l. 228-323: _id, type, system, style,
 * author, timestamp, flavor, content, speaker, whisper, blind, rolls, sound, emote, flags,
 * _stats). The module may write no other.
 */
const CHAT_MESSAGE_FIELDS = ["_id", "type", "system", "style", "author", "timestamp", "flavor", "content", "speaker", "whisper",
  "blind", "rolls", "sound", "emote", "flags", "_stats"];

class ChatMessage {
  constructor(data) {
    onlyFields("ChatMessage", data, CHAT_MESSAGE_FIELDS);
    this.id = data._id ?? randomID();
    this.content = data.content ?? "";
    this.flags = structuredClone(data.flags ?? {});
    this.speaker = data.speaker ?? {};
    this.whisper = [...(data.whisper ?? [])];
    this.blind = !!data.blind;
    this.author = data.author ?? game.user?.id ?? null;
    this.rolls = (data.rolls ?? []).map((r) => {
      if (!(r instanceof Roll)) r = Roll.fromData(r); // a relayed message's rolls arrive as JSON
      if (!r._evaluated) throw new Error("ChatMessage rolls must be evaluated");
      JSON.stringify(r); // the database stores rolls as JSON: this must not throw
      return r;
    });
    JSON.stringify(this.flags); // flags are stored as JSON too
  }

  get isRoll() { return this.rolls.length > 0; }
  get isAuthor() { return game.user?.id === this.author; }

  get visible() {
    if (this.whisper.length) {
      if (this.isRoll) return true;
      return this.isAuthor || this.whisper.includes(game.user?.id);
    }
    return true;
  }

  get isContentVisible() {
    if (this.isRoll) {
      const isBlind = this.whisper.length && this.blind;
      if (this.whisper.length) return this.whisper.includes(game.user?.id) || (this.isAuthor && !isBlind);
      return true;
    }
    return this.visible;
  }

  static applyRollMode(chatData, rollMode) {
    if (rollMode === "roll") rollMode = game.settings.get("core", "rollMode");
    let whisper;
    if (rollMode === DICE_ROLL_MODES.PUBLIC) whisper = [];
    else if (rollMode === DICE_ROLL_MODES.SELF) whisper = [game.user.id];
    else if (chatData.whisper?.length) whisper = chatData.whisper;
    else whisper = game.users.filter((u) => u.isGM).map((u) => u.id);
    chatData.whisper = whisper;
    chatData.blind = rollMode === DICE_ROLL_MODES.BLIND;
    return chatData;
  }

  /** The stored document, as the server sends it to a client (rolls as JSON). */
  toJSON() {
    return { _id: this.id, content: this.content, flags: this.flags, speaker: this.speaker, whisper: this.whisper,
      blind: this.blind, author: this.author, rolls: this.rolls.map((r) => r.toJSON()) };
  }

  static async create(data) {
    await new Promise((r) => setTimeout(r, 5));
    const message = new this(data);
    game.messages.set(message.id, message);
    if (message.visible) message.render();
    Hooks.callAll("createChatMessage", message);
    documentChannel.postMessage({ op: "create", doc: message.toJSON() });
    dice3d?.onCreate(message);
    return message;
  }

  /**
   * As v13 client/documents/chat-message.mjs getSpeaker: CASE 1, a token given → that token
   * (alias: the given alias or its name); CASE 4, "Infer from controlled tokens": with none
   * given, the first token this user controls speaks (`controlled.shift().document`, the alias
   * kept); CASE 6, the user. (CASE 2, 3 and 5 — an actor given, another scene, an impersonated
   * actor — are not used by the module.)
   */
  static getSpeaker({ token, alias } = {}) {
    if (token) return { scene: "scene1", token: token.id, actor: token.actor?.id ?? null, alias: alias || token.name };
    const controlled = [...(canvas.tokens.controlled ?? [])];
    if (controlled.length) {
      const doc = controlled.shift().document;
      return { scene: "scene1", token: doc.id, actor: doc.actor?.id ?? null, alias: alias || doc.name };
    }
    return { scene: null, actor: null, token: null, alias: alias ?? game.user.name };
  }

  static getWhisperRecipients(name) {
    return name === "GM" ? [...game.users.values()].filter((u) => u.isGM) : [];
  }

  getFlag(scope, key) { return this.flags?.[scope]?.[key]; }

  async update(data) {
    await new Promise((r) => setTimeout(r, 5));
    const changes = structuredClone(data);
    JSON.stringify(changes);
    mergeObject(this, expandObject(Object.fromEntries(Object.entries(changes).filter(([k]) => k.includes(".")))));
    for (const [k, v] of Object.entries(changes)) if (!k.includes(".")) mergeObject(this, { [k]: v });
    this.render();
    documentChannel.postMessage({ op: "update", doc: this.toJSON() });
    return this;
  }

  render() {
    const log = document.getElementById("chat-log");
    const old = log.querySelector(`[data-message-id="${this.id}"]`);
    if (!this.visible) {
      old?.remove();
      return;
    }
    const li = document.createElement("li");
    li.className = "chat-message message";
    li.dataset.messageId = this.id;
    // #renderRollContent: content not visible → "<author> rolled privately" and the dice hidden.
    const content = this.isContentVisible ? enrich(this.content) : `<span class="private-roll">${game.users.get(this.author)?.name ?? "Unknown"} rolled privately</span>`;
    li.innerHTML = `<header class="message-header">${this.isContentVisible ? (this.speaker.alias ?? "") : ""}</header><div class="message-content">${content}</div>`;
    if (old) old.replaceWith(li);
    else log.append(li);
    if (generation >= 13) Hooks.callAll("renderChatMessageHTML", this, li, {});
    else Hooks.callAll("renderChatMessage", this, [li], {}); // jQuery-like: element at [0]
  }
}

// Another client created or updated a message: this client gets it only when it may see it.
documentChannel.onmessage = (event) => {
  const { op, doc } = event.data ?? {};
  if (!game.user || !doc) return;
  const message = new ChatMessage(doc);
  if (!message.visible) {
    if (op === "update" && game.messages.has(message.id)) {
      game.messages.delete(message.id);
      message.render(); // removes it from the log
    }
    return;
  }
  received.push(structuredClone(doc));
  game.messages.set(message.id, message);
  message.render();
  if (op === "create") {
    Hooks.callAll("createChatMessage", message);
    dice3d?.onCreate(message);
  }
};

/**
 * As v13's TextEditor.enrichHTML does to message content (ChatMessage#renderHTML calls it):
 * the HTML is parsed, its text nodes are collected (TextEditor#_getTextNodes walks every
 * child node) and each pattern is matched against a text node's textContent, which is
 * the *decoded* text (TextEditor#_replaceTextContent): "&#91;&#91;1d20&#93;&#93;" in
 * the HTML is "[[1d20]]" there and becomes an inline roll. Patterns of foundry.js v13:
 * inline rolls /\[\[(\/[a-zA-Z]+\s)?(.*?)(]{2,3})(?:{([^}]+)})?/gi and content links
 * /@(\w+)\[([^#\]]+)(?:#([^\]]+))?](?:{([^}]+)})?/g.
 */
function enrich(html) {
  const template = document.createElement("template");
  template.innerHTML = html;
  const texts = [];
  const walk = (node) => {
    if (node.hasChildNodes()) for (const child of node.childNodes) walk(child);
    else if (node.nodeType === Node.TEXT_NODE) texts.push(node);
  };
  walk(template.content);
  const patterns = [
    [/\[\[(\/[a-zA-Z]+\s)?(.*?)(]{2,3})(?:{([^}]+)})?/gi, (m) => {
      const a = document.createElement("a");
      a.className = "inline-roll";
      a.dataset.formula = m[2];
      a.textContent = m[4] ?? m[2];
      return a;
    }],
    [/@(\w+)\[([^#\]]+)(?:#([^\]]+))?](?:{([^}]+)})?/g, (m) => {
      const a = document.createElement("a");
      a.className = "content-link";
      a.dataset.uuid = m[2];
      a.textContent = m[4] ?? m[2];
      return a;
    }],
  ];
  for (const [rgx, make] of patterns) {
    for (const text of [...texts]) {
      const content = text.textContent;
      const matches = [...content.matchAll(rgx)];
      if (!matches.length) continue;
      const parts = [];
      let at = 0;
      for (const m of matches) {
        parts.push(document.createTextNode(content.slice(at, m.index)), make(m));
        at = m.index + m[0].length;
      }
      parts.push(document.createTextNode(content.slice(at)));
      text.replaceWith(...parts);
      texts.splice(texts.indexOf(text), 1, ...parts.filter((n) => n.nodeType === Node.TEXT_NODE));
    }
  }
  const out = document.createElement("div");
  out.append(template.content);
  return out.innerHTML;
}

/** As Foundry's WorldCollection (a Map with Array-like finders): game.messages, game.scenes, game.users. */
class Collection extends Map {
  // foundry.utils.Collection (client/common/utils/collection.mjs, v12/v13): "When iterating
  // over a Collection, we should iterate over its values instead of over its entries".
  [Symbol.iterator]() { return this.values(); }
  find(fn) { return [...this.values()].find(fn); }
  filter(fn) { return [...this.values()].filter(fn); }
  get contents() { return [...this.values()]; }
}

class Macro {
  static async create(data) {
    const macro = { id: randomID(), ...structuredClone(data), getFlag(scope, key) { return this.flags?.[scope]?.[key]; } };
    game.macros.set(macro.id, macro);
    return macro;
  }
}

// ── DialogV2: renders its content in a <dialog>, resolves when a button is used ──
class DialogV2 {
  static prompt({ window: win, content, ok, rejectClose = true }) {
    return new Promise((resolve, reject) => {
      const dialog = document.createElement("dialog");
      dialog.className = "application dialog";
      dialog.innerHTML = `<header>${win?.title ?? ""}</header><form class="dialog-form">${content}`
        + `<footer><button type="submit" data-action="ok">${ok?.label ?? "OK"}</button>`
        + `<button type="button" data-action="close">Close</button></footer></form>`;
      document.body.append(dialog);
      const form = dialog.querySelector("form");
      const button = dialog.querySelector('[data-action="ok"]');
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        try {
          const value = ok?.callback ? ok.callback(event, button, { element: dialog }) : "ok";
          dialog.remove();
          resolve(value);
        } catch (error) {
          dialog.remove();
          reject(error);
        }
      });
      dialog.querySelector('[data-action="close"]').addEventListener("click", () => {
        dialog.remove();
        if (rejectClose) reject(new Error("Dialog was dismissed without pressing a button."));
        else resolve(null);
      });
      dialog.show();
    });
  }
}

// ── Settings: client values persist like localStorage; onChange fires on set ───────
// What the settings window shows, as v13's SettingsConfig#_prepareCategoryData
// (client/applications/settings/config.mjs; quoted in the stored copies of the core
// file): `canConfigure = game.user.can("SETTINGS_MODIFY")`; a menu is left out when
// `menu.restricted && !canConfigure`; a setting when `!setting.config || (!canConfigure
// && setting.scope === "world")`. `restricted` is read on menus only: a client-scope
// setting with `config: true` is shown to every user, whatever else it says.
// SETTINGS_MODIFY: CONST.USER_PERMISSIONS.SETTINGS_MODIFY, defaultRole ASSISTANT (3).
class Settings {
  #defs = new Map();
  #values = new Map();
  menus = new Map();

  preset(namespace, key, value) {
    this.#values.set(`${namespace}.${key}`, value);
  }

  register(namespace, key, config) {
    if (!namespace || !key) throw new Error("You must specify both namespace and key portions of the setting");
    const id = `${namespace}.${key}`;
    if (this.#defs.has(id)) throw new Error(`setting ${id} registered twice`);
    for (const field of ["scope", "type"]) if (config[field] === undefined) throw new Error(`setting ${id} has no ${field}`);
    this.#defs.set(id, { ...config, namespace, key });
  }

  registerMenu(namespace, key, data) {
    if (!namespace || !key) throw new Error("You must specify both namespace and key portions of the menu");
    if (typeof data?.type !== "function") throw new Error(`menu ${namespace}.${key} needs an Application class as its type`);
    this.menus.set(`${namespace}.${key}`, { ...data, key: `${namespace}.${key}`, namespace });
  }

  get(namespace, key) {
    const id = `${namespace}.${key}`;
    if (!this.#defs.has(id)) throw new Error(`"${id}" is not a registered game setting`);
    return this.#values.has(id) ? this.#values.get(id) : structuredClone(this.#defs.get(id).default);
  }

  async set(namespace, key, value) {
    const id = `${namespace}.${key}`;
    const def = this.#defs.get(id);
    if (!def) throw new Error(`"${id}" is not a registered game setting`);
    const cast = def.type === Number ? Number(value) : def.type === Boolean ? Boolean(value) : def.type === String ? String(value) : value;
    this.#values.set(id, cast);
    def.onChange?.(cast);
    return cast;
  }

  /** What the settings window shows this user: menus and settings, by the rule above. */
  view() {
    const canConfigure = (game.user?.role ?? 0) >= 3;
    const menus = [...this.menus.values()].filter((m) => !(m.restricted && !canConfigure)).map((m) => m.key);
    const settings = [...this.#defs.values()].filter((d) => d.config && !(!canConfigure && d.scope === "world")).map((d) => `${d.namespace}.${d.key}`);
    return { menus, settings };
  }

  /** A click on a menu's button: v13 SettingsConfig#onOpenSubmenu makes the class and renders it. */
  openMenu(key) {
    const menu = this.menus.get(key);
    if (!menu) throw new Error(`no menu ${key}`);
    if (!this.view().menus.includes(key)) throw new Error(`menu ${key} is not shown to this user`);
    const app = new menu.type();
    return app.render({ force: true });
  }
}

// ── Keybindings: registered during init only; a key press runs onDown ─────────────
class Keybindings {
  #bindings = new Map();
  #open = true;

  register(namespace, action, config) {
    if (!this.#open) throw new Error("keybindings must be registered during init");
    if (!config.name || !Array.isArray(config.editable)) throw new Error(`keybinding ${namespace}.${action} needs a name and editable keys`);
    this.#bindings.set(`${namespace}.${action}`, config);
  }

  close() { this.#open = false; }

  get(namespace, action) { return this.#bindings.get(`${namespace}.${action}`)?.editable ?? []; }

  press(event) {
    for (const config of this.#bindings.values()) {
      for (const key of config.editable) {
        const mods = key.modifiers ?? [];
        if (event.code === key.key && mods.includes("Shift") === event.shiftKey && mods.includes("Control") === event.ctrlKey) {
          config.onDown?.({ event });
        }
      }
    }
  }
}
const keybindings = new Keybindings();
document.addEventListener("keydown", (event) => keybindings.press(event));

/** The scene controls, built as Foundry v12 (array) or v13 (records) hands them to the hook. */
function renderControls() {
  const nav = document.getElementById("controls");
  if (!nav) return;
  nav.replaceChildren();
  const tokenTools = generation >= 13 ? {} : [];
  const controls = generation >= 13
    ? { tokens: { name: "tokens", title: "Token Controls", tools: tokenTools } }
    : [{ name: "token", title: "Token Controls", tools: tokenTools }];
  Hooks.callAll("getSceneControlButtons", controls);
  const tools = generation >= 13 ? Object.values(controls.tokens.tools) : controls[0].tools;
  for (const tool of tools) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.tool = tool.name;
    button.title = game.i18n.localize(tool.title);
    button.addEventListener("click", () => (generation >= 13 ? tool.onChange?.(new Event("click"), true) : tool.onClick?.()));
    nav.append(button);
  }
}

// ── The world ─────────────────────────────────────────────────────────────────────
// Roles as CONST.USER_ROLES: 1 player, 3 assistant GM, 4 GM; isGM is role >= 3 (an
// assistant GM is a GM for isGM), as foundry.documents.BaseUser#isGM.
const gm = { id: "userGM000000001", name: "Gamemaster", role: 4, isGM: true, active: true, targets: new Set() };
const assistant = { id: "userAS000000001", name: "Assistant", role: 3, isGM: true, active: params.get("assistant") === "present", targets: new Set() };
const player = { id: "userPL000000001", name: "Player", isGM: false, role: 1, active: true, targets: new Set() };
// User#viewedScene: "The ID of the Scene currently being viewed by this User" (foundry.documents.User,
// v12/v13 API); the server keeps it for every user, so the GM's client knows the player's (?playerScene=…).
// It is null until the user views a scene, and on a GM's client a user who connected before the GM
// can read null there (issue 39): ?playerScene=none and ?gmScene=none give null.
const sceneParam = (name) => (params.get(name) === "none" ? null : params.get(name) ?? "scene1");
gm.viewedScene = sceneParam("gmScene");
assistant.viewedScene = "scene1";
player.viewedScene = sceneParam("playerScene");
const me = { player, assistant, gm }[params.get("user") ?? "gm"] ?? gm;
me.active = true;

const users = new Collection([[gm.id, gm], [assistant.id, assistant], [player.id, player]]);
// ?gm=absent: the GM is not connected. Users#activeGM is the connected GM-role user of the
// highest role (then lowest id), as foundry.documents.collections.Users#activeGM.
if (params.get("gm") === "absent") gm.active = false;
Object.defineProperty(users, "activeGM", {
  get() {
    return this.filter((u) => u.active && u.isGM).sort((a, b) => (b.role - a.role) || (a.id < b.id ? -1 : 1))[0] ?? null;
  },
});

// ── The module socket between pages of the test (one page per client) ────────────
// As Foundry's server does: a message goes to the other clients only (every other tab
// too, also the same user's), and the receiver learns who sent it (the sender cannot
// name itself). The server opens a package's channel only when its manifest asks for it
// with `"socket": true` (https://foundryvtt.com/article/module-development/, "socket";
// https://foundryvtt.wiki/en/development/api/sockets: "Before a package can send and
// receive socket events, it must request a socket namespace from the server"): a module
// without it emits into nothing. Dropped messages are kept in __world.dropped for tests.
const manifests = new Map(); // package id → its manifest, as boot.js read it
const dropped = [];
const channel = new BroadcastChannel("fracas-test-socket");
const socketListeners = new Map();
channel.onmessage = (event) => {
  const { name, data, sender } = event.data ?? {};
  for (const fn of socketListeners.get(name) ?? []) fn(structuredClone(data), sender);
};
const socket = {
  emit(name, data) {
    if (!name.startsWith("module.") && !name.startsWith("system.")) throw new Error(`socket event ${name} is not a module's`);
    JSON.stringify(data);
    const id = name.slice(name.indexOf(".") + 1);
    if (manifests.get(id)?.socket !== true) {
      dropped.push({ name, data: structuredClone(data) });
      return;
    }
    channel.postMessage({ name, data, sender: me.id });
  },
  on(name, fn) {
    if (!socketListeners.has(name)) socketListeners.set(name, []);
    socketListeners.get(name).push(fn);
  },
};

// ── Translations: as Foundry, loaded from module.json's languages before i18nInit ──
const translations = {};
const i18n = {
  lang: "en",
  has: (key) => Object.prototype.hasOwnProperty.call(translations, key),
  localize: (key) => translations[key] ?? key,
  format: (key, data = {}) => (translations[key] ?? key).replace(/\{(\w+)\}/g, (m, k) => (k in data ? String(data[k]) : m)),
  async load(path) { Object.assign(translations, await (await fetch(path)).json()); },
};

const scenes = new Collection([["scene1", new Scene("scene1")], ["scene2", new Scene("scene2")]]);
let viewed = scenes.get(params.get("scene") ?? "scene1");
const placeables = new Map(); // token id → Token, for every scene
const tokens = { get: (id) => (viewed.tokens.has(id) ? placeables.get(id) : undefined), values: () => [...viewed.tokens.keys()].map((id) => placeables.get(id)) };
const notes = [];

globalThis.CONFIG = { Dice: { termTypes: { Die, OperatorTerm, DiceTerm, RollTerm } }, specialStatusEffects: { DEFEATED: "dead" },
  // The core status effects' ids (foundry-vtt-types 13.x client/config.d.mts, CONFIG.statusEffects' default, l. 1210-1387).
  statusEffects: ["dead", "unconscious", "sleep", "stun", "prone", "restrain", "paralysis", "fly", "blind", "deaf", "silence", "fear",
    "burning", "frozen", "shock", "corrode", "bleeding", "disease", "poison", "curse", "regen", "degen", "hover", "burrow", "upgrade",
    "downgrade", "invisible", "target", "eye", "bless", "fireShield", "coldShield", "magicShield", "holyShield"].map((id) => ({ id, name: id, img: `icons/svg/${id}.svg` })) };
// CONST as foundry-vtt-types 13.x src/foundry/common/constants.d.mts: DICE_ROLL_MODES (l. 393-412),
// TOKEN_DISPLAY_MODES (l. 1006-1036: NONE 0, CONTROL 10, OWNER_HOVER 20, HOVER 30, OWNER 40, ALWAYS 50).
globalThis.CONST = { DOCUMENT_OWNERSHIP_LEVELS: { NONE: 0, LIMITED: 1, OBSERVER: 2, OWNER: 3 }, DICE_ROLL_MODES,
  TOKEN_DISPLAY_MODES: Object.freeze({ NONE: 0, CONTROL: 10, OWNER_HOVER: 20, HOVER: 30, OWNER: 40, ALWAYS: 50 }) };
globalThis.foundry = {
  utils: { randomID, setProperty, mergeObject, fromUuid: async (uuid) => documents.get(uuid) ?? null },
  dice: { Roll, terms: { RollTerm, DiceTerm, Die, OperatorTerm } },
  applications: { api: { DialogV2 } },
};
globalThis.fromUuid = foundry.utils.fromUuid;
globalThis.Roll = Roll;
globalThis.ChatMessage = ChatMessage;
globalThis.Macro = Macro;
const settings = new Settings();
// core.rollMode: a client setting of the core (the chat's roll-mode select writes it), "publicroll" by default.
settings.register("core", "rollMode", { scope: "client", config: false, type: String, default: "publicroll" });
if (params.has("rollMode")) settings.preset("core", "rollMode", params.get("rollMode"));

// ── Dice So Nice (?dsn=on): how many dice it throws ────────────────────────────────
// Dice So Nice module/DiceNotation.js (Daedalus11069/dice-so-nice-fork, the DiceNotation
// constructor): `let maxDiceNumber = game.settings.get("dice-so-nice", "maxDiceNumber")` then,
// die by die, `if(++diceNumber >= maxDiceNumber) return true;`: a roll's dice beyond
// maxDiceNumber − 1 are dropped, without a word. The setting (module/main.js) is a world
// setting, default 20, range 20-100. DSN throws a message's rolls on createChatMessage when
// their content is visible, and `showForRoll(roll, user, synchronize, users, blind, …)`
// (module/Dice3D.js) throws one roll for the listed users (all when null) — through the same
// DiceNotation. Every throw is logged in __world.dsn: the dice counted and the dice thrown.
const dsnLog = [];
const dice3d = params.get("dsn") === "on" ? {
  // One count per message (issue 39: "at most maxDiceNumber dice per message"), over all its rolls.
  thrown(rolls) {
    const max = settings.get("dice-so-nice", "maxDiceNumber");
    let n = 0;
    let shown = 0;
    for (const roll of rolls) for (const die of roll.dice) for (const _ of die.results) if (++n < max) shown += 1;
    return { dice: n, shown };
  },
  onCreate(message) {
    if (!message.isRoll || !message.isContentVisible) return;
    dsnLog.push({ message: message.id, user: game.user.id, ...this.thrown(message.rolls) });
  },
  async showForRoll(roll, user = game.user, synchronize = false, users = null, blind = false) {
    dsnLog.push({ message: null, user: user?.id ?? null, synchronize: !!synchronize, users, blind: !!blind, ...this.thrown([roll]) });
    return true;
  },
} : null;
if (dice3d) settings.register("dice-so-nice", "maxDiceNumber", { scope: "world", config: true, type: Number, default: 20 });
// game.user is set when the world is ready to play (after init), as in Foundry: code
// that reads it during init finds nothing.
globalThis.game = {
  release: { generation, version: `${generation}.999` },
  user: null,
  users,
  socket,
  i18n,
  keybindings,
  settings,
  modules: new Map([["fracas", { id: "fracas", active: true }], ...(dice3d ? [["dice-so-nice", { id: "dice-so-nice", active: true }]] : [])]),
  world: { id: "fracas-test-world" },
  dice3d: dice3d ?? undefined,
  system: { id: params.get("system") ?? "worldbuilding" },
  scenes,
  messages: new Collection(),
  macros: new Map(),
  combat: null,
};
game.macros.find = function find(fn) { return [...this.values()].find(fn); };
globalThis.canvas = {
  get scene() { return viewed; },
  tokens: {
    controlled: [],
    get placeables() { return [...tokens.values()]; },
    get: (id) => tokens.get(id) ?? null,
  },
};
globalThis.ui = {
  notifications: Object.fromEntries(["info", "warn", "error"].map((level) => [level, (text) => {
    notes.push({ level, text });
    const el = document.createElement("li");
    el.className = `notification ${level}`;
    el.textContent = text;
    document.getElementById("notifications").append(el);
  }])),
};

/** What the test drives: make tokens, select and target them, start a combat. */
globalThis.__world = {
  notes,
  preset: (key, value) => settings.preset("fracas", key, value),
  /** What boot.js calls between init and ready: the user logs in. */
  login() {
    game.user = me;
    keybindings.close();
    renderControls();
  },
  addToken(data) {
    onlyFields("addToken", data, ["id", "name", "actor", "scene", "x", "y", "width", "height", "hidden", "displayName", "disposition"]);
    let { id, name, actor, scene = "scene1", x, y, width, height, hidden, displayName, disposition } = data;
    // A token's actor may name the users who own it (`owners`) and carry items.
    const a = actor instanceof Actor ? actor : new Actor(actor);
    if (x === undefined || y === undefined) [x, y] = [(placed++) * 500, 5000];
    const doc = new TokenDocument({ id, name, actor: a, parent: scenes.get(scene), x, y, width, height, hidden, displayName, disposition });
    for (const s of scenes.values()) s.tokens.delete(id);
    scenes.get(scene).tokens.set(id, doc);
    const t = new Token(doc);
    placeables.set(id, t);
    return t;
  },
  /** Show another scene on this client's canvas. */
  viewScene(id) { viewed = scenes.get(id); },
  /** What boot.js calls with each package's manifest. */
  manifest(m) { manifests.set(m.id, m); },
  dropped,
  control(ids) { canvas.tokens.controlled = ids.map((id) => tokens.get(id)); },
  target(ids) { game.user.targets = new Set(ids.map((id) => tokens.get(id))); },
  actor: (id) => placeables.get(id).actor,
  startCombat(ids, { defeated = [], hidden = [] } = {}) {
    game.combat = new Combat(ids.map((id, i) => new Combatant({ id: `cmb${i}`, name: placeables.get(id).name, token: placeables.get(id).document,
      actor: placeables.get(id).actor, defeated: defeated.includes(id), hidden: hidden.includes(id) })));
    return game.combat;
  },
  Actor,
  messages: () => [...game.messages.values()],
  /** Every message document this client received from another client (the hostile player's log). */
  received,
  /** What Dice So Nice threw on this client. */
  dsn: dsnLog,
  /** What the settings window shows this user. */
  settingsView: () => settings.view(),
  openMenu: (key) => settings.openMenu(key),
  /**
   * The combat tracker renders (the sidebar's Combat tab): v13's CombatTracker is an ApplicationV2
   * drawn from the parts header, tracker and footer (core client/applications/sidebar/tabs/
   * combat-tracker.mjs `static PARTS`: templates/sidebar/tabs/combat/header.hbs, tracker.hbs,
   * footer.hbs; a stored public copy): a <header class="combat-tracker-header"> holding the GM's
   * nav.encounters and the .encounter-controls, the ol.combat-tracker of turns, and the footer's
   * nav.combat-controls, which has buttons only with a combat. Each render replaces the parts'
   * contents, then fires the render hook of the class and each parent class
   * (https://foundryvtt.com/api/functions/hookEvents.renderApplicationV2.html: "Each
   * ApplicationV2 class in the inheritance chain will also fire this hook") with (application,
   * element, context, options). v12's CombatTracker is an Application (v1) whose hooks hand a
   * jQuery object (https://foundryvtt.com/api/functions/hookEvents.renderApplication.html);
   * the shim hands a jQuery-like array, as it does for chat messages.
   */
  renderCombatTracker() {
    let el = document.getElementById("combat");
    if (!el) {
      el = document.createElement("section");
      el.id = "combat";
      el.className = "tab sidebar-tab combat-sidebar";
      document.body.append(el);
    }
    const turns = game.combat ? [...game.combat.combatants].filter((c) => game.user.isGM || !c.hidden) : [];
    el.innerHTML = `<header class="combat-tracker-header">${game.user.isGM ? '<nav class="encounters"></nav>' : ""}`
      + `<div class="encounter-controls${game.combat ? " combat" : ""}"><strong class="encounter-title">${game.combat ? `Round ${game.combat.round}` : "No Combat"}</strong></div></header>`
      + `<ol class="combat-tracker plain">${turns.map((c) => `<li class="combatant" data-combatant-id="${c.id}">${c.name}</li>`).join("")}</ol>`
      + `<nav class="combat-controls">${game.combat && game.user.isGM ? '<button type="button" class="combat-control" data-action="endCombat">End Combat</button>' : ""}</nav>`;
    const app = { id: "combat", viewed: game.combat };
    if (generation >= 13) {
      for (const name of ["CombatTracker", "HandlebarsApplication", "AbstractSidebarTab", "ApplicationV2"]) Hooks.callAll(`render${name}`, app, el, {}, {});
    } else {
      for (const name of ["CombatTracker", "SidebarTab", "Application"]) Hooks.callAll(`render${name}`, app, [el], {});
    }
    return el;
  },
  /**
   * Foundry re-renders the players list (a user joins or leaves): the element's contents are
   * replaced and the render hook fires, as ApplicationV2#render calls `render${Class}` for the
   * class and its parents (v13 Players → "renderPlayers"; v12's PlayerList → "renderPlayerList").
   */
  renderPlayers() {
    const el = document.getElementById("players");
    el.innerHTML = `<ol class="players-list">${game.users.filter((u) => u.active).map((u) => `<li>${u.name}</li>`).join("")}</ol>`;
    Hooks.callAll(generation >= 13 ? "renderPlayers" : "renderPlayerList", { id: "players" }, generation >= 13 ? el : [el], {});
  },
};
