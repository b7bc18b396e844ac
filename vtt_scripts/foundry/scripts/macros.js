// The ready-made macros. Their commands only call the module's API, so a module
// update changes what they do without touching the macros in a world.

import { KINDS } from "./kinds.js";

export const MACROS = [
  {
    key: "attack",
    name: "fracas: attack",
    label: "FRACAS.Macro.Attack",
    img: "icons/svg/sword.svg",
    command: 'game.modules.get("fracas")?.api?.attackDialog();',
  },
  {
    key: "mob",
    name: "fracas: mob attack",
    label: "FRACAS.Macro.Mob",
    img: "icons/svg/skull.svg",
    command: 'game.modules.get("fracas")?.api?.mobDialog();',
  },
  {
    key: "initiative",
    name: "fracas: initiative",
    label: "FRACAS.Macro.Initiative",
    img: "icons/svg/d20-black.svg",
    command: 'game.modules.get("fracas")?.api?.initiative();',
  },
  {
    key: "forecast",
    name: "fracas: forecast",
    label: "FRACAS.Macro.Forecast",
    // A core icon (foundry-vtt-types 13.x client/config.d.mts l. 1112: CONFIG.controlIcons.combat's default).
    img: "icons/svg/combat.svg",
    command: 'game.modules.get("fracas")?.api?.forecast();',
  },
  // One per kind the bridge rolls (kinds.js: save, touch, drop, lock, throw): its dialog.
  ...Object.values(KINDS).map((entry) => ({
    key: entry.kind,
    name: `fracas: ${entry.kind}`,
    label: `FRACAS.Macro.${entry.kind}`,
    img: entry.icon,
    command: `game.modules.get("fracas")?.api?.bridgedDialog(${JSON.stringify(entry.kind)});`,
  })),
];
