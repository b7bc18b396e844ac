// What the module tells Foundry's published types (fvtt-types, v13) about itself.
// Its code runs from the "init" hook on and reads game.user only once a user is logged
// in, so it is checked as code that runs in a ready game.
import "@league-of-foundry-developers/foundry-vtt-types/lenient";

declare global {
  /** The module's settings (settings.js registers them; the values' types). */
  interface SettingConfig {
    "fracas.bridgeUrl": string;
    "fracas.bridgeToken": string;
    "fracas.chatVisibility": string;
    "fracas.applyDamage": boolean;
    "fracas.applyConditions": boolean;
    "fracas.damageThroughSystem": boolean;
    "fracas.markDefeated": boolean;
    "fracas.defenseRolls": boolean;
    "fracas.playerFreeForm": boolean;
    "fracas.playerMobs": boolean;
    "fracas.ruleset": string;
    "fracas.floorBodyAtZero": boolean;
    "fracas.conditionsFromStatuses": boolean;
    "fracas.forecastTokens": string;
    "fracas.forecastNeutral": string;
    "fracas.forecastRuns": number;
    "fracas.requestTimeoutSeconds": number;
    "fracas.heartbeatSeconds": number;
    "fracas.pathAc": string;
    "fracas.pathBody": string;
    "fracas.pathBodyTemp": string;
    "fracas.pathBodyMax": string;
    "fracas.pathStrength": string;
    "fracas.pathAgility": string;
    "fracas.pathStrengthMod": string;
    "fracas.pathAgilityMod": string;
    "fracas.pathSize": string;
    "fracas.pathResistant": string;
    "fracas.pathVulnerable": string;
    "fracas.pathImmune": string;
    "fracas.pathSaveBonus": string;
    "fracas.pathInitiativeBonus": string;
    "fracas.pathSpeed": string;
    "fracas.lastStrike": object;
    "fracas.lastBridged": object;
    "fracas.macrosInstalled": boolean;
  }

  /** The module's flags on Foundry's documents (fvtt-types reads a document's flags from here). */
  interface FlagConfig {
    ChatMessage: {
      fracas: {
        /** "ledger" on a card's GM-only ledger of Body values; a card's kind otherwise */
        kind?: string;
        /** a ledger's Body changes (before and after, per target) */
        changes?: { name: string; before?: number; after?: number; targets?: string[] }[];
        /** the targets a card applied damage to */
        targets?: { id: string }[];
        /** the id of a card's ledger message */
        ledger?: string;
        requestId?: string;
        total?: number | null;
        /** the rest of a card's flags (card.js's CardFlags) */
        [key: string]: unknown;
      };
    };
    Macro: {
      fracas: { macro?: string };
    };
  }
}

export {};
