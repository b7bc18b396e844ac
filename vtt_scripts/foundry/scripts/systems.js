// How damage reaches an actor, chosen by the game system's id (game.system.id), never by
// looking for a method with a likely name: two systems' `applyDamage` take different
// arguments, and calling one with the other's would fail on every hit.
//
//   dnd5e    Actor5e#applyDamage(damages, options): damages is a number (or a list of
//            {value, type}); temporary HP go first. dnd5e documentation, "Actor5e#applyDamage"
//            (https://github.com/foundryvtt/dnd5e/wiki, module/documents/actor/actor.mjs).
//   pf2e     ActorPF2e#applyDamage({damage, token, item?, rollOptions?, skipIWR?, ...}): one
//            object, `token` the TokenDocument hit (pf2e src/module/actor/base.ts,
//            "applyDamage({ damage, token, ... }: ApplyDamageParams)").
//   others   the Body data path set in the settings is written (a generic fallback).

import { t } from "./i18n.js";

/** The systems with an adapter of their own. */
export const SYSTEM_ADAPTERS = ["dnd5e", "pf2e"];

/**
 * The adapter for `systemId`, or null when the Body path is written directly.
 * @param {string|null|undefined} systemId
 * @returns {{id: string, apply: (actor: any, damage: number, token: any) => Promise<unknown>}|null}
 */
export function damageAdapter(systemId) {
  if (systemId === "dnd5e") {
    return { id: "dnd5e", apply: (actor, damage) => actor.applyDamage(damage) };
  }
  if (systemId === "pf2e") {
    return {
      id: "pf2e",
      apply: (actor, damage, token) => {
        if (!token) throw new Error(t("FRACAS.Error.Systems01"));
        return actor.applyDamage({ damage, token });
      },
    };
  }
  return null;
}
