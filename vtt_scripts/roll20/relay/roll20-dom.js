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
  };
}

module.exports = { createAdapter, SELECTORS };
