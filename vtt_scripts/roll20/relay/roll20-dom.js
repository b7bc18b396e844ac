'use strict';
// The relay's DOM adapter: every Roll20 page selector and DOM habit lives here,
// so a change to Roll20's chat markup breaks this file only. The test page
// (test/fixtures/relay-page.html) mimics exactly these elements.

const SELECTORS = {
  chatLog: '#textchat .content', // the chat log; messages are appended to it
  message: 'div.message', // one chat message
  input: '#textchat-input textarea', // the chat box
  send: '#textchat-input .btn, #textchat-input button', // its Send button
};

const PANEL_ID = 'fracas-relay-panel';

function createAdapter(win) {
  const doc = win.document;

  function find(selector) {
    return doc.querySelector(selector);
  }

  return {
    /**
     * Call `onMessage(text, element)` for every chat message added from now on.
     * Waits (polling, with a growing pause) until Roll20 has built its chat log.
     */
    watchMessages(onMessage) {
      let observer = null;
      let delay = 200;
      const attach = () => {
        const log = find(SELECTORS.chatLog);
        if (!log) {
          delay = Math.min(delay * 2, 5000);
          win.setTimeout(attach, delay);
          return;
        }
        observer = new win.MutationObserver((mutations) => {
          for (const mutation of mutations) {
            for (const node of mutation.addedNodes) {
              if (node.nodeType !== 1) continue;
              const messages = node.matches(SELECTORS.message) ? [node] : Array.from(node.querySelectorAll(SELECTORS.message));
              for (const el of messages) onMessage(el.textContent || '', el);
            }
          }
        });
        observer.observe(log, { childList: true, subtree: true });
      };
      attach();
      return () => observer && observer.disconnect();
    },

    /** Hide a chat message (a relay frame is not for reading). */
    hide(element) {
      element.style.display = 'none';
    },

    /** Post text as the GM through the chat box, keeping whatever the GM was typing. */
    post(text) {
      const input = find(SELECTORS.input);
      const button = find(SELECTORS.send);
      if (!input || !button) throw new Error('the Roll20 chat box is not on the page');
      const draft = input.value;
      input.value = text;
      input.dispatchEvent(new win.Event('input', { bubbles: true }));
      button.click();
      input.value = draft;
    },

    load(key) {
      try {
        return JSON.parse(win.localStorage.getItem(key) || 'null');
      } catch (err) {
        return null;
      }
    },

    save(key, value) {
      win.localStorage.setItem(key, JSON.stringify(value));
    },

    /** A small status box with the bridge URL and token fields. `onConnect(url, token)`. */
    panel(settings, onConnect, onDisconnect) {
      let box = doc.getElementById(PANEL_ID);
      if (box) box.remove();
      box = doc.createElement('div');
      box.id = PANEL_ID;
      box.style.cssText = 'position:fixed;bottom:8px;left:8px;z-index:100000;background:#fff;border:1px solid #888;' +
        'padding:4px 6px;font:12px sans-serif;color:#222;border-radius:4px;opacity:.9';
      const status = doc.createElement('span');
      status.className = 'fracas-relay-status';
      const url = doc.createElement('input');
      url.placeholder = 'ws://127.0.0.1:8765';
      url.className = 'fracas-relay-url';
      url.value = settings.url || '';
      url.style.width = '160px';
      const token = doc.createElement('input');
      token.type = 'password';
      token.placeholder = 'token';
      token.className = 'fracas-relay-token';
      token.value = settings.token || '';
      token.style.width = '90px';
      const connect = doc.createElement('button');
      connect.textContent = 'connect';
      connect.className = 'fracas-relay-connect';
      connect.addEventListener('click', () => onConnect(url.value.trim(), token.value.trim()));
      const stop = doc.createElement('button');
      stop.textContent = 'stop';
      stop.addEventListener('click', () => onDisconnect());
      const label = doc.createElement('b');
      label.textContent = 'fracas ';
      box.append(label, status, doc.createElement('br'), url, token, connect, stop);
      (doc.body || doc.documentElement).appendChild(box);
      return {
        status(text, ok) {
          status.textContent = text;
          status.style.color = ok ? '#17692e' : '#a12a2a';
        },
      };
    },
  };
}

module.exports = { createAdapter, SELECTORS };
