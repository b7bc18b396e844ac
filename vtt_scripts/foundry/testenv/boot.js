// Boots the test page like Foundry boots a world: globals first, then the module's
// esmodule from module.json, then the init and ready hooks. The world (tokens,
// settings) is set up by the test through window.__world before ready.
import "./foundry-shim.js";

const params = new URLSearchParams(location.search);
for (const key of ["bridgeUrl", "bridgeToken"]) {
  if (params.has(key)) __world.preset(key, params.get(key));
}
// The status light and macros are made at ready; keep macros out unless asked.
if (!params.has("macros")) __world.preset("macrosInstalled", true);

const manifest = await (await fetch("../module.json")).json();
// ?socket=undeclared: the manifest as it was before it asked for a socket (the server then relays nothing).
if (params.get("socket") === "undeclared") delete manifest.socket;
__world.manifest(manifest);
for (const path of manifest.esmodules) await import(`../${path}`);

// Foundry's order: init (no user, no translations yet), i18nInit (translations), setup, ready.
Hooks.callAll("init");
for (const language of manifest.languages ?? []) if (language.lang === game.i18n.lang) await game.i18n.load(`../${language.path}`);
Hooks.callAll("i18nInit");
__world.login();
Hooks.callAll("setup");
Hooks.callAll("ready");
window.__booted = true;
