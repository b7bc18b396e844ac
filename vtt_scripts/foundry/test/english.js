// The English strings for the node tests, as Foundry's game.i18n would give them: read
// from lang/en.json (the module itself imports no JSON; Foundry loads the languages
// module.json lists).
import { readFileSync } from "node:fs";

import { useStrings } from "../scripts/i18n.js";

export const ENGLISH = JSON.parse(readFileSync(new URL("../lang/en.json", import.meta.url), "utf8"));
useStrings(ENGLISH);
