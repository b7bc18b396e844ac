'use strict';
// The Mod script: `!fracas …` commands in, cards and token changes out.
// It talks to Roll20 only through `edge` (edge.js), and never lets an error out
// of a chat handler: a mistake is whispered back, a bug is logged and reported.

const args = require('./args');
const bigjson = require('../bigjson');
const store = require('./store');
const help = require('./help');
const cards = require('./cards');
const esc = require('./escape');
const { UsageError, SheetError } = require('./usage');
const { RequestError } = require('../errors');
const { applyOptions } = require('./config');
const { revert } = require('./apply');

const { attackCommand } = require('./attack');
const { oddsCommand } = require('./odds');
const { initCommand } = require('./init');
const { mobCommand } = require('./mob');
const { roundCommand } = require('./round');
const { forecastCommand } = require('./forecast');
const { competeCommand, impaleCommand } = require('./specials');
const { counterspellCommand } = require('./counterspell');
const relaylink = require('./relaylink');
const bridgekinds = require('./bridgekinds');
const { DAMAGE_TYPES } = require('../facts');

// An API button of this script (esc.button writes them): `[label](!fracas …)`.
const GM_BUTTON = /\[[^\]]*\]\(!fracas[^)]*\)/g;

// Reruns of one command while Beacon sheet items are fetched (each fetches all a sheet needs).
const MAX_SHEET_ROUNDS = 4;

// `player: true`: players may use it too (attack checks that they control the attacker).
const COMMANDS = {
  attack: { run: (app, msg, cmd) => attackCommand(app, msg, cmd), player: true },
  odds: { run: (app, msg, cmd) => oddsCommand(app, msg, cmd), player: true },
  compete: { run: (app, msg, cmd) => competeCommand(app, msg, cmd), player: true },
  counterspell: { run: (app, msg, cmd) => counterspellCommand(app, msg, cmd), player: true },
  impale: { run: (app, msg, cmd) => impaleCommand(app, msg, cmd), player: true },
  init: { run: (app, msg, cmd) => initCommand(app, msg, cmd) },
  mob: { run: (app, msg, cmd) => mobCommand(app, msg, cmd) },
  round: { run: (app, msg, cmd) => roundCommand(app, msg, cmd) },
  // The GM's alone: a forecast names hidden creatures; the GM may share its players' card.
  forecast: {
    run: (app, msg, cmd) => forecastCommand(app, msg, cmd),
    refused: '!fracas forecast is for the GM: the GM sees the forecast and may share its card with the players',
  },
  undo: { run: (app, msg, cmd) => app.undoCommand(msg, cmd) },
  config: { run: (app, msg, cmd) => app.configCommand(msg, cmd) },
  help: { run: (app, msg) => app.helpCommand(msg), player: true },
  request: { run: (app, msg, cmd) => app.requestCommand(msg, cmd) },
  relay: { run: (app, msg, cmd) => relaylink.statusCommand(app, msg, cmd) },
  resend: { run: (app, msg, cmd) => relaylink.resendCommand(app, msg, cmd) },
  journal: { run: (app, msg, cmd) => relaylink.journalCommand(app, msg, cmd, 'journal.get') },
  replay: { run: (app, msg, cmd) => relaylink.journalCommand(app, msg, cmd, 'journal.replay') },
};
// The kinds the bridge rolls for this script (save, touch, drop, lock, throw, slam: bridgekinds.js KINDS), one
// command each; players may use them with tokens they control (each kind checks its acting token).
for (const kind of Object.keys(bridgekinds.KINDS)) {
  COMMANDS[kind] = { run: (app, msg, cmd) => bridgekinds.kindCommand(app, msg, cmd, kind), player: true };
}

class App {
  constructor(edge) {
    this.edge = edge;
    this.loaded = false;
    this.timers = new Map();
  }

  /** Register with Roll20. */
  start() {
    this.edge.onReady(() => this.guard(null, () => this.ready()));
    this.edge.onChat((msg) => this.onChat(msg));
  }

  ready() {
    this.ensureLoaded();
    this.edge.log(`fracas ${help.VERSION} ready (state version ${store.SCHEMA_VERSION})`);
    relaylink.secretOf(this);
    if (!this.s().relay.secret_shown) relaylink.showSecret(this);
    const pending = Object.keys(this.s().relay.pending);
    if (pending.length) {
      this.whisper('gm', cards.notice('fracas', [
        `${pending.length} relay request${pending.length === 1 ? '' : 's'} were waiting when the sandbox restarted: ` +
        pending.map((id) => esc.button(`resend ${id}`, `!fracas resend ${id}`)).join(' '),
      ]));
    }
  }

  ensureLoaded() {
    if (this.loaded) return;
    const notes = store.load(this.edge.state());
    notes.push(...require('./validate').validate(this.s()));
    this.loaded = true;
    for (const note of notes) {
      this.edge.log(note);
      this.whisper('gm', cards.notice('fracas', [esc.text(note)]));
    }
    help.ensureHandout(this.edge, this.s());
  }

  /** The script's state (current version). */
  s() {
    return this.edge.state().fracas;
  }

  whisper(playerId, html, options = { noarchive: true }) {
    this.edge.whisper(playerId, html, options);
  }

  error(msg, text) {
    this.whisper(msg ? msg.playerid : 'gm', cards.notice('fracas: that did not work', [esc.text(text)], 'error'));
  }

  /** Run `fn`; whisper what went wrong instead of letting it crash the sandbox. */
  guard(msg, fn) {
    try {
      return fn();
    } catch (err) {
      const actor = (msg && msg.fracasActor) || msg;
      if (err instanceof SheetError && actor && !this.isGM(actor) && !(err.token &&
        require('./attack').controls(this.edge, actor.playerid, err.token))) {
        // A sheet the player does not control: its values are the GM's.
        const { tokenName } = require('./sheet');
        const whose = !err.token ? 'a token' : err.token.get('layer') === 'gmlayer' ? 'a hidden creature' : tokenName(this.edge, err.token);
        this.error(actor, `${whose}'s sheet has a value fracas cannot use; ` +
          'the GM has been told. Nothing was rolled');
        this.error(null, err.message);
      } else if (err instanceof UsageError) this.error(actor, err.message);
      else if (err instanceof RequestError) this.error(actor, this.explain(err, actor && actor.fracasNames));
      else {
        this.edge.log(`internal error: ${err && err.stack ? err.stack : err}`);
        this.error(msg, `fracas hit an internal error (${err && err.message ? err.message : err}); ` +
          'the details are in the Mod script console. Nothing was changed after it.');
      }
      return undefined;
    }
  }

  /** An engine error in table words: strike numbers and token names instead of JSON paths. */
  explain(err, names) {
    let text = err.message;
    text = text.replace(/\$\.strikes\[(\d+)\]/g, (m, i) => `strike ${Number(i) + 1}`);
    if (names) {
      text = text.replace(/\$\.targets(?:\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\]|\\.)*)'\])/g, (m, a, b) => {
        const id = a !== undefined ? a : b.replace(/\\(.)/g, '$1');
        return names[id] ? `target ${names[id]}` : m;
      });
      for (const id of Object.keys(names)) text = text.split(`'${id}'`).join(names[id]);
    }
    return text.replace(/\$\.attacker/g, 'the attacker').replace(/^\$: /, '');
  }

  onChat(msg) {
    if (!msg || msg.type !== 'api' || typeof msg.content !== 'string') return;
    if (this.edge.clearSheetItems) this.edge.clearSheetItems();
    this.runChat(msg, 0);
  }

  /**
   * Run a chat command. A Beacon sheet's fields are sheet items, read asynchronously:
   * when the command needs some not fetched yet, they (and the sheet's other fields fracas
   * reads) are fetched and the command runs again, before it has rolled or changed anything.
   */
  runChat(msg, round) {
    let missing = null;
    this.guard(msg, () => {
      try {
        this.chatCommand(msg);
      } catch (err) {
        if (this.edge.NeedSheetItems && err instanceof this.edge.NeedSheetItems && round < MAX_SHEET_ROUNDS) {
          missing = err;
          return;
        }
        if (this.edge.NeedSheetItems && err instanceof this.edge.NeedSheetItems) {
          throw new UsageError('the character sheets did not give the fields this command needs; nothing was rolled');
        }
        throw err;
      }
    });
    if (!missing) return;
    const config = this.s().config;
    const names = Object.values(config.attrs).filter((n) => n !== config.attrs.ac_prefix)
      .concat(DAMAGE_TYPES.map((t) => config.attrs.ac_prefix + t));
    for (const characterId of new Set(missing.items.map(([c]) => c))) this.edge.wantSheetItems(characterId, names);
    const fetched = this.edge.fetchSheetItems();
    if (!fetched) return;
    fetched.then(() => this.runChat(msg, round + 1), (err) => this.guard(msg, () => { throw err; }));
  }

  chatCommand(msg) {
    if (msg.content.startsWith('!fracas-relay')) {
      this.ensureLoaded();
      relaylink.incoming(this, msg);
      return;
    }
    const content = args.expandInlineRolls(msg.content, msg.inlinerolls);
    const cmd = args.parse(content, '!fracas');
    if (!cmd) return;
    this.ensureLoaded();
    const name = cmd.sub || 'help';
    const command = Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name] : null;
    if (!command) throw new UsageError(`unknown command "${cmd.sub}": try !fracas help`);
    const actor = this.actor(msg, cmd);
    msg.fracasActor = actor; // errors go to whoever the command acts for
    // `--help` on any command (TokenMod and GroupCheck take it): that command's help, nothing run.
    if (cmd.options.some((o) => o.name === 'help') || (cmd.positional[0] || '').toLowerCase() === '--help') {
      this.whisper(actor.playerid, help.commandHelp(this.s().config, name));
      return;
    }
    if (!actor.fracasGM && !command.player) {
      throw new UsageError((command.refused || `!fracas ${name} is for the GM`) + (msg.playerid === 'API'
        ? ' (it came from another Mod script: the GM can trust those with !fracas config --trust-scripts on)' : ''));
    }
    command.run(this, actor, cmd);
  }

  /**
   * Who a command acts for (the trust model, README "Who may do what"). A player's own
   * message acts for that player, a GM's for the GM. A message another Mod script sent
   * (playerid 'API', e.g. ScriptCards re-sending a player's text) is NOT the GM's: it acts
   * for the player named with `--api-as <playerid>` (TokenMod's convention), or for nobody
   * (a player who controls no token); only `!fracas config --trust-scripts on` lets such a
   * message act as the GM. Returns a copy of `msg` with `playerid` the acting player and
   * `fracasGM` whether it has the GM's rights; `--api-as` is taken out of `cmd.options`.
   */
  actor(msg, cmd) {
    const named = cmd.options.filter((o) => o.name === 'api-as');
    cmd.options = cmd.options.filter((o) => o.name !== 'api-as');
    const out = Object.assign({}, msg);
    if (msg.playerid !== 'API') {
      if (named.length) throw new UsageError('--api-as is for commands other Mod scripts send (TokenMod\'s convention)');
      out.fracasGM = this.edge.isGM(msg.playerid);
      return out;
    }
    const trusted = !!this.s().config.trust_scripts;
    if (!named.length) {
      out.fracasGM = trusted;
      return out;
    }
    if (named.length > 1 || named[0].values.length !== 1) throw new UsageError('--api-as takes one player id');
    const id = named[0].values[0];
    if (!this.edge.isPlayer(id)) throw new UsageError(`--api-as: "${id}" is not a player of this game`);
    out.playerid = id;
    out.viaScript = true;
    // A script's claim that the GM sent it counts only when the GM trusts scripts.
    out.fracasGM = trusted && this.edge.isGM(id);
    return out;
  }

  /** Whether a command (its `msg`, as actor() made it) has the GM's rights. */
  isGM(msg) {
    return !!(msg && msg.fracasGM);
  }

  /** A fresh 53-bit seed from Roll20's dice (randomInteger), exact in JSON and in Python. */
  newSeed() {
    let seed = this.edge.randomInteger(32) - 1; // 5 bits
    for (let i = 0; i < 3; i++) seed = seed * 65536 + (this.edge.randomInteger(65536) - 1);
    if (!Number.isSafeInteger(seed) || seed < 0) throw new Error('randomInteger gave an unusable value');
    return seed;
  }

  /** A request id unique across campaigns sharing one bridge journal. */
  newId(prefix) {
    const s = this.s();
    s.relay.counter = (Number(s.relay.counter) || 0) + 1;
    let tag = '';
    for (let i = 0; i < 6; i++) tag += '0123456789abcdefghijklmnopqrstuvwxyz'[this.edge.randomInteger(36) - 1];
    return `${prefix}-${tag}-${s.relay.counter}`;
  }

  /** Where a card goes: public, or whispered to the GM and the player who asked. */
  /**
   * Post a card: public, or whispered to the GM and the player who asked. `gmCard`, when
   * given, is the GM's version (names a players' card hides); `card` is what players see.
   */
  postCard(msg, card, whisper, gmCard = card) {
    // A card's buttons ([request], [undo], …) run GM commands: they go only to the GM. Beside a
    // public card the GM gets ONE whispered card, and only when the public one leaves something
    // out: the rows that differ (real names, Body) and the buttons, under the card's title
    // (ScriptCards' model: its GM-only lines go out as one whispered card beside the public one,
    // scriptcards.js lines 1031-1044 and 1142-1147). A roll template card cannot be shown in
    // part, so the GM's rows cannot ride on the public message itself.
    const bare = card.replace(GM_BUTTON, '').replace(/ +(?=\}\})/g, '');
    if (!whisper && this.s().config.output === 'public') {
      this.edge.send(bare);
      const companion = cards.gmCompanion(bare, gmCard);
      if (companion) this.edge.whisper('gm', companion);
      return;
    }
    this.edge.whisper('gm', gmCard);
    if (msg && msg.playerid && !this.edge.isGM(msg.playerid) && msg.playerid !== 'API') this.edge.whisper(msg.playerid, bare);
  }

  /**
   * `!fracas undo ID` (a card's button): take back that card's changes, by delta, per target
   * (apply.revert); `!fracas undo` alone takes back the newest card not undone yet.
   */
  undoCommand(msg, cmd = { positional: [], options: [] }) {
    const s = this.s();
    if (cmd.options.length || cmd.positional.length > 1) throw new UsageError('!fracas undo takes the id of a card (its undo button gives it), or nothing');
    const id = cmd.positional[0];
    let entry;
    if (id !== undefined) {
      entry = s.undo.find((e) => e && e.id === id);
      if (!entry) {
        throw new UsageError(`no card "${id}" to undo: only the last ${store.UNDO_LIMIT} cards that changed something can be undone`);
      }
      if (entry.undone) throw new UsageError(`${entry.label} (${id}) was already undone`);
    } else {
      entry = s.undo.slice().reverse().find((e) => e && !e.undone);
      if (!entry) throw new UsageError('nothing to undo');
    }
    const report = revert(this.edge, entry);
    entry.undone = true;
    const left = s.undo.filter((e) => e && !e.undone).length;
    this.whisper(msg.playerid, cards.notice('fracas: undone', [
      `${esc.text(entry.label)}: ${report.restored} change${report.restored === 1 ? '' : 's'} put back.`,
      ...report.notes.map(esc.text),
      left ? `${left} other card${left === 1 ? '' : 's'} can be undone.` : '',
    ].filter(Boolean)));
  }

  configCommand(msg, cmd) {
    const s = this.s();
    if (cmd.positional.length) throw new UsageError(`!fracas config takes --options, not "${cmd.positional.join(' ')}"`);
    const lines = [];
    if (cmd.options.length) {
      const changes = applyOptions(s.config, cmd.options, this.edge.tokenMarkers());
      lines.push(...changes.map((c) => `✓ ${esc.text(c)}`));
      s.help_version = null; // the help shows attribute names: write it again
      help.ensureHandout(this.edge, s);
    }
    const c = s.config;
    lines.push(
      `Body bar: ${c.bar} · minimum ${c.min}${c.below_min ? ' (damage may go below)' : ''} · cards: ${c.output} · ` +
      `players may attack: ${c.players_attack ? 'yes' : 'no'}`,
      `players may choose the dice (--seed, --rolls): ${c.players_seed ? 'yes' : 'no'}`,
      `players may target tokens off the token layer: ${c.players_any_layer ? 'yes' : 'no'}`,
      `players may give their own numbers (strike options, --ac, --target-FIELD, --cover): ${c.players_numbers ? 'yes' : 'no'}`,
      `commands other Mod scripts send act as the GM: ${c.trust_scripts ? 'yes' : 'no (they act for the player named with --api-as)'}`,
      `public cards show NPCs' Body: ${c.show_npc_body ? 'yes' : 'no'}`,
      `defense rolls (ER-22): ${c.defense_rolls ? "players roll against the GM's creatures" : 'off'}`,
      `attributes: ${esc.text(Object.keys(c.attrs).map((k) => `${k}=${c.attrs[k]}`).join(', '))}`,
      `markers: ${Object.keys(c.markers).length ? esc.text(Object.keys(c.markers).map((k) => `${k}=${c.markers[k]}`).join(', ')) : 'condition names'}`,
      `relay: ${c.relay_chunk} characters per frame, ${c.relay_timeout} s timeout`,
    );
    this.whisper(msg.playerid, cards.notice('fracas settings', lines));
  }

  helpCommand(msg) {
    help.ensureHandout(this.edge, this.s());
    this.whisper(msg.playerid, help.helpHtml(this.s().config));
  }

  requestCommand(msg, cmd) {
    const id = cmd.positional[0];
    if (!id) throw new UsageError('!fracas request needs the id shown on the card');
    const entry = this.s().log.find((e) => e.id === id);
    if (!entry) throw new UsageError(`no attack "${id}" in the last ${store.LOG_LIMIT} kept`);
    let seed = entry.seed;
    if (typeof seed === 'string' && typeof BigInt === 'function') seed = BigInt(seed);
    const record = Object.assign({}, entry.request, { seed });
    this.whisper(msg.playerid, cards.notice(`fracas request ${id}`, [
      'Save as a .json file and run: fracas replay FILE',
      `<div style="font-family:monospace;white-space:pre-wrap;word-break:break-all">${esc.text(bigjson.stringify(record, 1))}</div>`,
    ]));
  }
}

module.exports = { App, COMMANDS };
