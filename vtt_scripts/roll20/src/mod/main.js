'use strict';
// Entry point of the Mod script: wire the app to Roll20's globals.
const { App } = require('./app');
const edge = require('./edge');
const { resolve, rollInitiative, checkMorale } = require('../rulesets');
const { VERSION } = require('./help');

/** Start the script in the Roll20 sandbox. Returns the public API for other scripts. */
function start() {
  const app = new App(edge.fromGlobals());
  app.start();
  return {
    version: VERSION, resolve, rollInitiative, checkMorale, observe: require('./observers').observe,
    // How much work exact odds have done in this sandbox (src/odds.js units; 15 to 390 per µs of CPU).
    stats: () => ({ odds_work: require('../odds').workDone() }),
  };
}

module.exports = { start };
