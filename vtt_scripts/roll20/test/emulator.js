'use strict';
// A Roll20 Mod (API) sandbox emulator for the tests.
//
// The real Mod script file (fracas.js, as a GM pastes it) runs in a node `vm`
// context that has Roll20's globals: on, sendChat, findObjs, filterObjs, getObj,
// createObj, getAttrByName, playerIsGM, randomInteger, Campaign, state, log,
// setTimeout. Campaign objects live in memory and behave like Roll20's: get/set,
// `_`-prefixed read-only properties, `id`. It is stricter than Roll20 where
// Roll20 would silently corrupt a game: set() with NaN, undefined, an object or a
// read-only property throws, and so does an exception escaping a handler (in
// Roll20 that crashes the whole sandbox, every script in it).
//
// Tests drive it with chat(), read what the script said with `outputs`, and can
// reload() it (a sandbox restart: new context, same campaign, `state` kept as JSON).

const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const DEFAULTS = {
  graphic: {
    _type: 'graphic', _subtype: 'token', _pageid: 'page-1', name: '', represents: '', layer: 'objects',
    statusmarkers: '', controlledby: '', left: 0, top: 0, width: 70, height: 70,
    bar1_value: '', bar1_max: '', bar1_link: '', bar2_value: '', bar2_max: '', bar2_link: '',
    bar3_value: '', bar3_max: '', bar3_link: '',
  },
  character: { _type: 'character', name: '', controlledby: '', inplayerjournals: '', archived: false },
  attribute: { _type: 'attribute', _characterid: '', name: '', current: '', max: '' },
  handout: { _type: 'handout', name: '', inplayerjournals: '', archived: false, notes: '', gmnotes: '' },
  player: { _type: 'player', _displayname: '', _online: true },
  page: { _type: 'page', name: 'Page' },
  campaign: {
    _type: 'campaign', turnorder: '', initiativepage: false, playerpageid: 'page-1',
    // Roll20's own markers (a few of them) and a custom one, as Campaign().get('_token_markers') gives them.
    _token_markers: JSON.stringify(['red', 'blue', 'green', 'dead', 'skull', 'sleepy', 'back-pain', 'half-heart',
      'ninja-mask', 'snail', 'fishing-net', 'padlock', 'cobweb', 'broken-shield', 'grab', 'screaming']
      .map((tag, i) => ({ id: i + 1, name: tag, tag, url: '' })).concat([{ id: 99, name: 'Hexed', tag: 'Hexed::4242', url: '' }])),
  },
};
const ASYNC_FIELDS = { handout: ['notes', 'gmnotes'], character: ['bio', 'gmnotes', 'defaulttoken'] };

class SandboxCrash extends Error {}

class Emulator {
  /**
   * options.script: path of the Mod script (default: the built fracas.js);
   * options.random: function(max) → 1..max (default: a seeded LCG, repeatable).
   */
  constructor(options = {}) {
    this.scriptPath = options.script || path.join(__dirname, '..', 'fracas.js');
    this.objects = new Map();
    this.counter = 0;
    this.outputs = [];
    this.logs = [];
    this.stateJSON = null;
    this.timers = [];
    this.clock = 0;
    this.gmIds = new Set();
    this.sheetDefaults = {}; // field → value the character sheet gives when no attribute exists
    // A Beacon campaign: getSheetItem exists, and sheetItems[characterId][name] are the
    // characters' fields that are sheet items (no attribute objects), read asynchronously.
    this.beacon = !!options.beacon;
    this.sheetItems = {};
    this.sheetItemReads = 0;
    let lcg = options.randomSeed === undefined ? 12345 : options.randomSeed;
    this.random = options.random || ((max) => {
      lcg = (lcg * 1103515245 + 12345) % 2147483648;
      return 1 + Math.floor((lcg / 2147483648) * max);
    });
    this.create('campaign', { _id: 'root' });
    this.create('page', { _id: 'page-1' });
    this.workerSaw = []; // attribute changes sheet workers heard (setWithWorker)
    this.gm = this.addPlayer('GM', true);
    this.boot();
  }

  // ---- campaign objects ---------------------------------------------------------

  newId() {
    this.counter += 1;
    return `-Emu${String(this.counter).padStart(6, '0')}`;
  }

  /** Create an object as Roll20 would (test side: no read-only checks). */
  create(type, props = {}) {
    if (!DEFAULTS[type]) throw new Error(`emulator: unknown object type ${type}`);
    const id = props._id || props.id || this.newId();
    const data = Object.assign({}, DEFAULTS[type], props, { _id: id, _type: type });
    delete data.id;
    const obj = new R20Object(this, data);
    this.objects.set(id, obj);
    return obj;
  }

  addPlayer(name, isGM = false) {
    const p = this.create('player', { _displayname: name });
    if (isGM) this.gmIds.add(p.id);
    return p;
  }

  /** A character with attributes {name: value} and, optionally, a token for it. */
  addCharacter(name, attrs = {}, options = {}) {
    const character = this.create('character', { name, controlledby: options.controlledby || '' });
    for (const [attr, value] of Object.entries(attrs)) {
      this.create('attribute', { _characterid: character.id, name: attr, current: String(value) });
    }
    return character;
  }

  /** A character on a Beacon sheet: its fields are sheet items, not attribute objects. */
  addBeaconCharacter(name, items = {}, props = {}) {
    const character = this.create('character', Object.assign({ name }, props));
    this.sheetItems[character.id] = Object.assign({}, items);
    return character;
  }

  /** Let the sandbox's pending promises (sheet-item reads) finish. */
  async settle(rounds = 20) {
    for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
  }

  addToken(props = {}) {
    return this.create('graphic', props);
  }

  get(id) {
    return this.objects.get(id) || null;
  }

  attribute(characterId, name) {
    for (const obj of this.objects.values()) {
      if (obj.data._type === 'attribute' && obj.data._characterid === characterId && obj.data.name === name) return obj;
    }
    return null;
  }

  campaign() {
    return this.objects.get('root');
  }

  // ---- the sandbox ---------------------------------------------------------------

  /** Load the script into a fresh context and fire `ready` (a sandbox start). */
  boot() {
    this.handlers = { ready: [], 'chat:message': [] };
    const emu = this;
    const state = this.stateJSON ? JSON.parse(this.stateJSON) : {};
    this.state = state;
    const sandbox = {
      state,
      on(event, fn) {
        if (!emu.handlers[event]) emu.handlers[event] = [];
        emu.handlers[event].push(fn);
      },
      sendChat(speakingAs, text, callback, options) {
        emu.record(speakingAs, text, options);
      },
      findObjs(attrs, options) { return emu.find(attrs, options); },
      filterObjs(fn) { return Array.from(emu.objects.values()).filter((o) => fn(o)); },
      getAllObjs() { return Array.from(emu.objects.values()); },
      getObj(type, id) {
        const obj = emu.objects.get(id);
        return obj && obj.data._type === type ? obj : undefined;
      },
      createObj(type, props) {
        if (!['handout', 'attribute', 'character', 'graphic'].includes(type)) throw new SandboxCrash(`createObj: cannot create ${type}`);
        for (const [k, v] of Object.entries(props || {})) checkValue(`createObj ${type}.${k}`, v);
        return emu.create(type, props);
      },
      getAttrByName(characterId, name, valueType = 'current') {
        const attr = emu.attribute(characterId, name);
        if (attr) return attr.data[valueType === 'max' ? 'max' : 'current'];
        // A character sheet's default for a field nobody has edited yet.
        if (Object.prototype.hasOwnProperty.call(emu.sheetDefaults, name)) return emu.sheetDefaults[name];
        emu.logs.push(`ERROR: No attribute or sheet field found for character_id ${characterId} named ${name}`);
        return undefined;
      },
      ...(emu.beacon ? {
        getSheetItem(characterId, name) {
          emu.sheetItemReads += 1;
          const items = emu.sheetItems[characterId] || {};
          return new Promise((resolve) => setImmediate(() => resolve(Object.prototype.hasOwnProperty.call(items, name) ? items[name] : undefined)));
        },
      } : {}),
      // As on Roll20: messages from other Mod scripts come from 'API', which counts as a GM.
      playerIsGM(id) { return id === 'API' || emu.gmIds.has(id); },
      randomInteger(max) {
        if (!Number.isInteger(max) || max < 1) throw new SandboxCrash(`randomInteger(${max})`);
        return emu.random(max);
      },
      Campaign() { return emu.campaign(); },
      log(text) { emu.logs.push(String(text)); },
      setTimeout(fn, ms) { return emu.addTimer(fn, ms, false); },
      clearTimeout(handle) { emu.cancelTimer(handle); },
      setInterval(fn, ms) { return emu.addTimer(fn, ms, true); },
      clearInterval(handle) { emu.cancelTimer(handle); },
      console,
    };
    this.context = vm.createContext(sandbox);
    const source = fs.readFileSync(this.scriptPath, 'utf8');
    vm.runInContext(source, this.context, { filename: path.basename(this.scriptPath) });
    this.fire('ready');
  }

  /** A sandbox restart: `state` survives as JSON, as Roll20 stores it. */
  reload() {
    this.saveState();
    this.timers = [];
    this.boot();
  }

  saveState() {
    this.stateJSON = JSON.stringify(this.state);
  }

  /** Replace the persisted state (as if an older script had left it), then restart. */
  setStoredState(state) {
    this.stateJSON = JSON.stringify(state);
    this.timers = [];
    this.boot();
  }

  fire(event, ...eventArgs) {
    for (const fn of this.handlers[event] || []) {
      try {
        fn(...eventArgs);
      } catch (err) {
        throw new SandboxCrash(`the script threw from a ${event} handler (this crashes the Roll20 sandbox): ${err && err.stack}`);
      }
    }
  }

  /**
   * A chat message from a player. `options.selected`: token ids; `options.inlinerolls`.
   * Returns the outputs the message caused.
   */
  chat(player, content, options = {}) {
    const playerObj = typeof player === 'string' ? this.get(player) : player;
    const before = this.outputs.length;
    const msg = {
      who: playerObj ? playerObj.data._displayname : 'API',
      playerid: playerObj ? playerObj.id : 'API',
      type: content.startsWith('!') ? 'api' : 'general',
      content,
    };
    if (options.selected) msg.selected = options.selected.map((id) => ({ _id: id, _type: 'graphic' }));
    if (options.inlinerolls) msg.inlinerolls = options.inlinerolls;
    this.fire('chat:message', msg);
    return this.outputs.slice(before);
  }

  record(speakingAs, text, options) {
    if (typeof text !== 'string') throw new SandboxCrash(`sendChat with a ${typeof text}`);
    let to = null;
    let body = text;
    const w = /^\/w\s+(?:"([^"]+)"|(\S+))\s+/.exec(text);
    if (w) {
      to = (w[1] || w[2]).toLowerCase();
      body = text.slice(w[0].length);
      // Roll20 delivers a whisper only to "gm", a player's display name or a character's
      // name; anything else is lost. Here that is a failure, so the tests see it.
      const known = to === 'gm' || this.find({ _type: 'player' }).some((p) => String(p.data._displayname).toLowerCase() === to)
        || this.find({ _type: 'character' }).some((c) => String(c.data.name).toLowerCase() === to);
      if (!known) throw new SandboxCrash(`a whisper to "${to}" reaches nobody (not gm, a player or a character): ${text.slice(0, 120)}`);
    }
    const out = { from: speakingAs, to, text: body, raw: text, noarchive: !!(options && options.noarchive) };
    this.outputs.push(out);
    if (this.onOutput) this.onOutput(out);
  }

  find(attrs, options = {}) {
    const ci = options && options.caseInsensitive;
    const norm = (v) => (ci && typeof v === 'string' ? v.toLowerCase() : v);
    const out = [];
    for (const obj of this.objects.values()) {
      let ok = true;
      for (const [k, v] of Object.entries(attrs)) {
        const key = k === 'type' ? '_type' : k === 'characterid' ? '_characterid' : k === 'id' ? '_id' : k;
        const have = Object.prototype.hasOwnProperty.call(obj.data, key) ? obj.data[key] : obj.data[`_${key}`];
        if (norm(have) !== norm(v)) { ok = false; break; }
      }
      if (ok) out.push(obj);
    }
    return out;
  }

  // ---- timers (manual clock: tests advance it, nothing waits) ---------------------

  addTimer(fn, ms, repeat) {
    const t = { fn, at: this.clock + Math.max(0, Number(ms) || 0), every: repeat ? Math.max(1, Number(ms) || 1) : 0, id: this.timers.length + 1 };
    this.timers.push(t);
    return t.id;
  }

  cancelTimer(id) {
    this.timers = this.timers.filter((t) => t.id !== id);
  }

  /** Advance the clock by `ms`, running the timers that come due. */
  advance(ms) {
    const end = this.clock + ms;
    for (let guard = 0; guard < 10000; guard++) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.clock = due.at;
      if (due.every) due.at += due.every;
      else this.timers = this.timers.filter((t) => t !== due);
      try {
        due.fn();
      } catch (err) {
        throw new SandboxCrash(`a timer threw (this crashes the Roll20 sandbox): ${err && err.stack}`);
      }
    }
    this.clock = end;
  }

  // ---- reading outputs -------------------------------------------------------------

  /** Roll template fields {name: value} of a card text. */
  static fields(text) {
    const out = {};
    const re = /\{\{([^=}]*)=((?:(?!\}\}).)*)\}\}/gs;
    let m;
    while ((m = re.exec(text)) !== null) out[m[1]] = m[2];
    return out;
  }
}

function checkValue(where, value) {
  if (value === undefined) throw new SandboxCrash(`${where}: set to undefined`);
  if (typeof value === 'number' && !Number.isFinite(value)) throw new SandboxCrash(`${where}: set to ${value}`);
  if (value !== null && typeof value === 'object') throw new SandboxCrash(`${where}: set to an object`);
  if (typeof value === 'bigint') throw new SandboxCrash(`${where}: set to a BigInt`);
}

class R20Object {
  constructor(emu, data) {
    this.emu = emu;
    this.data = data;
    this.changes = [];
  }

  get id() {
    return this.data._id;
  }

  get(prop, callback) {
    const type = this.data._type;
    if ((ASYNC_FIELDS[type] || []).includes(prop)) {
      // Roll20 hands these out only through a callback.
      if (typeof callback !== 'function') return undefined;
      callback(this.data[prop]);
      return undefined;
    }
    if (prop === 'id') return this.data._id;
    if (Object.prototype.hasOwnProperty.call(this.data, prop)) return this.data[prop];
    if (Object.prototype.hasOwnProperty.call(this.data, `_${prop}`)) return this.data[`_${prop}`];
    if (type === 'player' && prop === 'displayname') return this.data._displayname;
    return undefined;
  }

  set(prop, value) {
    const props = typeof prop === 'object' && prop !== null ? prop : { [prop]: value };
    for (const [k, v] of Object.entries(props)) {
      if (k.startsWith('_') || k === 'id') throw new SandboxCrash(`set(${k}): read-only property`);
      checkValue(`${this.data._type}.set(${k})`, v);
      this.changes.push({ prop: k, before: this.data[k], after: v });
      this.data[k] = v;
      // A bar linked to an attribute follows it, as on the tabletop.
      if (this.data._type === 'attribute' && k === 'current') {
        for (const obj of this.emu.objects.values()) {
          for (const n of [1, 2, 3]) {
            if (obj.data._type === 'graphic' && obj.data[`bar${n}_link`] === this.id) obj.data[`bar${n}_value`] = v;
          }
        }
      }
    }
    return this;
  }

  /** Roll20's set that sheet workers hear: attributes only, as on the tabletop. */
  setWithWorker(props) {
    if (this.data._type !== 'attribute') throw new SandboxCrash(`setWithWorker on a ${this.data._type}`);
    if (typeof props !== 'object' || props === null) throw new SandboxCrash('setWithWorker takes an object of properties');
    this.set(props);
    for (const k of Object.keys(props)) this.emu.workerSaw.push({ id: this.id, prop: k, value: props[k] });
    return this;
  }

  remove() {
    this.emu.objects.delete(this.id);
  }
}

module.exports = { Emulator, SandboxCrash };
