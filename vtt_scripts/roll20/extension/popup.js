'use strict';
// The popup: the bridge URL, token and relay secret (kept in extension storage by the
// background worker, never in the Roll20 page), the link's status and what to do about it.

const $ = (id) => document.getElementById(id);

function show(state) {
  if (!state) return;
  const status = $('status');
  status.textContent = state.status && state.status.text ? state.status.text : '';
  status.className = state.status && state.status.ok ? 'ok' : 'bad';
  $('diagnosis').textContent = state.diagnosis || '';
  $('origin').textContent = state.origin ? `This extension's origin (for fracas serve --allow-origin): ${state.origin}` : '';
  if (state.url && !$('url').value) $('url').value = state.url;
}

function refresh() {
  chrome.runtime.sendMessage({ type: 'status' }, show);
}

$('settings').addEventListener('submit', (event) => {
  event.preventDefault();
  chrome.runtime.sendMessage({
    type: 'configure', url: $('url').value, token: $('token').value, secret: $('secret').value,
  }, (state) => {
    $('token').value = '';
    $('secret').value = '';
    show(state);
  });
});

refresh();
setInterval(refresh, 1000);
