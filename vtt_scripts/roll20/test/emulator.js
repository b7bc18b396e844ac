'use strict';
// A Roll20 Mod (API) sandbox emulator for the tests: STRICT, so a test fails where
// Roll20 would misbehave. Each behaviour names its source:
//
// * Only Roll20's globals (wiki API:Utility Functions, API:Objects, API:Chat,
//   API:Events): on, sendChat, findObjs, filterObjs, getAllObjs, getObj, createObj,
//   getAttrByName, playerIsGM, randomInteger, Campaign, state, log and the timers.
//   No require, process, Buffer or setImmediate: a script that reaches for them fails here.
// * Every installed script is concatenated into ONE source and run in one shared
//   scope (the wiki's Mod:Cookbook "Revealing Module Pattern" writes
//   `var m = m || (function () {…}())` because all scripts share the global
//   namespace): a top-level name two scripts declare is a SyntaxError for all of them.
//   `options.scripts` adds other scripts (e.g. a forwarder like ScriptCards) beside fracas.js.
// * A script's sendChat comes back to every chat:message handler with playerid 'API'
//   and `who` the speakingAs name (API:Chat: "playerid: The ID of the player that sent
//   the message"; for the sandbox that is 'API'; speakingAs "player|id" and
//   "character|id" give that player's or character's name). The type follows the text:
//   '!' → api, '/w' → whisper, '/em' → emote, '/desc' → desc, else general. It is
//   delivered after the handler that sent it returns (Roll20 delivers chat asynchronously).
// * `state` must stay JSON (API:Objects, "state": "it is persisted as JSON"): after every
//   event, timer and promise turn the emulator walks it and fails on undefined, NaN,
//   Infinity, functions, BigInt, Maps and other non-plain objects, and cycles.
// * set() and createObj() know each object type's properties (API:Objects, the property
//   tables of Graphic, Character, Attribute, Handout, Player, Page, Campaign): an unknown
//   property, a `_` read-only one, or a value of the wrong kind (NaN, undefined, an object,
//   a layer that is not one of Roll20's) is refused. Roll20 itself would store or ignore
//   it silently and the game would be quietly wrong; here the test fails.
// * A GM's chat message has `who` "Name (GM)" (PowerCards in Roll20/roll20-api-scripts strips
//   it with msg.who.replace(" (GM)", "")).
// * playerIsGM('API') is false: 'API' is no player (TokenMod's `--api-as` exists because
//   a script's message carries no player to check).
// * An exception escaping a handler or timer crashes the sandbox (every script in it).
//
// Tests drive it with chat(), read what the scripts said with `outputs`, and can
// reload() it (a sandbox restart: new context, same campaign, `state` kept as JSON).

const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const DEFAULTS = {
  graphic: {
    _type: 'graphic', _subtype: 'token', _pageid: 'page-1', name: '', represents: '', layer: 'objects',
    statusmarkers: '', controlledby: '', left: 0, top: 0, width: 70, height: 70,
    bar1_value: '', bar1_max: '', bar1_link: '', bar2_value: '', bar2_max: '', bar2_link: '',
    bar3_value: '', bar3_max: '', bar3_link: '', bar4_value: '', bar4_max: '', bar4_link: '',
    // Who sees a bar's numbers: '' editors only (the default), 'hidden' nobody, 'everyone'
    // (TokenMod/TokenMod.js lines 2312 "To only show it to editors (the default) ... leave the
    // field blank" and 336-345, the values it writes: '', 'hidden', 'everyone').
    bar1_num_permission: '', bar2_num_permission: '', bar3_num_permission: '', bar4_num_permission: '',
    // API:Objects, Graphic: showname and showplayers_name default to false (no nameplate players see).
    showname: false, showplayers_name: false,
    showplayers_bar1: false, showplayers_bar2: false, showplayers_bar3: false, showplayers_bar4: false,
  },
  character: { _type: 'character', name: '', controlledby: '', inplayerjournals: '', archived: false },
  attribute: { _type: 'attribute', _characterid: '', name: '', current: '', max: '' },
  handout: { _type: 'handout', name: '', inplayerjournals: '', archived: false, notes: '', gmnotes: '' },
  // _lastpage: the page the player last viewed (roll20-api-scripts .types/index.d.ts PlayerProperties).
  player: { _type: 'player', _displayname: '', _online: true, _lastpage: '' },
  page: { _type: 'page', name: 'Page' },
  campaign: {
    _type: 'campaign', turnorder: '', initiativepage: false, playerpageid: 'page-1', playerspecificpages: false,
    // A real campaign's list, as Campaign().get('_token_markers') gives it: the token marker
    // sets the GM installed (here the default set, a few of them) and a custom one. It does NOT
    // hold the colour dots (red, blue, green, brown, purple, pink, yellow) nor `dead`: those are
    // built into every token, and scripts add them themselves (Roll20/roll20-api-scripts
    // libTokenMarkers/libTokenMarkers.js lines 109-117 `buildStaticMarkers` inserts the seven
    // ColorDotTokenMarkers and ColorTextTokenMarker('dead', 'X') before line 121-123 reads
    // `_token_markers`; TokenMod/TokenMod.js lines 1299-1307 and 1328 do the same).
    _token_markers: JSON.stringify(['skull', 'sleepy', 'back-pain', 'half-heart',
      'ninja-mask', 'snail', 'fishing-net', 'padlock', 'cobweb', 'broken-shield', 'grab', 'screaming']
      .map((tag, i) => ({ id: i + 1, name: tag, tag, url: '' })).concat([{ id: 99, name: 'Hexed', tag: 'Hexed::4242', url: '' }])),
  },
};
const ASYNC_FIELDS = { handout: ['notes', 'gmnotes'], character: ['bio', 'gmnotes', 'defaulttoken'] };

// The properties scripts may set, per type, with the kind of value each takes (wiki
// API:Objects, the property table of each object). 'bar' is Roll20's bar value: a
// string or a number. Properties starting with `_` are read-only (API:Objects: "you
// cannot set them"). A graphic also takes `status_<marker>` (API:Objects, statusmarkers).
const BOOL = 'bool';
const NUM = 'num';
const STR = 'str';
const BAR = 'bar';
const WRITABLE = {
  graphic: Object.assign({
    imgsrc: STR, bar1_link: STR, bar2_link: STR, bar3_link: STR, represents: STR, left: NUM, top: NUM, width: NUM,
    height: NUM, rotation: NUM, layer: 'layer', isdrawing: BOOL, flipv: BOOL, fliph: BOOL, name: STR, gmnotes: STR,
    controlledby: STR, bar1_value: BAR, bar2_value: BAR, bar3_value: BAR, bar1_max: BAR, bar2_max: BAR, bar3_max: BAR,
    aura1_radius: BAR, aura2_radius: BAR, aura1_color: STR, aura2_color: STR, aura1_square: BOOL, aura2_square: BOOL,
    tint_color: STR, statusmarkers: STR, showname: BOOL, showplayers_name: BOOL, showplayers_bar1: BOOL,
    showplayers_bar2: BOOL, showplayers_bar3: BOOL, showplayers_aura1: BOOL, showplayers_aura2: BOOL,
    playersedit_name: BOOL, playersedit_bar1: BOOL, playersedit_bar2: BOOL, playersedit_bar3: BOOL,
    playersedit_aura1: BOOL, playersedit_aura2: BOOL, light_radius: BAR, light_dimradius: BAR,
    light_otherplayers: BOOL, light_hassight: BOOL, light_angle: BAR, light_losangle: BAR, light_multiplier: BAR,
    lastmove: STR, sides: STR, currentSide: NUM, tooltip: STR, show_tooltip: BOOL,
    // Bar 4 (Roll20 added a fourth bar: TokenMod/TokenMod.js lines 25, 32, 108, 112, 143 list
    // showplayers_bar4, playersedit_bar4, bar4_value, bar4_max, bar4_link beside bars 1-3).
    bar4_link: STR, bar4_value: BAR, bar4_max: BAR, showplayers_bar4: BOOL, playersedit_bar4: BOOL,
    // TokenMod/TokenMod.js lines 144-147 (bar1..bar4_num_permission), 336-345 (their values).
    bar1_num_permission: 'numperm', bar2_num_permission: 'numperm', bar3_num_permission: 'numperm',
    bar4_num_permission: 'numperm',
    // .types/index.d.ts GraphicProperties: bar_location, compact_bar.
    bar_location: 'barloc', compact_bar: 'compact',
  }),
  character: { avatar: STR, name: STR, bio: STR, gmnotes: STR, archived: BOOL, inplayerjournals: STR, controlledby: STR },
  attribute: { name: STR, current: BAR, max: BAR },
  handout: { avatar: STR, name: STR, notes: STR, gmnotes: STR, inplayerjournals: STR, archived: BOOL, controlledby: STR },
  player: { speakingas: STR, color: STR, showmacrobar: BOOL },
  page: {
    name: STR, showgrid: BOOL, showdarkness: BOOL, showlighting: BOOL, width: NUM, height: NUM, snapping_increment: NUM,
    grid_opacity: NUM, fog_opacity: NUM, background_color: STR, gridcolor: STR, grid_type: STR, scale_units: STR,
    scale_number: NUM, gridlabels: BOOL, diagonaltype: STR, archived: BOOL, lightupdatedrop: BOOL,
    lightenforcelos: BOOL, lightrestrictmove: BOOL, lightglobalillum: BOOL,
  },
  // playerspecificpages: false, or an object player id → page id (API:Objects, Campaign).
  campaign: { turnorder: STR, initiativepage: 'page', playerpageid: 'page', playerspecificpages: 'pages' },
};
// Roll20's layers (API:Objects, Graphic: layer "gmlayer, objects, map, walls"; foreground since 2023).
const LAYERS = ['gmlayer', 'objects', 'map', 'walls', 'foreground'];

/** Why `value` is not a `kind` property value, or null when it is fine. */
function badValue(kind, value) {
  if (value === undefined) return 'undefined';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return 'a BigInt';
  if (typeof value === 'function') return 'a function';
  switch (kind) {
    case BOOL: return typeof value === 'boolean' ? null : `${JSON.stringify(value)} (not true or false)`;
    case NUM: return typeof value === 'number' ? null : `${JSON.stringify(value)} (not a number)`;
    case STR: return typeof value === 'string' ? null : `${JSON.stringify(value)} (not a string)`;
    case BAR: return typeof value === 'string' || typeof value === 'number' ? null : `${typeof value} (not a string or number)`;
    case 'layer': return LAYERS.includes(value) ? null : `${JSON.stringify(value)} (not a layer: ${LAYERS.join(', ')})`;
    case 'status': return typeof value === 'boolean' || (Number.isInteger(value) && value >= 0 && value <= 9) ? null
      : `${JSON.stringify(value)} (a status marker is true, false or a count 0-9)`;
    case 'numperm': return ['', 'hidden', 'everyone'].includes(value) ? null
      : `${JSON.stringify(value)} (a bar's number permission is '' (editors), 'hidden' or 'everyone': TokenMod.js 336-345)`;
    case 'barloc': return [null, 'overlap_top', 'overlap_bottom', 'below', 'above', 'bottom'].includes(value) ? null
      : `${JSON.stringify(value)} (not a bar location)`;
    case 'compact': return ['compact', '', null].includes(value) ? null : `${JSON.stringify(value)} (not 'compact' or '')`;
    // Campaign initiativepage is `string | false` (roll20-api-scripts .types/index.d.ts line 37;
    // GroupInitiative/GroupInitiative.js lines 1453-1455 and 1896-1907 set a page id or false):
    // here the id of a page of this campaign.
    case 'page': return value === false || typeof value === 'string' ? null : `${JSON.stringify(value)} (not false or a page id)`;
    case 'pages':
      if (value === false) return null;
      if (value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string')) return null;
      return 'not false or an object of page ids';
    default: return `a value for an unknown kind ${kind}`;
  }
}

/** Whether `type` objects take `prop` from set() (and its kind). */
function writableKind(type, prop) {
  const table = WRITABLE[type] || {};
  if (Object.prototype.hasOwnProperty.call(table, prop)) return table[prop];
  if (type === 'graphic' && /^status_[A-Za-z0-9_:-]+$/.test(prop)) return 'status';
  return null;
}

class SandboxCrash extends Error {}

class Emulator {
  /**
   * options.script: path of the Mod script (default: the built fracas.js);
   * options.random: function(max) → 1..max (default: a seeded LCG, repeatable).
   */
  constructor(options = {}) {
    this.scriptPath = options.script || path.join(__dirname, '..', 'fracas.js');
    // Other scripts installed beside fracas: [{name, source}] (before it in the concatenation).
    this.otherScripts = options.scripts || [];
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
    // Beacon computed properties, as Campaign().computedSummary gives them: name → {tokenBarValue,
    // readonly} (TokenMod/TokenMod.js lines 1626-1630 read `Campaign().computedSummary` as a plain
    // property, not through get(); lines 1647-1653: tokenBarValue says a bar may link to it,
    // readonly (true when absent) that setComputed may not write it). A bar linked to one holds
    // the property's name in barN_link (TokenMod.js lines 3748-3753: `mods[k]=f[0]`).
    this.computed = options.computed || (this.beacon ? { hp: { tokenBarValue: true, readonly: false } } : {});
    this.computedWrites = [];
    let lcg = options.randomSeed === undefined ? 12345 : options.randomSeed;
    this.random = options.random || ((max) => {
      lcg = (lcg * 1103515245 + 12345) % 2147483648;
      return 1 + Math.floor((lcg / 2147483648) * max);
    });
    this.create('campaign', { _id: 'root' });
    if (this.beacon) this.campaign().computedSummary = JSON.parse(JSON.stringify(this.computed));
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
    for (const k of Object.keys(props)) {
      if (k === 'id' || Object.prototype.hasOwnProperty.call(DEFAULTS[type], k) || writableKind(type, k) || k.startsWith('_')) continue;
      throw new Error(`emulator: ${type} has no property ${k} (API:Objects)`);
    }
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
    for (let i = 0; i < rounds; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      this.checkState('after a promise turn');
      this.drain();
    }
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
    this.echoes = [];
    this.delivering = false;
    this.ctxProto = null;
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
        if (typeof callback === 'function') throw new SandboxCrash('sendChat with a callback: the emulator does not roll dice for scripts');
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
        // API:Objects, createObj: scripts create graphics, text, paths, characters, attributes,
        // abilities, handouts, macros, rollable tables… but never players, pages or the campaign.
        if (!['handout', 'attribute', 'character', 'graphic'].includes(type)) throw new SandboxCrash(`createObj: cannot create ${type}`);
        const clean = {};
        for (const [k, v] of Object.entries(props || {})) {
          if (k === '_characterid' && type === 'attribute') { clean[k] = v; continue; } // API:Objects: given at creation
          if (k === '_pageid' && type === 'graphic') { clean[k] = v; continue; }
          if (k === '_subtype' && type === 'graphic') { clean[k] = v; continue; }
          const kind = writableKind(type, k);
          if (!kind) throw new SandboxCrash(`createObj('${type}'): no settable property ${k} (API:Objects)`);
          const bad = badValue(kind, v);
          if (bad) throw new SandboxCrash(`createObj('${type}').${k}: ${bad}`);
          clean[k] = v;
        }
        return emu.create(type, clean);
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
        // setComputed({characterId, property, args: [value]}) writes a Beacon computed property
        // (TokenMod/TokenMod.js lines 3841-3844 and 3863-3866, only for a property of
        // computedSummary that is not readonly); getComputed({characterId, property}) reads one,
        // asynchronously (lines 1617-1619, 1636). Strict: an unknown or read-only property, a
        // character without a Beacon sheet, or args that are not [a number or string] crash here.
        setComputed(spec) {
          const { characterId, property, args } = spec || {};
          const info = Object.prototype.hasOwnProperty.call(emu.computed, property) ? emu.computed[property] : null;
          if (!info) throw new SandboxCrash(`setComputed: "${property}" is not in Campaign().computedSummary`);
          if (info.readonly !== false) throw new SandboxCrash(`setComputed: "${property}" is read-only (computedSummary readonly)`);
          if (!emu.sheetItems[characterId]) throw new SandboxCrash(`setComputed: ${characterId} is no character with a Beacon sheet`);
          if (!Array.isArray(args) || args.length !== 1 || !['number', 'string'].includes(typeof args[0]) ||
            (typeof args[0] === 'number' && !Number.isFinite(args[0]))) {
            throw new SandboxCrash(`setComputed: args must be [a value], not ${JSON.stringify(args)}`);
          }
          emu.sheetItems[characterId][property] = args[0];
          emu.computedWrites.push({ characterId, property, value: args[0] });
          // The sheet pushes the property to every bar linked to it (a linked bar shows the sheet's value).
          for (const obj of emu.objects.values()) {
            for (const n of [1, 2, 3, 4]) {
              if (obj.data._type === 'graphic' && obj.data.represents === characterId && obj.data[`bar${n}_link`] === property) {
                obj.data[`bar${n}_value`] = args[0];
              }
            }
          }
          return Promise.resolve(true);
        },
        getComputed(spec) {
          const { characterId, property } = spec || {};
          const items = emu.sheetItems[characterId] || {};
          return new Promise((resolve) => setImmediate(() => resolve(Object.prototype.hasOwnProperty.call(items, property) ? items[property] : undefined)));
        },
      } : {}),
      // API:Utility Functions: playerIsGM(playerid) "returns whether a player is currently GM";
      // 'API' (another script's message) is no player, so it is not a GM.
      playerIsGM(id) { return emu.gmIds.has(id); },
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
    };
    this.context = vm.createContext(sandbox);
    // One file, one scope: every script concatenated (Roll20 shows errors by line of that file).
    const parts = this.otherScripts.map((sc) => `// ---- ${sc.name}\n${sc.source}`);
    parts.push(`// ---- ${path.basename(this.scriptPath)}\n${fs.readFileSync(this.scriptPath, 'utf8')}`);
    vm.runInContext(parts.join('\n'), this.context, { filename: 'api-scripts.js' });
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
      this.checkState(`after a ${event} handler`);
    }
    this.drain();
  }

  /** Chat the scripts sent reaches every chat:message handler now, as 'API'. */
  drain() {
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let n = 0; this.echoes.length; n++) {
        if (n > 200) throw new SandboxCrash('scripts answer each other\'s chat without end (more than 200 messages)');
        this.fire('chat:message', this.echoes.shift());
      }
    } finally {
      this.delivering = false;
    }
  }

  /** `state` must survive Roll20's JSON persistence unchanged (API:Objects, state). */
  checkState(when) {
    const seen = new Set();
    const walk = (value, where) => {
      if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
      if (typeof value === 'number') {
        if (!Number.isFinite(value)) throw new SandboxCrash(`state${where} is ${value} ${when}: Roll20 keeps state as JSON`);
        return;
      }
      if (typeof value !== 'object') throw new SandboxCrash(`state${where} is a ${typeof value} ${when}: Roll20 keeps state as JSON`);
      if (seen.has(value)) throw new SandboxCrash(`state${where} is a cycle ${when}`);
      const proto = Object.getPrototypeOf(value);
      const plainObject = proto === null || proto === Object.prototype || proto === this.contextObjectProto();
      if (!Array.isArray(value) && !plainObject) throw new SandboxCrash(`state${where} is a ${value.constructor && value.constructor.name} ${when}: Roll20 keeps state as JSON`);
      seen.add(value);
      for (const k of Object.keys(value)) walk(value[k], `${where}${Array.isArray(value) ? `[${k}]` : `.${k}`}`);
      seen.delete(value);
    };
    walk(this.state, '');
  }

  contextObjectProto() {
    if (!this.ctxProto) this.ctxProto = vm.runInContext('Object.prototype', this.context);
    return this.ctxProto;
  }

  /**
   * A chat message from a player. `options.selected`: token ids; `options.inlinerolls`.
   * Returns the outputs the message caused.
   */
  chat(player, content, options = {}) {
    const playerObj = typeof player === 'string' ? this.get(player) : player;
    const before = this.outputs.length;
    // A GM's message says so in `who`: "Name (GM)" (real scripts strip it: PowerCards in
    // Roll20/roll20-api-scripts does `msg.who = msg.who.replace(" (GM)", "")`), so a script
    // that whispers back to msg.who, or looks a player up by it, fails here as on Roll20.
    const isGM = !!playerObj && this.gmIds.has(playerObj.id);
    const msg = {
      who: playerObj ? `${playerObj.data._displayname}${isGM ? ' (GM)' : ''}` : 'API',
      playerid: playerObj ? playerObj.id : 'API',
      type: content.startsWith('!') ? 'api' : 'general',
      content,
    };
    if (options.selected) msg.selected = options.selected.map((id) => ({ _id: id, _type: 'graphic' }));
    if (options.inlinerolls) msg.inlinerolls = options.inlinerolls;
    this.fire('chat:message', msg);
    return this.outputs.slice(before);
  }

  /** Who a script's speakingAs names: "player|id" and "character|id" become that name (API:Chat). */
  speakerName(speakingAs) {
    const m = /^(player|character)\|(.+)$/.exec(String(speakingAs));
    if (!m) return String(speakingAs);
    const obj = this.objects.get(m[2]);
    if (!obj || obj.data._type !== m[1]) return String(speakingAs);
    return String(m[1] === 'player' ? obj.data._displayname : obj.data.name);
  }

  record(speakingAs, text, options) {
    if (typeof text !== 'string') throw new SandboxCrash(`sendChat with a ${typeof text}`);
    let to = null;
    let body = text;
    let recipients = null;
    const w = /^\/w\s+/.exec(text);
    if (w) {
      ({ to, body, recipients } = this.whisperTarget(text.slice(w[0].length), text));
    }
    const out = { from: speakingAs, to, players: recipients, text: body, raw: text, noarchive: !!(options && options.noarchive) };
    // API:Chat: a message starting with '!' is shown to nobody, only handed to the scripts.
    if (!text.startsWith('!')) {
      this.outputs.push(out);
      if (this.onOutput) this.onOutput(out);
    }
    // API:Chat: the message comes back to every chat:message handler, from playerid 'API'.
    const echo = { who: this.speakerName(speakingAs), playerid: 'API', content: body, type: 'general' };
    if (w) {
      echo.type = 'whisper';
      // API:Chat: "target: The player ID the message was whispered to", comma-separated for several.
      echo.target = recipients.join(',');
    } else if (text.startsWith('!')) echo.type = 'api';
    else if (/^\/em\s/.test(text)) { echo.type = 'emote'; echo.content = text.replace(/^\/em\s+/, ''); }
    else if (/^\/desc\s/.test(text)) { echo.type = 'desc'; echo.content = text.replace(/^\/desc\s+/, ''); }
    const template = /&\{template:([^}]*)\}/.exec(body);
    if (template) echo.rolltemplate = template[1];
    this.echoes.push(echo);
  }

  /**
   * Roll20's reading of `/w <target> <text>` (wiki "Text Chat", Whispers): the target is a
   * double-quoted name up to the next `"` (no escape: Earthdawn.js in Roll20/roll20-api-scripts,
   * "contains a double quote mark, which makes it impossible to send a whisper to that person"),
   * or one word up to the first space; `gm` is the GMs. It names a player's display name or a
   * character's name, case-insensitively; a character's whisper goes to the players in its
   * "controlled by" list (same page). A bare word also reaches the one name it begins (real
   * scripts whisper by a display name's first word: Sequence/Sequence.js, DSA4_1-CritChecker).
   * Strict: a target that reaches nobody, a word that begins several names (which one Roll20
   * picks is not documented), or a character controlled by all players is a failure here.
   */
  whisperTarget(rest, text) {
    const quoted = /^"([^"]*)"\s*/.exec(rest);
    const bare = quoted ? null : /^(\S+)\s*/.exec(rest);
    const m = quoted || bare;
    if (!m || !m[1]) throw new SandboxCrash(`a whisper without a target: ${text.slice(0, 120)}`);
    const to = m[1].toLowerCase();
    const body = rest.slice(m[0].length);
    if (to === 'gm') return { to, body, recipients: ['gm'] };
    const named = [
      ...this.find({ _type: 'player' }).map((p) => ({ name: String(p.data._displayname).toLowerCase(), players: [p.id], what: `player ${p.data._displayname}` })),
      ...this.find({ _type: 'character' }).map((c) => ({ name: String(c.data.name).toLowerCase(), what: `character ${c.data.name}`,
        players: String(c.data.controlledby || '').split(',').map((s) => s.trim()).filter(Boolean) })),
    ];
    let hit = named.filter((n) => n.name === to);
    if (!hit.length && bare) hit = named.filter((n) => n.name.startsWith(to));
    if (!hit.length) throw new SandboxCrash(`a whisper to "${to}" reaches nobody (not gm, a player or a character): ${text.slice(0, 120)}`);
    if (hit.length > 1) throw new SandboxCrash(`a whisper to "${to}" names ${hit.map((n) => n.what).join(' and ')}: it may reach the wrong one: ${text.slice(0, 120)}`);
    if (hit[0].players.includes('all')) throw new SandboxCrash(`a whisper to "${to}" reaches every player (${hit[0].what} is controlled by all): ${text.slice(0, 120)}`);
    return { to, body, recipients: hit[0].players };
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
      this.checkState('after a timer');
      this.drain();
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
    if (type === 'graphic' && /^status_/.test(prop)) {
      const tag = prop.slice('status_'.length);
      const found = String(this.data.statusmarkers || '').split(',').find((m) => m.split('@')[0] === tag);
      if (found === undefined) return false;
      return found.includes('@') ? Number(found.split('@')[1]) : true;
    }
    if (Object.prototype.hasOwnProperty.call(this.data, prop)) return this.data[prop];
    if (Object.prototype.hasOwnProperty.call(this.data, `_${prop}`)) return this.data[`_${prop}`];
    if (type === 'player' && prop === 'displayname') return this.data._displayname;
    return undefined;
  }

  set(prop, value) {
    const props = typeof prop === 'object' && prop !== null ? prop : { [prop]: value };
    for (const [k, v] of Object.entries(props)) {
      if (k.startsWith('_') || k === 'id') throw new SandboxCrash(`set(${k}): read-only property`);
      const kind = writableKind(this.data._type, k);
      if (!kind) throw new SandboxCrash(`${this.data._type}.set(${k}): a ${this.data._type} has no such property (API:Objects)`);
      const bad = badValue(kind, v);
      if (bad) throw new SandboxCrash(`${this.data._type}.set(${k}): ${bad}`);
      if (kind === 'page' && v !== false && !(this.emu.get(v) && this.emu.get(v).data._type === 'page')) {
        throw new SandboxCrash(`${this.data._type}.set(${k}): ${JSON.stringify(v)} is no page of this campaign`);
      }
      this.changes.push({ prop: k, before: this.data[k], after: v });
      if (kind === 'status') {
        // status_<tag> edits the token's statusmarkers list, "tag" or "tag@N" (API:Objects,
        // Graphic statusmarkers; libTokenMarkers.js lines 40-47 apply and remove markers this
        // way; TokenMod.js line 1388 writes `dead` without a count).
        const tag = k.slice('status_'.length);
        const list = String(this.data.statusmarkers || '').split(',').filter((m) => m && m.split('@')[0] !== tag);
        if (v !== false) list.push(v === true || tag === 'dead' ? tag : `${tag}@${v}`);
        this.data.statusmarkers = list.join(',');
        continue;
      }
      this.data[k] = v;
      // A bar linked to an attribute follows it, as on the tabletop.
      if (this.data._type === 'attribute' && k === 'current') {
        for (const obj of this.emu.objects.values()) {
          for (const n of [1, 2, 3, 4]) {
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
