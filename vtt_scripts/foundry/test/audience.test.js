// Who sees a card (audience.js): the chat roll mode with the world setting, a player's roll
// mode as ChatMessage.applyRollMode would apply it, and Dice So Nice's cap.
import assert from "node:assert/strict";
import { test } from "node:test";

import { capRolls, effectiveRollMode, gmOnly, playerAudience, ROLL_MODES } from "../scripts/audience.js";

test("the roll modes are CONST.DICE_ROLL_MODES' values", () => {
  assert.deepEqual(ROLL_MODES, ["publicroll", "gmroll", "blindroll", "selfroll"]);
});

test("the world setting 'Results in chat: GM' makes a public roll private; blind and self stay", () => {
  assert.equal(effectiveRollMode("publicroll", "public"), "publicroll");
  assert.equal(effectiveRollMode("publicroll", "gm"), "gmroll");
  assert.equal(effectiveRollMode("blindroll", "gm"), "blindroll");
  assert.equal(effectiveRollMode("selfroll", "public"), "selfroll");
  assert.equal(effectiveRollMode("roll", "public"), "publicroll", "anything else counts as public");
  assert.equal(effectiveRollMode(undefined, "gm"), "gmroll");
});

test("GMs only: a blind roll, or the GM's own private or self roll; a player's private roll includes the player", () => {
  assert.equal(gmOnly("blindroll", "player1"), true);
  assert.equal(gmOnly("gmroll"), true);
  assert.equal(gmOnly("selfroll"), true);
  assert.equal(gmOnly("gmroll", "player1"), false);
  assert.equal(gmOnly("publicroll"), false);
});

test("a player's roll mode: the whisper ChatMessage.applyRollMode gives a message of that player's (v13 l. 152-172)", () => {
  const gms = ["gm1", "gm2"];
  assert.deepEqual(playerAudience("publicroll", "p1", gms), { whisper: [], blind: false });
  assert.deepEqual(playerAudience("selfroll", "p1", gms), { whisper: ["p1"], blind: false });
  assert.deepEqual(playerAudience("gmroll", "p1", gms), { whisper: ["gm1", "gm2", "p1"], blind: false });
  assert.deepEqual(playerAudience("blindroll", "p1", gms), { whisper: ["gm1", "gm2"], blind: true });
});

test("Dice So Nice's cap: whole rolls while fewer than maxDiceNumber dice (DiceNotation stops at ++n >= max)", () => {
  assert.deepEqual(capRolls([5, 5, 5], Infinity), { keep: 3, shown: 15, total: 15 });
  assert.deepEqual(capRolls([10, 9, 3], 20), { keep: 2, shown: 19, total: 22 }, "19 dice fit a cap of 20");
  assert.deepEqual(capRolls([10, 10], 20), { keep: 1, shown: 10, total: 20 }, "the 20th die would be dropped");
  assert.deepEqual(capRolls([30], 20), { keep: 0, shown: 0, total: 30 });
});
