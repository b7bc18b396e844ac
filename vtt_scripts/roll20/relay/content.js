'use strict';
// The relay extension's content script in the Roll20 editor tab: it carries chat only.
// Chat messages that look like FRACAS1 frames are handed to the background worker, which
// checks their signature and tells this script which to hide: only verified frames are
// hidden (a player cannot hide a message from the GM by starting it with FRACAS1).
// The answers the worker sends back are typed into the chat box. It never sees the bridge
// token or the relay secret, and the page's own scripts cannot reach this script.

const { createAdapter } = require('./roll20-dom');

const MAX_WAITING = 200; // frames waiting for the worker's verdict

function start(win, chrome) {
  const adapter = createAdapter(win);
  const waiting = new Map(); // ref → chat element, until the worker says to hide it
  let counter = 0;
  let port = null;
  let delay = 500;
  const connect = () => {
    try {
      port = chrome.runtime.connect({ name: 'fracas-chat' });
    } catch (err) {
      return; // the extension was reloaded or removed: this page's script is orphaned
    }
    delay = 500;
    port.onMessage.addListener((m) => {
      if (m && m.type === 'post' && typeof m.text === 'string' && m.text.startsWith('!fracas-relay ')) adapter.post(m.text);
      if (m && m.type === 'hide' && waiting.has(m.ref)) {
        adapter.hide(waiting.get(m.ref));
        waiting.delete(m.ref);
      }
    });
    port.onDisconnect.addListener(() => {
      port = null;
      // The worker sleeps and wakes: connect again (it wakes for us), backing off a little.
      win.setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    });
  };
  connect();
  adapter.watchMessages((text, element) => {
    if (!text.includes('FRACAS1')) return; // other chat stays in the page
    if (!port) return;
    counter += 1;
    waiting.set(counter, element);
    while (waiting.size > MAX_WAITING) waiting.delete(waiting.keys().next().value);
    port.postMessage({ type: 'chat', text, ref: counter });
  });
}

module.exports = { start };
