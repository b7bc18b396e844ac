'use strict';
// Entry point of the userscript: the relay, the Roll20 DOM adapter and the settings.
const { Relay, RELAY_VERSION } = require('./relay');
const { createAdapter } = require('./roll20-dom');

const SETTINGS_KEY = 'fracas-relay';

/** Start the relay in a browser window; returns its control object (also `window.fracasRelay`). */
function start(win) {
  const adapter = createAdapter(win);
  const settings = Object.assign({ url: '', token: '', chunk: 1800 }, adapter.load(SETTINGS_KEY) || {});
  let panel = null;
  const relay = new Relay({
    adapter,
    WebSocket: win.WebSocket,
    setTimeout: (fn, ms) => win.setTimeout(fn, ms),
    clearTimeout: (h) => win.clearTimeout(h),
    setInterval: (fn, ms) => win.setInterval(fn, ms),
    clearInterval: (h) => win.clearInterval(h),
    chunk: Number(settings.chunk) || 1800,
    log: (text) => win.console.log(`[fracas relay] ${text}`),
    onStatus: (text, ok) => panel && panel.status(text, ok),
  });
  const api = {
    version: RELAY_VERSION,
    relay,
    /** Save the bridge URL and token, and connect. */
    configure(url, token) {
      adapter.save(SETTINGS_KEY, Object.assign({}, settings, { url, token }));
      settings.url = url;
      settings.token = token;
      return relay.connect(url, token);
    },
    stop() {
      relay.disconnect();
    },
  };
  panel = adapter.panel(settings, (url, token) => api.configure(url, token), () => api.stop());
  adapter.watchMessages((text, element) => relay.onChatMessage(text, element));
  if (settings.url && settings.token) relay.connect(settings.url, settings.token);
  else relay.status('not connected: enter the bridge URL and token');
  win.fracasRelay = api;
  return api;
}

module.exports = { start, SETTINGS_KEY };
