'use strict';
// The relay extension's background worker: the one place that holds the bridge token
// and the campaign's relay secret (extension storage), and the one that opens the
// websocket to `fracas serve` (the page and its scripts never can: Chrome's Local
// Network Access and Safari block a page on https://app.roll20.net from ws://127.0.0.1,
// and a page must not hold the token anyway).
//
// The content script in the Roll20 tab only carries chat frames: FRACAS1 frames it sees
// come here (only signed ones are forwarded to the bridge), and the answers go back to
// be typed into the chat box. The popup reads the status and saves the settings.

const { Relay, RELAY_VERSION } = require('./relay');

const SETTINGS = ['url', 'token', 'secret'];
const MAX_CHAT_TEXT = 20000;

/** What to do about a status, in words the GM can act on. */
function diagnose(state) {
  const text = state.status.text || '';
  if (!state.configured) return 'Set the bridge URL and token (fracas serve prints both) and the relay secret (type !fracas relay --secret in Roll20).';
  if (/relay secret/.test(text)) return 'Type !fracas relay --secret in Roll20 chat and paste the secret here.';
  if (/refused the token/.test(text)) return 'The token is wrong: copy the one fracas serve printed (fracas token shows it), then Save.';
  if (/connection closed|connecting|cannot connect/.test(text)) {
    return 'No bridge answers at this URL. Is fracas serve running on this computer? If it is, its log says why it ' +
      `refused us: for "Origin … is not allowed", start it with fracas serve --allow-origin ${state.origin}.`;
  }
  if (!state.tabConnected) return 'Connected to the bridge. Open your game (app.roll20.net/editor) in a tab to relay its requests.';
  return 'Working: requests from the Mod script go to the bridge and the answers come back.';
}

function start(chrome, g) {
  let port = null; // the Roll20 tab's content script
  let status = { text: 'not connected', ok: false };
  const settings = { url: '', token: '', secret: '' };
  const relay = new Relay({
    adapter: {
      post(text) {
        if (!port) throw new Error('no Roll20 tab is open to post the answer in');
        port.postMessage({ type: 'post', text });
      },
      // Hide a verified frame: `ref` is the content script's number for that chat message.
      hide(ref) {
        if (port && Number.isSafeInteger(ref)) port.postMessage({ type: 'hide', ref });
      },
    },
    WebSocket: g.WebSocket,
    setTimeout: (fn, ms) => g.setTimeout(fn, ms),
    clearTimeout: (h) => g.clearTimeout(h),
    setInterval: (fn, ms) => g.setInterval(fn, ms),
    clearInterval: (h) => g.clearInterval(h),
    log: (text) => g.console.log(`[fracas relay] ${text}`),
    onStatus: (text, ok) => { status = { text, ok }; },
  });

  const state = () => ({
    version: RELAY_VERSION, status, url: settings.url, configured: SETTINGS.every((k) => !!settings[k]),
    tabConnected: !!port, stats: Object.assign({}, relay.stats), origin: g.location ? g.location.origin : '',
  });

  chrome.runtime.onConnect.addListener((p) => {
    // Only this extension's content script, in a tab, carries chat.
    if (p.name !== 'fracas-chat' || !p.sender || !p.sender.tab || p.sender.id !== chrome.runtime.id) {
      p.disconnect();
      return;
    }
    port = p;
    p.onMessage.addListener((m) => {
      if (port !== p || !m || m.type !== 'chat' || typeof m.text !== 'string') return;
      relay.onChatMessage(m.text.slice(0, MAX_CHAT_TEXT), Number.isSafeInteger(m.ref) ? m.ref : null);
    });
    p.onDisconnect.addListener(() => { if (port === p) port = null; });
  });

  chrome.runtime.onMessage.addListener((m, sender, reply) => {
    // Settings and status are for the popup (this extension's own page), never a content script.
    const popup = chrome.runtime.getURL('popup.html');
    if (sender.id !== chrome.runtime.id || typeof sender.url !== 'string' || !sender.url.startsWith(popup)) return false;
    if (m && m.type === 'status') {
      const s = state();
      reply(Object.assign(s, { diagnosis: diagnose(s) }));
      return false;
    }
    if (m && m.type === 'configure') {
      const next = {};
      for (const key of SETTINGS) next[key] = typeof m[key] === 'string' ? m[key].trim() : '';
      chrome.storage.local.set(next, () => {
        Object.assign(settings, next);
        relay.connect(settings.url, settings.token, settings.secret);
        const s = state();
        reply(Object.assign(s, { diagnosis: diagnose(s) }));
      });
      return true; // the reply comes after storage
    }
    return false;
  });

  chrome.storage.local.get(SETTINGS, (stored) => {
    for (const key of SETTINGS) settings[key] = typeof stored[key] === 'string' ? stored[key] : '';
    if (SETTINGS.every((k) => settings[k])) relay.connect(settings.url, settings.token, settings.secret);
    else status = { text: 'not connected: open the popup to set the bridge URL, token and relay secret', ok: false };
  });
  return { relay, state };
}

module.exports = { start, diagnose };
