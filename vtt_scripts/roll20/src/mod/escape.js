'use strict';
// Making text safe for Roll20 chat. Roll20 expands `@{…}` (attributes), `%{…}`
// (abilities), `[[…]]` (inline rolls) and `{{…}}` (roll template fields) in what a
// script sends, and renders HTML. Anything that came from a user (token names,
// ids, arguments) goes through `text()`, which turns every such character into an
// HTML entity: it reads the same, and nothing in it runs.

const ENTITIES = {
  '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
  '@': '&#64;', '%': '&#37;', '{': '&#123;', '}': '&#125;', '[': '&#91;', ']': '&#93;',
  '|': '&#124;', '*': '&#42;', '`': '&#96;', '\n': '<br>',
};

/** User-supplied text, safe to put anywhere in a chat message or roll template. */
function text(value) {
  return String(value === undefined || value === null ? '' : value).replace(/[&<>"'@%{}[\]|*`\n]/g, (c) => ENTITIES[c]);
}

/** A command for an API button: `[label](!fracas …)`, with the command's own text escaped. */
function button(label, command) {
  // Inside a button link Roll20 reads ')' as the end; entities keep it literal.
  const safeCommand = String(command).replace(/[&<>"'@%{}[\]|*`()]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `[${text(label)}](${safeCommand})`;
}

/** Whether a finished message still holds a sequence Roll20 would expand (used by tests). */
function hasExpansion(message) {
  return /@\{|%\{|\[\[|\]\]|&\{(?!template:)/.test(message);
}

module.exports = { text, button, hasExpansion };
