import "./english.js";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { describe, test } from "node:test";

import { MACROS } from "../scripts/macros.js";
import { DEFAULT_RULESET, FIELDS, RULESETS } from "../scripts/contract.js";
import { offeredRulesets, rulesetTitle, structFields } from "../scripts/rulesets.js";
import { SETTINGS, TOKEN_MENU, settingChoiceKey } from "../scripts/settings.js";

const root = new URL("../", import.meta.url);
const read = (rel) => readFileSync(new URL(rel, root), "utf8");
/** Every script of the module, its folders too (scripts/actions/…), relative to scripts/. */
const scriptFiles = () => readdirSync(new URL("scripts/", root), { recursive: true }).map(String).filter((f) => f.endsWith(".js")).sort();

describe("module.json", () => {
  const manifest = JSON.parse(read("module.json"));

  test("declares a v12-v13 module whose files exist", () => {
    assert.equal(manifest.id, "fracas");
    assert.equal(manifest.compatibility.minimum, "12");
    assert.equal(manifest.compatibility.verified, "13");
    for (const key of ["title", "description", "version", "authors"]) assert.ok(manifest[key], `${key} is set`);
    for (const file of [...manifest.esmodules, ...manifest.styles]) assert.ok(existsSync(new URL(file, root)), `${file} exists`);
  });
});

describe("the Foundry edge", () => {
  // Foundry globals may be used in scripts/main.js only, so a Foundry update breaks one file.
  const globals = ["game", "canvas", "ui", "Hooks", "Roll", "ChatMessage", "CONFIG", "foundry", "fromUuid", "Macro", "Die"];
  const pattern = new RegExp(`(?<![.\\w"'\`])(${globals.join("|")})\\s*[.(\\[]`);

  test("no other module touches a Foundry global", () => {
    const files = scriptFiles().filter((f) => f !== "main.js");
    assert.ok(files.length >= 8);
    for (const file of files) {
      const code = read(`scripts/${file}`).split("\n").filter((line) => !/^\s*(\/\/|\*)/.test(line)).join("\n")
        .replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '""');
      const hit = code.match(pattern);
      assert.equal(hit, null, `scripts/${file} uses the Foundry global ${hit?.[1]}`);
    }
  });

  test("main.js does", () => {
    assert.match(read("scripts/main.js"), pattern);
  });
});

describe("macros", () => {
  test("each command is valid JavaScript calling the module API", () => {
    // The last seven: the kinds the bridge rolls (kinds.js), each its dialog.
    assert.deepEqual(MACROS.map((m) => m.key), ["attack", "mob", "initiative", "forecast", "save", "touch", "drop", "lock", "throw", "slam",
      "counterspell"]);
    for (const m of MACROS) {
      assert.doesNotThrow(() => new Function("game", m.command), `${m.name} parses`);
      const calls = [];
      const game = { modules: { get: (id) => (id === "fracas" ? { api: new Proxy({}, { get: (_t, name) => () => calls.push(name) }) } : null) } };
      new Function("game", m.command)(game);
      assert.equal(calls.length, 1, `${m.name} calls the API once`);
    }
  });
});

test("settings: unique dot-free keys; the bridge URL is the world's (GM only), the token the GM's browser's behind a restricted menu", () => {
  const keys = SETTINGS.map((s) => s.key);
  assert.equal(new Set(keys).size, keys.length);
  for (const k of keys) assert.doesNotMatch(k, /\./);
  const url = SETTINGS.find((s) => s.key === "bridgeUrl");
  const token = SETTINGS.find((s) => s.key === "bridgeToken");
  // v13 SettingsConfig#_prepareCategoryData shows a world setting to users who may configure
  // settings only, a client setting with config: true to everyone (restricted is read on menus only).
  assert.equal(url.scope, "world");
  assert.deepEqual([token.scope, token.config], ["client", false], "the token is never a field of the settings window");
  assert.ok(SETTINGS.every((s) => !("restricted" in s)), "restricted on a setting is ignored by Foundry: none claims it");
  assert.deepEqual([TOKEN_MENU.setting, TOKEN_MENU.restricted], ["bridgeToken", true]);
});

describe("languages, the Foundry way", () => {
  const manifest = JSON.parse(read("module.json"));
  const files = Object.fromEntries(manifest.languages.map((l) => [l.lang, JSON.parse(read(l.path))]));
  const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

  test("module.json asks for the module socket (a v12/v13 server relays module.fracas only then)", () => {
    assert.equal(manifest.socket, true);
  });

  test("the manifest lists English and German; both have every key, with the same placeholders", () => {
    assert.deepEqual(manifest.languages.map((l) => l.lang), ["en", "de"]);
    assert.deepEqual(Object.keys(files.de).sort(), Object.keys(files.en).sort());
    for (const [key, text] of Object.entries(files.en)) {
      assert.deepEqual(placeholders(files.de[key]), placeholders(text), `${key}: the German has other placeholders`);
      assert.notEqual(files.de[key], "", key);
    }
  });

  test("no script imports JSON (import attributes stop the module from parsing on Firefox ESR 128)", () => {
    for (const file of scriptFiles()) {
      const code = read(`scripts/${file}`).split("\n").filter((line) => !/^\s*(\/\/|\*)/.test(line)).join("\n");
      assert.doesNotMatch(code, /^\s*import\b[^;]*(\bwith\s*\{|\bassert\s*\{|\.json["'])/m, `scripts/${file}`);
    }
  });

  test("every setting shown in the settings window has a name and a hint in each language", () => {
    for (const [lang, strings] of Object.entries(files)) {
      for (const s of SETTINGS.filter((x) => x.config)) {
        for (const part of ["Name", "Hint"]) assert.ok(strings[`FRACAS.Settings.${s.key}.${part}`], `${lang}: ${s.key}.${part}`);
      }
    }
  });
});

describe("the engine's words and texts on the cards go through game.i18n", () => {
  // A card shows the engine's names (methods, styles, damage types, conditions, sides …)
  // and its round log's texts (an end's reason, a flight's why, a morale trigger) through
  // words.js; a field of a result put on a card as it is would be English for everyone.
  const FIELDS = /(?<![\w.?])\w+(?:\??\.\w+)*\??\.(method|style|damageType|damage_type|reason|why|trigger|contest|attribute|winner|first|surprised|source|then|kind)\b/g;
  /** Where reading such a field is not showing it: a model's copy, a test, an argument of word()/logText(), part of a key. */
  const allowed = (line, at) => /^\s*\w+: \w+\.\w+(?:,| }\)+,)?$/.test(line.trim()) || /(?:word\("\w+", |logText\(|words\("\w+", |`FRACAS\.[\w.]*\$\{)$/.test(line.slice(0, at))
    || /^\s*(?:===|!==|\?|&&|\|\||\)\s*(?:\?|&&))/.test(line.slice(at).replace(/^\w+\.\w+/, ""));

  test("chat.js shows no engine field raw", () => {
    const code = read("scripts/chat.js").split("\n").filter((line) => !/^\s*(\/\/|\*|\/\*\*)/.test(line));
    const raw = [];
    for (const line of code) for (const m of line.matchAll(FIELDS)) if (!allowed(line, m.index)) raw.push(line.trim());
    assert.deepEqual(raw, [], "an engine word shown raw: wrap it in word(kind, value) or logText(text)");
  });

  test("the check sees a raw field where there is one", () => {
    const line = "const tags = [s.method, word(\"Style\", s.style)]; text = e.reason;";
    assert.deepEqual([...line.matchAll(FIELDS)].filter((m) => !allowed(line, m.index)).map((m) => m[1]), ["method", "reason"]);
  });

  test("every engine word has its translation in each language", () => {
    const manifest = JSON.parse(read("module.json"));
    return import("../scripts/words.js").then(({ WORD_KINDS }) => {
      for (const l of manifest.languages) {
        const strings = JSON.parse(read(l.path));
        for (const [kind, list] of Object.entries(WORD_KINDS)) {
          for (const w of list) assert.ok(strings[`FRACAS.Engine.${kind}.${w.replace(/[^A-Za-z0-9-]+/g, "_")}`], `${l.lang}: ${kind} ${w}`);
        }
      }
    });
  });
});

describe("user-visible messages go through game.i18n", () => {
  // A message written as a literal (an error's text, a notification, a refusal sent to a
  // player) would be English for everyone: every one goes through t() and lang/*.json.
  const REMAINING = {};
  const PATTERNS = [/new (?:InputError|FracasError|ConnectionError|Error)\(\s*["'`]/g, /notify\(\s*"(?:info|warn|error)"\s*,\s*["'`]/g,
    /notifications\?\.\w+\??\.?\(\s*["'`]/g, /\{\s*error:\s*["'`]/g,
    // an error class's own text, a message's tail or reason, a data path's problem, a "where" phrase, a word for nothing
    /super\(\s*["'`]/g, /\b(?:tail|why|reason|problem|what)\s*[:=]\s*["'`][a-z]/g, /return\s+`(?:strike|target|attackers?) /g,
    /\|\|\s*["'`](?:none|unknown)/g,
    // a count with an English word after it ("3 tokens")
    /`\$\{[^}]*\.length\}\s+[a-z]/g];

  test("no hard-coded message: errors, notifications and refusals all go through t()", () => {
    const found = {};
    for (const file of scriptFiles().filter((f) => !["bigjson.js", "facts.js"].includes(f))) {
      const code = read(`scripts/${file}`);
      const n = PATTERNS.reduce((k, p) => k + [...code.matchAll(p)].length, 0);
      if (n) found[file] = n;
    }
    assert.deepEqual(found, REMAINING, "a message literal: use t() and lang/*.json");
  });

  test("the scan sees a literal message where there is one", () => {
    const sample = 'throw new InputError(`no ${x}`); vtt.notify("warn", "oops"); ui.notifications?.error?.("x"); return { error: "no" };'
      + ' super(`the bridge did not answer`); let tail = "the damage was taken back"; return { problem: `nothing at ${p}` };'
      + ' return `strike ${n}`; return names.join(", ") || "none"; ask(`${attackers.length} tokens`);';
    assert.equal(PATTERNS.reduce((k, p) => k + [...sample.matchAll(p)].length, 0), 10);
    assert.equal(PATTERNS.reduce((k, p) => k + [...'throw new InputError(t("FRACAS.X"))'.matchAll(p)].length, 0), 0);
  });
});

describe("the rulesets come from the engine's contract (contract.js, generated)", () => {
  const files = Object.fromEntries(["en", "de"].map((lang) => [lang, JSON.parse(read(`lang/${lang}.json`))]));

  test("the ruleset setting offers each ruleset whose manifest lists Foundry, by its title's key", () => {
    const setting = SETTINGS.find((s) => s.key === "ruleset");
    assert.equal(setting.default, DEFAULT_RULESET);
    assert.deepEqual(Object.keys(setting.choices), offeredRulesets());
    assert.deepEqual(offeredRulesets(), RULESETS.filter((r) => r.foundry).map((r) => r.name));
    for (const r of RULESETS.filter((x) => x.foundry)) {
      assert.equal(setting.choices[r.name], r.title);
      assert.equal(settingChoiceKey("ruleset", r.name), `FRACAS.Ruleset.Title.${r.name}`);
      for (const [lang, strings] of Object.entries(files)) assert.ok(strings[r.titleKey], `${lang}: ${r.titleKey}`);
    }
    // Other settings keep their own choice keys.
    assert.equal(settingChoiceKey("chatVisibility", "gm"), "FRACAS.Settings.chatVisibility.GM");
  });

  test("a title is the user's language's, else the engine's; an unknown ruleset shows its name", () => {
    const ww = RULESETS.find((r) => r.name === "worldwalker");
    assert.equal(rulesetTitle("worldwalker"), ww.title);
    globalThis.game = { i18n: { has: (k) => k === ww.titleKey, localize: () => "Weltenwanderer" } };
    try {
      assert.equal(rulesetTitle("worldwalker"), "Weltenwanderer");
      assert.equal(rulesetTitle("cartyrion"), "Cartyrion");  // no translation: the engine's title
    } finally {
      delete globalThis.game;
    }
    assert.equal(rulesetTitle("d6-pool"), "d6-pool");
  });

  test("struct fields are the engine's: Enchanted Realms' Strike, another ruleset's Attacker and Target", () => {
    assert.ok(structFields(DEFAULT_RULESET, "Strike").includes("crit_range"));
    assert.deepEqual(structFields("worldwalker", "Attacker"), FIELDS.worldwalker.Attacker);
    assert.ok(structFields("old-school", "Target").includes("ac"));
    assert.equal(structFields("worldwalker", "Nothing"), null);
    assert.equal(structFields("no-such-ruleset", "Attacker"), null);
  });
});
