'use strict';
// Applying damage to the Body bar, and taking one card's damage back (`!fracas undo ID`).
// Never sets NaN or undefined: a bar that does not hold a number is left alone and the card
// says so. Where Body lives: the bar itself, the attribute the bar links to, or a Beacon
// sheet's computed property the bar links to (written through setComputed, as TokenMod does:
// TokenMod.js lines 3833-3856). Undo is per card and by delta (README "Undo").

const { setProp } = require('./observers');

/** Where a token's Body lives: its linked attribute, its linked computed property, or the bar itself. */
function bodyHolder(edge, config, token) {
  const bar = config.bar;
  const link = token.get(`bar${bar}_link`);
  if (link) {
    const attr = edge.getObject('attribute', link);
    if (attr) return { type: 'attribute', obj: attr, prop: 'current', maxProp: 'max' };
    // A Beacon sheet: the bar links to a computed property by its name (TokenMod.js 3748-3753).
    const computed = edge.computedInfo ? edge.computedInfo(link) : null;
    const characterId = token.get('represents');
    if (computed && characterId) {
      return {
        type: 'computed', obj: token, prop: `bar${bar}_value`, maxProp: `bar${bar}_max`, property: String(link),
        characterId: String(characterId), readonly: computed.readonly !== false,
      };
    }
  }
  return { type: 'graphic', obj: token, prop: `bar${bar}_value`, maxProp: `bar${bar}_max` };
}

function asNumber(value) {
  const text = String(value === undefined || value === null ? '' : value).trim();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** Write `value` where `holder` keeps Body: a computed property through setComputed and its bar. */
function write(edge, holder, value) {
  if (holder.type === 'computed') edge.setComputed(holder.characterId, holder.property, value);
  setProp(holder.obj, holder.prop, value, edge.log);
}

/** What undo calls a changed object in its notes. */
function labelOf(obj, holder) {
  if (holder.type === 'attribute') return `the attribute ${obj.get('name')}`;
  return String(obj.get('name') || obj.id);
}

/**
 * Take `amount` off a token's Body. Returns {before, after, change} when applied, or
 * {skipped: reason}. `change` is what undo needs to put it back (by delta).
 */
function applyDamage(edge, config, token, amount) {
  if (!Number.isInteger(amount) || amount <= 0) return { skipped: 'no damage' };
  const holder = bodyHolder(edge, config, token);
  if (holder.type === 'computed' && holder.readonly) {
    return { skipped: `bar ${config.bar} shows the sheet's read-only "${holder.property}"` };
  }
  const raw = holder.obj.get(holder.prop);
  const before = asNumber(raw);
  if (before === null) {
    return { skipped: `bar ${config.bar} holds "${String(raw === undefined ? '' : raw)}", not a number` };
  }
  let after = before - amount;
  if (!config.below_min) after = Math.max(after, Math.min(config.min, before));
  if (!Number.isFinite(after)) return { skipped: 'the new value would not be a number' };
  write(edge, holder, after);
  const change = { type: holder.type, id: holder.obj.id, prop: holder.prop, before: raw, after, name: labelOf(holder.obj, holder) };
  if (holder.type === 'computed') Object.assign(change, { character: holder.characterId, property: holder.property });
  return { before, after, change };
}

/** A token's marker list (statusmarkers) as entries, "tag" or "tag@N". */
function markerList(token) {
  return String(token.get('statusmarkers') || '').split(',').map((m) => m.trim()).filter(Boolean);
}

/**
 * Put the markers of `conditions` on a token (a failed save's on_fail: asleep, …), each once:
 * `tags` maps a condition to the marker tag that shows it (config --marker; a custom marker's
 * "name::id"). Returns {added: [conditions], change} (change null when all were there), the
 * change being what undo takes off again (only the markers this card put on).
 */
function addMarkers(edge, token, conditions, tags) {
  const list = markerList(token);
  const have = new Set(list.map((m) => m.split('@')[0].toLowerCase()));
  const added = [];
  const addedTags = [];
  for (const condition of conditions) {
    const tag = tags(condition);
    if (have.has(tag.toLowerCase())) continue;
    have.add(tag.toLowerCase());
    added.push(condition);
    addedTags.push(tag);
  }
  if (!addedTags.length) return { added, change: null };
  const before = list.join(',');
  const after = list.concat(addedTags).join(',');
  setProp(token, 'statusmarkers', after, edge.log);
  return { added, change: { type: 'markers', id: token.id, before, after, added: addedTags, name: String(token.get('name') || token.id) } };
}

/** Undo of addMarkers: take off the markers that change put on, if they are still there. */
function revertMarkers(edge, c, notes) {
  const token = edge.getObject('graphic', c.id);
  const what = c.name ? String(c.name) : c.id;
  if (!token) {
    notes.push(`${what} is gone (deleted since): nothing to put back`);
    return 0;
  }
  const gone = new Set((Array.isArray(c.added) ? c.added : []).map((t) => String(t).toLowerCase()));
  const list = markerList(token);
  const kept = list.filter((m) => !gone.has(m.split('@')[0].toLowerCase()));
  if (kept.length !== list.length) setProp(token, 'statusmarkers', kept.join(','), edge.log);
  return 1;
}

/** The object a change was made to, and how to write it back. */
function holderOf(edge, c) {
  const obj = edge.getObject(c.type === 'computed' ? 'graphic' : c.type, c.id);
  if (!obj) return null;
  if (c.type === 'computed') {
    return { type: 'computed', obj, prop: c.prop, maxProp: String(c.prop).replace(/_value$/, '_max'), property: c.property, characterId: c.character };
  }
  return { type: c.type, obj, prop: c.prop, maxProp: c.type === 'attribute' ? 'max' : String(c.prop).replace(/_value$/, '_max') };
}

/**
 * Take back one undo entry (one card), newest change first, by delta: each target gets back
 * what this card took, whatever happened since (healing and later damage stay). Returns
 * {restored, notes} (notes for the GM: a token gone, a bar without a number, a value capped
 * at its maximum, a turn order changed since).
 */
function revert(edge, entry) {
  const notes = [];
  let restored = 0;
  const changes = Array.isArray(entry.changes) ? entry.changes : [];
  for (let i = changes.length - 1; i >= 0; i--) {
    const c = changes[i];
    if (c && c.type === 'markers') {
      restored += revertMarkers(edge, c, notes);
      continue;
    }
    if (!c || c.before === undefined || c.before === null) continue;
    if (c.type === 'turnorder') {
      // The turn order is one list: put it back only while it is as this card left it.
      if (c.after !== undefined && edge.turnOrderText() !== String(c.after)) {
        notes.push('the turn order has changed since this card (a turn passed, or tokens were added): left as it is');
        continue;
      }
      edge.setTurnOrderText(String(c.before));
      restored += 1;
      continue;
    }
    const holder = holderOf(edge, c);
    const what = c.name ? String(c.name) : c.id;
    if (!holder) {
      notes.push(`${what} is gone (deleted since): nothing to put back`);
      continue;
    }
    const nowRaw = holder.obj.get(holder.prop);
    const now = asNumber(nowRaw);
    const before = asNumber(c.before);
    const after = asNumber(c.after);
    if (before === null || after === null) {
      // An entry from an old version (no `after`): only the value before is known.
      write(edge, holder, typeof c.before === 'number' ? c.before : String(c.before));
      restored += 1;
      continue;
    }
    if (now === null) {
      notes.push(`${what} holds "${String(nowRaw === undefined ? '' : nowRaw)}", not a number: ${before - after} not put back`);
      continue;
    }
    let back = now + (before - after);
    const max = asNumber(holder.obj.get(holder.maxProp));
    if (max !== null && before - after > 0 && back > max && now <= max) {
      notes.push(`${what}: ${now} + ${before - after} is past its maximum ${max}; set to ${max}`);
      back = max;
    }
    write(edge, holder, back);
    restored += 1;
  }
  return { restored, notes };
}

module.exports = { applyDamage, addMarkers, revert, bodyHolder, asNumber };
