'use strict';
/* global on, sendChat, findObjs, getObj, createObj, playerIsGM, randomInteger, Campaign, state, log, getAttrByName,
   getSheetItem, setComputed */
// The edge: the one file that touches Roll20's Mod (API) globals. Everything else
// talks to the small object `fromGlobals()` returns, so a change in Roll20's API
// breaks this file and not the resolver. The test emulator provides the same
// globals (test/emulator.js).

const SPEAKER = 'fracas';
// Roll20's built-in status markers: the colour dots and `dead` (Roll20/roll20-api-scripts
// libTokenMarkers/libTokenMarkers.js lines 109-117; TokenMod/TokenMod.js lines 1299-1307).
const BUILTIN_MARKERS = ['red', 'blue', 'green', 'brown', 'purple', 'pink', 'yellow', 'dead'];
const { text: escapeText } = require('./escape');
const { whisperTarget } = require('./whisperto');

/**
 * A command read a sheet item the script has not fetched yet (Beacon sheets keep
 * their fields as sheet items, read with the asynchronous getSheetItem). The app
 * fetches every item the command asked for and runs the command again; reading
 * comes before any roll or change, so nothing happens twice.
 */
class NeedSheetItems extends Error {
  constructor(items) {
    super(`sheet items to fetch: ${items.length}`);
    this.items = items;
  }
}

function fromGlobals() {
  const sheetItems = new Map(); // "characterId\u0000name" → value (null: none), for the command being run
  const unreachable = new Set(); // players Roll20 cannot whisper to whom the GM has been told about
  let misses = [];
  return {
    /** Whether this sandbox can read Beacon sheet items. */
    hasSheetItems() {
      return typeof getSheetItem === 'function';
    },

    /** Forget fetched sheet items (a new command reads fresh values). */
    clearSheetItems() {
      sheetItems.clear();
      misses = [];
    },

    /** Ask for more items in the next fetch (the other fields of a sheet that missed one). */
    wantSheetItems(characterId, names) {
      for (const name of names) {
        if (!sheetItems.has(`${characterId}\u0000${name}`) && !misses.some(([c, n]) => c === characterId && n === name)) {
          misses.push([characterId, name]);
        }
      }
    },

    /** Fetch the items the last run missed (a Promise); false when there were none. */
    fetchSheetItems() {
      const wanted = misses;
      misses = [];
      if (!wanted.length) return false;
      return Promise.all(wanted.map(([characterId, name]) => Promise.resolve()
        .then(() => getSheetItem(characterId, name))
        .then((value) => (value === undefined || value === null || value === '' ? null : value), () => null)
        .then((value) => { sheetItems.set(`${characterId}\u0000${name}`, value); })));
    },

    NeedSheetItems,

    /** Run `fn` once the campaign has loaded. */
    onReady(fn) {
      on('ready', fn);
    },

    /** Run `fn(msg)` for every chat message. */
    onChat(fn) {
      on('chat:message', fn);
    },

    /** Send chat as the script; `options.noarchive` keeps it out of the chat archive. */
    send(text, options = {}) {
      sendChat(SPEAKER, text, null, options.noarchive ? { noarchive: true } : undefined);
    },

    /** Whisper to a player by id ('gm' for the GMs). */
    whisper(playerId, html, options = {}) {
      let to = 'gm';
      let body = html;
      const archive = options.noarchive ? { noarchive: true } : undefined;
      if (playerId && playerId !== 'gm' && playerId !== 'API') {
        const player = getObj('player', playerId);
        const name = player ? String(player.get('displayname') || '') : '';
        if (player && !playerIsGM(playerId)) {
          // The `/w` target that reaches this player and nobody else (whisperto.js: the
          // quoted display name, else a unique first word, else a character only they
          // control). When none does, the GM gets it, saying for whom, and is told once why.
          const target = whisperTarget(playerId, name, () => ({
            players: findObjs({ _type: 'player' }).map((p) => ({ id: p.id, name: p.get('displayname') })),
            characters: findObjs({ _type: 'character' }).map((c) => ({ name: c.get('name'), controlledby: c.get('controlledby') })),
          }));
          if (target) to = target.to;
          else {
            const note = `for ${escapeText(name)}`;
            // A roll template must open the message: the note is then a field of it.
            body = html.startsWith('&{template:') ? `${html} {{note=${note}}}` : `<div>(${note})</div>${html}`;
            if (!unreachable.has(playerId)) {
              unreachable.add(playerId);
              sendChat(SPEAKER, `/w gm <div>Roll20 cannot whisper to the player ${escapeText(name)}: a display name with a double quote cannot be quoted in /w, its first word is not unique here, and they control no character of their own with a unique name. Their whispers come to you (marked "for ${escapeText(name)}"). A display name without a double quote, or a character controlled by them alone, fixes it.</div>`, null, archive);
            }
          }
        }
      }
      sendChat(SPEAKER, `/w ${to} ${body}`, null, archive);
    },

    /** Whether a player is a GM. 'API' (another script's message) is no player, so never. */
    isGM(playerId) {
      return playerId !== 'API' && typeof playerIsGM === 'function' && playerIsGM(playerId) === true;
    },

    /** Whether `playerId` names a player of this campaign. */
    isPlayer(playerId) {
      return typeof playerId === 'string' && playerId !== 'API' && !!getObj('player', playerId);
    },

    /** The page a player sees: their own split-party page, else the players' page (API:Objects, Campaign). */
    playerPage(playerId) {
      const campaign = Campaign();
      const own = campaign.get('playerspecificpages');
      if (own && typeof own === 'object' && Object.prototype.hasOwnProperty.call(own, playerId)) return String(own[playerId]);
      return String(campaign.get('playerpageid') || '') || null;
    },

    playerName(playerId) {
      const player = playerId ? getObj('player', playerId) : null;
      return player ? String(player.get('displayname') || '') : '';
    },

    /**
     * The page the GM `playerId` is looking at: their player object's `_lastpage` (the page they
     * last viewed as GM), else the players' page, as GroupInitiative/GroupInitiative.js lines
     * 1900-1905 find the GM's page (roll20-api-scripts .types/index.d.ts line 53: `_lastpage:
     * string`); null when neither names a page.
     */
    gmPage(playerId) {
      const player = playerId ? getObj('player', playerId) : null;
      const last = player ? String(player.get('_lastpage') || '') : '';
      if (last && getObj('page', last)) return last;
      const shown = Campaign().get('playerpageid');
      return typeof shown === 'string' && shown && getObj('page', shown) ? shown : null;
    },

    /**
     * The tokens on page `pageId` (graphics of subtype token; roll20-api-scripts
     * .types/index.d.ts lines 499-503 find a page's graphics with findObjs by `_pageid`).
     */
    pageTokens(pageId) {
      if (typeof pageId !== 'string' || !pageId) return [];
      return findObjs({ _type: 'graphic', _subtype: 'token', _pageid: pageId }) || [];
    },

    getGraphic(id) {
      if (typeof id !== 'string' || !id) return null;
      const obj = getObj('graphic', id);
      return obj || null;
    },

    getCharacter(id) {
      if (typeof id !== 'string' || !id) return null;
      return getObj('character', id) || null;
    },

    /** Any Roll20 object by type and id, or null (for undo). */
    getObject(type, id) {
      if (typeof id !== 'string' || !id) return null;
      return getObj(type, id) || null;
    },

    getAttributeObject(characterId, name) {
      const found = findObjs({ _type: 'attribute', _characterid: characterId, name }, { caseInsensitive: true });
      return found && found.length ? found[0] : null;
    },

    /**
     * An attribute's current value, or null. With `sheetDefault`, a sheet's default
     * value counts when no attribute object exists (getAttrByName; it logs an error
     * in the API console for a name the sheet does not know, so only core fields ask).
     */
    attribute(characterId, name, sheetDefault = false) {
      const obj = this.getAttributeObject(characterId, name);
      if (obj) return obj.get('current');
      if (this.hasSheetItems()) {
        // Beacon: the field may be a sheet item; fetched (asynchronously) before a rerun.
        const key = `${characterId}\u0000${name}`;
        if (sheetItems.has(key)) return sheetItems.get(key);
        misses.push([characterId, name]);
        throw new NeedSheetItems(misses);
      }
      if (sheetDefault && typeof getAttrByName === 'function' && /^[A-Za-z0-9_-]+$/.test(name)) {
        try {
          const value = getAttrByName(characterId, name);
          return value === undefined ? null : value;
        } catch (err) {
          return null;
        }
      }
      return null;
    },

    /**
     * The Beacon computed property `name` as Campaign().computedSummary describes it
     * ({tokenBarValue, readonly}), or null (TokenMod.js lines 1626-1630 read it as a plain
     * property of the campaign object).
     */
    computedInfo(name) {
      const campaign = Campaign();
      const summary = campaign ? campaign.computedSummary : null;
      if (!summary || typeof summary !== 'object' || typeof name !== 'string') return null;
      const info = Object.prototype.hasOwnProperty.call(summary, name) ? summary[name] : null;
      return info && typeof info === 'object' ? info : null;
    },

    /**
     * Write a Beacon computed property (setComputed({characterId, property, args: [value]}), as
     * TokenMod.js lines 3841-3844 do); a rejection is logged, never left unhandled.
     */
    setComputed(characterId, property, value) {
      if (typeof setComputed !== 'function') throw new Error('this sandbox has no setComputed for a Beacon sheet');
      const done = setComputed({ characterId, property, args: [value] });
      if (done && typeof done.then === 'function') done.then(null, (err) => log(`fracas: setComputed ${property} failed: ${err && err.message}`));
    },

    randomInteger(max) {
      return randomInteger(max);
    },

    state() {
      return state;
    },

    turnOrder() {
      const raw = Campaign().get('turnorder');
      if (!raw) return [];
      try {
        const list = JSON.parse(raw);
        return Array.isArray(list) ? list : [];
      } catch (err) {
        return [];
      }
    },

    turnOrderText() {
      return String(Campaign().get('turnorder') || '');
    },

    setTurnOrderText(text) {
      Campaign().set('turnorder', text);
    },

    /**
     * The campaign's token marker tags and names (lower case): Roll20's built-in ones, which
     * every token takes and `_token_markers` does not list (the colour dots and `dead`:
     * libTokenMarkers.js lines 109-117, TokenMod.js lines 1299-1307), then the campaign's
     * from Campaign's _token_markers; null when the sandbox does not say (nothing is checked).
     */
    tokenMarkers() {
      let list;
      try {
        list = JSON.parse(Campaign().get('_token_markers') || 'null');
      } catch (err) {
        return null;
      }
      if (!Array.isArray(list)) return null;
      const out = BUILTIN_MARKERS.slice();
      for (const m of list) {
        if (m && typeof m.tag === 'string') out.push(m.tag.toLowerCase(), m.tag.toLowerCase().split('::')[0]);
        if (m && typeof m.name === 'string') out.push(m.name.toLowerCase());
      }
      return Array.from(new Set(out));
    },

    /**
     * The tag to write on a token for the marker `name` (a condition's marker): a custom
     * marker's full tag "name::id" from Campaign's _token_markers (tokens keep custom markers
     * so: libTokenMarkers.js lines 121-123 read `tag` from that list, TokenMod.js line 1328
     * writes it), else `name` itself (a built-in marker, or one the campaign does not list).
     */
    markerTag(name) {
      let list;
      try {
        list = JSON.parse(Campaign().get('_token_markers') || 'null');
      } catch (err) {
        list = null;
      }
      const want = String(name).toLowerCase();
      for (const m of Array.isArray(list) ? list : []) {
        if (m && typeof m.tag === 'string' && (m.tag.toLowerCase() === want || m.tag.toLowerCase().split('::')[0] === want ||
          (typeof m.name === 'string' && m.name.toLowerCase() === want))) return m.tag;
      }
      return String(name);
    },

    /**
     * Open the turn tracker, if it is closed, on `pageId` (else the players' page). Campaign
     * initiativepage is a page id or false, never true (roll20-api-scripts .types/index.d.ts
     * line 37, `initiativepage: string | false`; GroupInitiative.js lines 1453-1455 and
     * 1900-1907 set a page id). With no page to name, it stays as it is.
     */
    openTurnTracker(pageId) {
      const campaign = Campaign();
      if (campaign.get('initiativepage')) return;
      const page = [pageId, campaign.get('playerpageid')].find((p) => typeof p === 'string' && p && getObj('page', p));
      if (page) campaign.set('initiativepage', page);
    },

    /** Find the handout `name`, creating it (visible to all) when missing. */
    handout(name) {
      const found = findObjs({ _type: 'handout', name });
      if (found && found.length) return found[0];
      return createObj('handout', { name, inplayerjournals: 'all', archived: false });
    },

    log(text) {
      log(`fracas: ${text}`);
    },

    setTimeout(fn, ms) {
      return setTimeout(fn, ms);
    },

    clearTimeout(handle) {
      clearTimeout(handle);
    },

    now() {
      return Date.now();
    },
  };
}

module.exports = { NeedSheetItems, fromGlobals, SPEAKER, BUILTIN_MARKERS };
