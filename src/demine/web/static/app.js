// demine's page: the game with hints, and the analysis board. Plain ES modules, no build step.
// Every hint comes from the server, computed from what the player sees.
//
// The modules, by concern:
//   util.js      small helpers ($, cell keys, glyphs, downloads)
//   api.js       the API client
//   settings.js  the settings kept in this browser (restored on reload), theme, palette, cell size
//   board.js     the board view (an ARIA grid of cells drawn from rows and an overlay)
//   game.js      the game's state and moves; dispatches the "demine:*" events other modules hear
//   input.js     mouse, touch and keys on the game
//   review.js    the replay slider and the review of a finished game
//   analysis.js  the analysis board
//   train.js     the Train tab: puzzles, answered at once, rating and streak in IndexedDB
//   stats/       the player's record: records.js (statistics, exports), store.js (IndexedDB or
//                the server), panel.js (the live 3BV/s, the tables, the choice of where it lives)
//   app.js       this file: wires the modules together and starts

import { analysisKeys, setupAnalysis } from "./analysis.js";
import { fitWrap } from "./board.js";
import { loadGame, newGame } from "./game.js";
import { playKeys, setupPlay } from "./input.js";
import { restoreSettings, watchSettings } from "./settings.js";
import { setupStats } from "./stats/panel.js";
import { setupTrain, startTrain } from "./train.js";
import { $ } from "./util.js";

function showTab(name) {
  for (const t of ["play", "analyse", "train"]) {
    $(t).hidden = t !== name;
    $(`tab-${t}`).setAttribute("aria-selected", String(t === name));
  }
  fitWrap($(name === "play" ? "board" : "an-board"));  // its box was measured while hidden
}

// The sticky bars' height (the game's, the Train tab's), for the page's scroll-padding: a cell
// scrolled into view is never left under them.
const bars = document.querySelectorAll("main .hud");
const barsSeen = new ResizeObserver(() => {
  const h = Math.max(0, ...[...bars].map((b) => b.getBoundingClientRect().height));
  document.documentElement.style.setProperty("--sticky-top", `${Math.ceil(h)}px`);
});
for (const b of bars) barsSeen.observe(b);

// The buttons that fold a panel away on a phone (Settings, Board and rules).
for (const b of document.querySelectorAll("button.disclose")) {
  b.addEventListener("click", () => b.setAttribute("aria-expanded", String(b.getAttribute("aria-expanded") !== "true")));
}

restoreSettings();
watchSettings();
setupPlay();
setupAnalysis();
setupStats();
setupTrain();
document.addEventListener("keydown", (ev) => {
  if (!$("play").hidden) playKeys(ev);
  else if (!$("analyse").hidden) analysisKeys(ev);
});
$("tab-play").addEventListener("click", () => showTab("play"));
$("tab-analyse").addEventListener("click", () => showTab("analyse"));
$("tab-train").addEventListener("click", () => { showTab("train"); startTrain(); });

// Each game is a history entry: Back and Forward bring its game back.
window.addEventListener("popstate", () => {
  const id = new URL(location.href).searchParams.get("game");
  if (id) loadGame(id, "none");
});
const gameId = new URL(location.href).searchParams.get("game");
if (gameId) loadGame(gameId); else newGame(null, "replace");
