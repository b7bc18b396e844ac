'use strict';
// Applying damage to the Body bar, and taking it back (`!fracas undo`).
// Never sets NaN or undefined: a bar that does not hold a number is left alone and
// the card says so.

const { setProp } = require('./observers');

/** Where a token's Body lives: its linked attribute, or the bar itself. */
function bodyHolder(edge, config, token) {
  const link = token.get(`bar${config.bar}_link`);
  if (link) {
    const attr = edge.getObject('attribute', link);
    if (attr) return { type: 'attribute', obj: attr, prop: 'current', maxProp: 'max' };
  }
  return { type: 'graphic', obj: token, prop: `bar${config.bar}_value`, maxProp: `bar${config.bar}_max` };
}

function asNumber(value) {
  const text = String(value === undefined || value === null ? '' : value).trim();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/**
 * Take `amount` off a token's Body. Returns {before, after, change} when applied, or
 * {skipped: reason}. `change` is what undo needs to put it back.
 */
function applyDamage(edge, config, token, amount) {
  if (!Number.isInteger(amount) || amount <= 0) return { skipped: 'no damage' };
  const holder = bodyHolder(edge, config, token);
  const raw = holder.obj.get(holder.prop);
  const before = asNumber(raw);
  if (before === null) {
    return { skipped: `bar ${config.bar} holds "${String(raw === undefined ? '' : raw)}", not a number` };
  }
  let after = before - amount;
  if (!config.below_min) after = Math.max(after, Math.min(config.min, before));
  if (!Number.isFinite(after)) return { skipped: 'the new value would not be a number' };
  setProp(holder.obj, holder.prop, after, edge.log);
  return {
    before,
    after,
    change: { type: holder.type, id: holder.obj.id, prop: holder.prop, before: raw, after },
  };
}

/** Put back every change of one undo entry, newest first. Returns notes for the GM. */
function revert(edge, entry) {
  const notes = [];
  let restored = 0;
  const changes = Array.isArray(entry.changes) ? entry.changes : [];
  for (let i = changes.length - 1; i >= 0; i--) {
    const c = changes[i];
    if (!c || c.before === undefined || c.before === null) continue;
    if (c.type === 'turnorder') {
      edge.setTurnOrderText(String(c.before));
      restored += 1;
      continue;
    }
    const obj = edge.getObject(c.type, c.id);
    if (!obj) {
      notes.push(`a ${c.type} changed by this command is gone`);
      continue;
    }
    const now = obj.get(c.prop);
    if (c.after !== undefined && asNumber(now) !== asNumber(c.after)) {
      notes.push(`${c.type === 'graphic' && obj.get('name') ? obj.get('name') : c.id} had changed since ` +
        `(${now} instead of ${c.after}); set back to ${c.before} anyway`);
    }
    setProp(obj, c.prop, typeof c.before === 'number' ? c.before : String(c.before), edge.log);
    restored += 1;
  }
  return { restored, notes };
}

module.exports = { applyDamage, revert, bodyHolder, asNumber };
