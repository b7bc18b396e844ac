'use strict';
// A mistake in a command: the script whispers its message back and changes nothing.
class UsageError extends Error {}

/**
 * A value on a token's sheet that fracas cannot use. The message quotes the value: it goes
 * whole to the GM and to a player who controls the token; another player is told only
 * whose sheet it is (a target's sheet is the GM's business).
 */
class SheetError extends UsageError {
  constructor(message, token) {
    super(message);
    this.token = token;
  }
}

/** On/off words, as TokenMod reads them. */
function onOff(value, what) {
  const v = String(value === undefined ? '' : value).toLowerCase();
  if (['on', 'yes', 'true', '1'].includes(v)) return true;
  if (['off', 'no', 'false', '0'].includes(v)) return false;
  throw new UsageError(`${what} takes on or off, not "${value === undefined ? '' : value}"`);
}

/** A whole number in [low, high] from a command argument. */
function integer(value, what, low, high) {
  const text = String(value === undefined ? '' : value).trim();
  if (!/^[+-]?\d{1,9}$/.test(text)) throw new UsageError(`${what} takes a whole number, not "${text}"`);
  const n = Number(text);
  if (n < low || n > high) throw new UsageError(`${what} must be ${low} to ${high}, not ${n}`);
  return n;
}

module.exports = { UsageError, SheetError, onOff, integer };
