'use strict';
// What a command reads of the selection and of a token: its selected graphics, who
// controls a token, a --seed. Below attack.js, mob.js, rowsattack.js and permissions.js,
// which all use them.

const { UsageError } = require('./usage');

/** A seed from a command: 0 … 2**64 - 1, as a Number when exact, else a BigInt. */
function parseSeed(text) {
  if (!/^\d{1,20}$/.test(text)) throw new UsageError(`--seed takes a whole number from 0 to 2^64 - 1, not "${text}"`);
  const n = Number(text);
  if (Number.isSafeInteger(n)) return n;
  if (typeof BigInt !== 'function') throw new UsageError('this sandbox cannot hold seeds past 2^53');
  const big = BigInt(text);
  if (big >= (1n << 64n)) throw new UsageError(`--seed ${text} is past 2^64 - 1`);
  return big;
}


/** Whether `playerId` controls `token` (directly or through its character). */
function controls(edge, playerId, token) {
  const list = (value) => String(value || '').split(',').map((x) => x.trim());
  if (list(token.get('controlledby')).some((p) => p === playerId || p === 'all')) return true;
  const character = edge.getCharacter(token.get('represents'));
  return !!character && list(character.get('controlledby')).some((p) => p === playerId || p === 'all');
}

/** The selected graphics of a message, in selection order. */
function selectedTokens(edge, msg) {
  const out = [];
  for (const sel of Array.isArray(msg.selected) ? msg.selected.slice(0, 500) : []) {
    if (sel && sel._type === 'graphic') {
      const token = edge.getGraphic(sel._id);
      if (token) out.push(token);
    }
  }
  return out;
}

module.exports = { controls, selectedTokens, parseSeed };
