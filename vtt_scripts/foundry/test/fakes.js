// Small fakes of what the module touches, for node tests: a manual clock, a scripted
// WebSocket, actors with update(), and the VTT adapter the actions run against.

/** A clock that only moves when the test says so. */
export class FakeClock {
  now = 0;
  #timers = new Map();
  #next = 1;

  setTimeout = (fn, ms) => {
    const id = this.#next++;
    this.#timers.set(id, { at: this.now + ms, fn });
    return id;
  };

  clearTimeout = (id) => {
    this.#timers.delete(id);
  };

  /** Advance by `ms`, firing due timers in time order (timers set while firing included). */
  advance(ms) {
    const end = this.now + ms;
    for (;;) {
      let due = null;
      for (const [id, t] of this.#timers) {
        if (t.at <= end && (!due || t.at < due.t.at)) due = { id, t };
      }
      if (!due) break;
      this.#timers.delete(due.id);
      this.now = due.t.at;
      due.t.fn();
    }
    this.now = end;
  }

  /** Delays of the pending timers, soonest first. */
  pending() {
    return [...this.#timers.values()].map((t) => t.at - this.now).sort((a, b) => a - b);
  }
}

/** A WebSocket whose peer is the test: every instance is recorded in `FakeWebSocket.all`. */
export class FakeWebSocket {
  static all = [];
  readyState = 0;
  sent = [];
  closedWith = null;

  constructor(url) {
    if (!/^wss?:\/\//.test(url)) throw new SyntaxError(`Failed to construct 'WebSocket': The URL '${url}' is invalid.`);
    this.url = url;
    FakeWebSocket.all.push(this);
  }

  static reset() {
    FakeWebSocket.all = [];
  }

  static get last() {
    return FakeWebSocket.all[FakeWebSocket.all.length - 1];
  }

  send(text) {
    if (this.readyState !== 1) throw new Error("send on a socket that is not open");
    this.sent.push(JSON.parse(text));
  }

  close(code, reason) {
    this.closedWith = { code, reason };
    this.readyState = 3;
  }

  // ── the peer's side ──
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }

  reply(message) {
    this.onmessage?.({ data: typeof message === "string" ? message : JSON.stringify(message) });
  }

  drop(code = 1006, reason = "") {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }

  /** The last request sent with `method`. */
  lastSent(method) {
    return [...this.sent].reverse().find((m) => m.method === method);
  }
}

/** An actor-like document: `update` sets dotted paths, or fails when told to. */
export function fakeActor({ uuid, name, system, statuses = [], flags = {} }) {
  const actor = {
    uuid,
    id: uuid.split(".").pop(),
    name,
    system: structuredClone(system),
    flags,
    statuses: new Set(statuses),
    updates: [],
    failNext: null,
    async update(data) {
      if (actor.failNext) {
        const error = actor.failNext;
        actor.failNext = null;
        throw error;
      }
      actor.updates.push(data);
      for (const [path, value] of Object.entries(data)) {
        const keys = path.split(".");
        let node = actor;
        for (const k of keys.slice(0, -1)) node = node[k] ??= {};
        node[keys[keys.length - 1]] = value;
      }
      return actor;
    },
  };
  return actor;
}

/**
 * Refuse an option a fake does not know: a test that passes a typo (or a property the edge
 * never gives) fails instead of testing something else.
 * @param {string} what
 * @param {object} given
 * @param {string[]} known
 */
export function onlyKnown(what, given, known) {
  for (const key of Object.keys(given ?? {})) {
    if (!known.includes(key)) throw new TypeError(`${what}: unknown property ${JSON.stringify(key)} (known: ${known.join(", ")})`);
  }
}

/**
 * A token view around an actor, as the edge builds them (main.js tokenView); `at`: [column, row]
 * on a 100-px grid. `disposition` is TokenDocument#disposition (CONST.TOKEN_DISPOSITIONS, HOSTILE -1
 * when not set: foundry-vtt-types 13.x client/data/documents/token.d.mts l. 330-345); `unnamed`:
 * players do not see its nameplate (audience.js othersSeeName).
 */
export function view(id, name, actor, options = {}) {
  onlyKnown("view", options, ["at", "hidden", "size", "disposition", "unnamed"]);
  const { at, hidden = false, size = 1, disposition, unnamed } = options;
  const v = { id, name, actorId: actor?.id ?? null, actorUuid: actor?.uuid ?? null, actorName: actor?.name ?? null, actor, statuses: actor ? [...actor.statuses] : [] };
  if (at) Object.assign(v, { hidden, place: { x: at[0] * 100, y: at[1] * 100, width: size, height: size } });
  else if (hidden) v.hidden = true;
  if (disposition !== undefined) v.disposition = disposition;
  if (unnamed !== undefined) v.unnamed = unnamed;
  return v;
}

/** Simple Worldbuilding-like system data. */
export function sheet({ ac = 12, hp = 10, hpMax = 10, str = 4, agi = 2, size, resistant } = {}) {
  const attributes = { ac: { value: ac }, strength: { value: str }, agility: { value: agi } };
  if (size) attributes.size = { value: size };
  if (resistant) attributes.resistant = { value: resistant };
  return { health: { value: hp, max: hpMax }, attributes };
}

/** What a card posted through the adapter may hold (actions.js's Vtt#postCard). */
const CARD_KEYS = ["content", "rolls", "flags", "speaker", "whisperToGM", "rollMode", "requester", "gmRequester"];

/** The VTT adapter over in-memory tokens, settings and chat. */
export function fakeVtt(options = {}) {
  onlyKnown("fakeVtt", options, ["tokens", "controlled", "targeted", "settings", "isGM"]);
  const { tokens = [], controlled = [], targeted = [], settings = {}, isGM = true } = options;
  const byId = new Map(tokens.map((t) => [t.id, t]));
  const docs = new Map(tokens.filter((t) => t.actor).map((t) => [t.actor.uuid, t.actor]));
  const vtt = {
    gm: isGM,
    notes: [],
    messages: [],
    settings: {
      applyDamage: true, floorBodyAtZero: true, conditionsFromStatuses: true, chatVisibility: "public",
      pathAc: "system.attributes.ac.value", pathBody: "system.health.value", pathBodyMax: "system.health.max",
      pathStrength: "system.attributes.strength.value", pathAgility: "system.attributes.agility.value",
      pathStrengthMod: "", pathAgilityMod: "", pathSize: "system.attributes.size.value",
      pathResistant: "system.attributes.resistant.value", pathVulnerable: "", pathImmune: "",
      pathSaveBonus: "", pathInitiativeBonus: "", lastStrike: null,
      ...settings,
    },
    combatState: null,
    initiativeUpdates: [],
    postFails: null,
    formAnswer: null,
    isGM: () => vtt.gm,
    controlled: () => controlled.map((id) => byId.get(id)),
    targeted: () => targeted.map((id) => byId.get(id)),
    toView: (ref) => byId.get(typeof ref === "string" ? ref : ref?.id) ?? [...byId.values()].find((t) => t.name === ref) ?? null,
    setting: (key) => vtt.settings[key],
    setSetting: async (key, value) => {
      vtt.settings[key] = value;
    },
    makeRolls: async (specs) => specs.map((s) => ({ fake: "roll", ...s })),
    postCard: async (card) => {
      onlyKnown("postCard", card, CARD_KEYS);
      if (vtt.postFails) throw vtt.postFails;
      const message = { id: `msg${vtt.messages.length + 1}`, ...structuredClone({ ...card, rolls: undefined, speaker: undefined }), rolls: card.rolls, speaker: card.speaker };
      vtt.messages.push(message);
      return message;
    },
    messageFlags: (id) => vtt.messages.find((m) => m.id === id)?.flags?.fracas ?? null,
    setMessageFlags: async (id, values) => {
      const m = vtt.messages.find((x) => x.id === id);
      Object.assign(m.flags.fracas, values);
    },
    getDocument: async (uuid) => docs.get(uuid) ?? null,
    updateDocument: (doc, data) => doc.update(data),
    combat: () => vtt.combatState,
    setInitiative: async (combat, values, options) => {
      vtt.initiativeUpdates.push(values);
      vtt.initiativeOptions = options;
    },
    promptForm: async (html, title, okLabel) => { Object.assign(vtt, { formHtml: html, formTitle: title, formOk: okLabel }); return vtt.formAnswer; },
    owned: new Set(), // token ids this (player) user owns
    ownsToken: (v) => vtt.owned.has(v?.id),
    userOwnsToken: (userId, v) => (vtt.ownersOf?.[v?.id] ?? []).includes(userId),
    holdsConnection: () => vtt.gm,
    asked: [],
    askGM: async (action, data) => {
      vtt.asked.push({ action, data: structuredClone(data) });
      if (!vtt.gmAnswers) throw Object.assign(new Error("no GM"), { name: "InputError" });
      return vtt.gmAnswers(action, data);
    },
    notify: (level, text) => vtt.notes.push({ level, text }),
    forgetDocument: (uuid) => docs.delete(uuid),
    /** GM-only ledgers (whispered messages in Foundry): a card's Body values. */
    ledgers: new Map(),
    postLedger: async (changes) => {
      const id = `ledger${vtt.ledgers.size + 1}`;
      vtt.ledgers.set(id, structuredClone(changes));
      return id;
    },
    ledger: (id) => structuredClone(vtt.ledgers.get(id) ?? null),
    setLedger: async (id, changes) => { vtt.ledgers.set(id, structuredClone(changes)); },
    system: "worldbuilding",
    systemId: () => vtt.system,
    /** The scene's tokens with their places and its grid (a 5-ft square grid of 100 px). */
    grid: { size: 100, type: 1, distance: 5, units: "ft" },
    sceneTokens: () => ({ grid: vtt.grid, views: [...byId.values()] }),
    defeatedStatus: () => "dead",
    /** The token document of a token id (what pf2e's applyDamage takes). */
    tokenDocument: (id) => (byId.has(id) ? { id, documentName: "Token", name: byId.get(id).name } : null),
    /**
     * The world's status effect ids (CONFIG.statusEffects): Foundry's core list by default
     * (foundry-vtt-types 13.x client/config.d.mts, the statusEffects default, l. 1210-1387).
     */
    statusIds: new Set(["dead", "unconscious", "sleep", "stun", "prone", "restrain", "paralysis", "fly", "blind", "deaf", "silence",
      "fear", "burning", "frozen", "shock", "corrode", "bleeding", "disease", "poison", "curse", "regen", "degen", "hover", "burrow",
      "upgrade", "downgrade", "invisible", "target", "eye", "bless", "fireShield", "coldShield", "magicShield", "holyShield"]),
    statusChanges: [],
    /**
     * main.js setStatus: the first of `ids` the world has, toggled with Actor#toggleStatusEffect(id,
     * {active}) (actor.d.mts l. 758-772: "A status effect ID defined in CONFIG.statusEffects"; an id
     * it lacks makes ActiveEffect.fromStatusEffect throw, active-effect.d.mts l. 641-653, so none is tried).
     */
    setStatus: async (actor, ids, on) => {
      if (!Array.isArray(ids)) throw new TypeError("setStatus: ids must be a list");
      const id = ids.find((x) => vtt.statusIds.has(x));
      if (!id) return null;
      if (on) actor.statuses.add(id);
      else actor.statuses.delete(id);
      vtt.statusChanges.push({ actor: actor.uuid, id, on });
      return id;
    },
  };
  return vtt;
}

/** A connection stand-in answering from a function of (method, params, id). */
export function fakeConnection(answer) {
  const calls = [];
  return {
    calls,
    async call(method, params, { id } = {}) {
      calls.push({ method, params: structuredClone(params), id });
      return answer(method, params, id);
    },
  };
}
