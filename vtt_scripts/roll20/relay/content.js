'use strict';
// The relay extension's content script in the Roll20 editor tab: it carries chat only.
// FRACAS1 frames that appear in chat are hidden and handed to the background worker;
// the answers it sends back are typed into the chat box. It never sees the bridge
// token or the relay secret, and the page's own scripts cannot reach this script.

const { createAdapter } = require('./roll20-dom');

function start(win, chrome) {
  const adapter = createAdapter(win);
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
    adapter.hide(element);
    if (port) port.postMessage({ type: 'chat', text });
  });
}

module.exports = { start };
