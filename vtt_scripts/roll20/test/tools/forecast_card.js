#!/usr/bin/env node
'use strict';
// The picture of `!fracas forecast`'s cards in the READMEs (docs/images/roll20-forecast.png):
//
//   FRACAS_PYTHON=.venv/bin/python node vtt_scripts/roll20/test/tools/forecast_card.js [OUT.png]
//
// A table in the emulated sandbox with the built fracas.js (the crypt stair of
// examples/scenarios/er-skeleton-horde.json on a Roll20 page: three adventurers, five skeletons, a
// ghoul whose nameplate players do not see, a bone priest hidden on the GM layer); the GM
// runs `!fracas forecast --vary` on a skeleton; the engine answers the request the Mod sent
// (fracas.forecast, what the bridge's fight.forecast answers); then the GM shares the card. The
// GM's card and the players' card, exactly as the Mod script sent them, are drawn by headless
// Chromium (playwright-core) side by side in a chat column of Roll20's width. The only thing
// added is the look of the API buttons: Roll20 draws `[label](!command)` as a pink button.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const H = require('../helpers');
const { Emulator } = require('../emulator');
const { relayRequests, relayAnswer } = require('../world');

const OUT = path.resolve(process.argv[2] || path.join(H.REPO_ROOT, 'docs', 'images', 'roll20-forecast.png'));
const CHROMIUM = process.env.FRACAS_CHROMIUM || '/usr/bin/chromium';

function table() {
  const emu = new Emulator({ script: path.join(H.ROLL20_DIR, 'fracas.js') });
  const players = ['Ann', 'Bo', 'Cy'].map((name) => emu.addPlayer(name));
  const named = { showplayers_name: true };
  const pc = (name, i, attrs, body) => emu.addToken({
    name, represents: emu.addCharacter(name, attrs, { controlledby: players[i].id }).id, controlledby: players[i].id,
    bar1_value: String(body), bar1_max: String(body), ...named,
  });
  pc('Brannoc', 0, { strength: 14, agility: 10, ac: 16, fracas_strikes: '--dice 3 --style bludgeoning --weight 2 --type blunt' }, 48);
  pc('Ysolde', 1, { strength: 16, agility: 12, ac: 17, fracas_strikes: '--dice 4 --style cleaving --weight 2 --type edged' }, 56);
  pc('Pip', 2, { strength: 10, agility: 16, ac: 14, fracas_strikes: '--dice 3 --style archery --type piercing' }, 36);
  const bones = { resistant: 'edged, piercing', vulnerable: 'blunt' };
  const skeleton = emu.addCharacter('Skeleton', { strength: 10, agility: 10, ac: 13, ...bones,
    fracas_strikes: '--dice 2 --style slashing --weight 1 --type edged' });
  const skeletons = [1, 2, 3, 4, 5].map(() => emu.addToken({ name: 'Skeleton', represents: skeleton.id, bar1_value: '9', bar1_max: '9', ...named }));
  const ghoul = emu.addCharacter('Ghoul', { strength: 12, agility: 12, ac: 13, fracas_strikes: '--dice 2 --style savage --type necrotic' });
  emu.addToken({ name: 'Ghoul', represents: ghoul.id, bar1_value: '22', bar1_max: '22' }); // no nameplate for players
  const priest = emu.addCharacter('Bone priest', { strength: 8, agility: 12, ac: 12, fracas_strikes: '--dice 3 --style thrown --type necrotic' });
  emu.addToken({ name: 'Bone priest', represents: priest.id, bar1_value: '20', bar1_max: '20', layer: 'gmlayer' });
  return { emu, skeletons };
}

/** The GM's card and the players' card, as the Mod script sent them. */
function cards() {
  const { emu, skeletons } = table();
  const [req] = relayRequests(emu.chat(emu.gm, `!fracas forecast --vary ${skeletons[0].id} --runs 2000 --seed 43`));
  const run = spawnSync(H.pythonPath(), ['-c', 'import json, sys, fracas; print(json.dumps(fracas.forecast(json.load(sys.stdin)).to_dict()))'],
    { cwd: H.REPO_ROOT, input: JSON.stringify(req.params), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  const [gm] = relayAnswer(emu, { jsonrpc: '2.0', id: req.id, result: JSON.parse(run.stdout) });
  const shared = emu.chat(emu.gm, `!fracas forecast --share ${req.id}`).filter((o) => !o.to);
  return { gm: gm.text, players: shared[0].text };
}

/** Roll20's look of an API button (`[label](!command)`): a pink box with white text. */
function buttons(html) {
  return html.replace(/\[([^\]]*)\]\((![^)]*)\)/g, (m, label) =>
    `<a style="display:inline-block;background-color:#ce0f69;color:#fff;padding:2px 6px;margin:2px 2px 0 0;border-radius:3px;text-decoration:none">${label}</a>`);
}

async function main() {
  const { chromium } = require('playwright-core');
  const { gm, players } = cards();
  const column = (title, html) => `<div style="width:286px;margin-right:16px">` +
    `<div style="font:bold 12px Arial,sans-serif;color:#555;margin:0 0 4px 2px">${title}</div>` +
    `<div style="background:#fff;border:1px solid #ccc;padding:6px"><div style="color:#8a3a9e;font-weight:bold;margin-bottom:2px">fracas:</div>${buttons(html)}</div></div>`;
  const page = `<!DOCTYPE html><html><body style="margin:0;padding:12px;background:#f0f0f0;font-family:'Helvetica Neue',Helvetica,Arial,sans-serif;` +
    `font-size:13px;line-height:18px;color:#222"><div id="cards" style="display:flex;align-items:flex-start;width:max-content">` +
    `${column('The GM\'s card (whispered)', gm)}${column('The players\' card (shared)', players)}</div></body></html>`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless=new', '--no-sandbox', '--disable-gpu'] });
  try {
    const tab = await browser.newPage({ viewport: { width: 700, height: 1200 }, deviceScaleFactor: 2 });
    await tab.setContent(page);
    fs.mkdirSync(path.dirname(OUT), { recursive: true });
    await (await tab.$('#cards')).screenshot({ path: OUT });
  } finally {
    await browser.close();
  }
  process.stdout.write(`wrote ${path.relative(process.cwd(), OUT)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
