'use strict';
// Other scripts hear of the bars and attributes fracas changes, in the manner of
// TokenMod's observers: `Fracas.observe('change', (obj, prev) => …)`, where `prev`
// holds the changed properties' values before the change.

const listeners = { change: [] };

/** Register `fn` for `event` ('change'); returns a function that unregisters it. */
function observe(event, fn) {
  if (!Object.prototype.hasOwnProperty.call(listeners, event)) {
    throw new TypeError(`Fracas.observe: unknown event "${event}" (events: ${Object.keys(listeners).join(', ')})`);
  }
  if (typeof fn !== 'function') throw new TypeError('Fracas.observe: the listener must be a function');
  listeners[event].push(fn);
  return () => {
    const at = listeners[event].indexOf(fn);
    if (at >= 0) listeners[event].splice(at, 1);
  };
}

/** Tell every 'change' listener; one that throws is logged, never stops fracas or the others. */
function changed(obj, prev, log) {
  for (const fn of listeners.change.slice()) {
    try {
      fn(obj, prev);
    } catch (err) {
      if (typeof log === 'function') log(`a Fracas.observe('change') listener failed: ${err && err.message}`);
    }
  }
}

/**
 * Set `prop` of a Roll20 object the way the table expects: attributes through
 * setWithWorker (sheet workers hear it), then the observers.
 */
function setProp(obj, prop, value, log) {
  const prev = { [prop]: obj.get(prop) };
  if (obj.get('_type') === 'attribute' && typeof obj.setWithWorker === 'function') obj.setWithWorker({ [prop]: value });
  else obj.set(prop, value);
  changed(obj, prev, log);
}

module.exports = { observe, changed, setProp };
