// Input on the game's board and page: mouse, touch and keys, turned into the game's actions.

import { eventCell } from "./board.js";
import { act, exportGame, hoverWhy, newGame, play, primary, queue, redraw, refreshHints, showHint, tick } from "./game.js";
import { replayTo, showReview } from "./review.js";
import { $, MOVES } from "./util.js";

function moveCursor(dr, dc) {
  const v = play.view;
  play.cursor = [
    Math.max(0, Math.min(v.height - 1, play.cursor[0] + dr)),
    Math.max(0, Math.min(v.width - 1, play.cursor[1] + dc)),
  ];
  redraw();
}

export function playKeys(ev) {
  if (ev.target.closest("input, textarea, select") || !play.view) return;
  if (MOVES[ev.key]) {
    ev.preventDefault();
    moveCursor(...MOVES[ev.key]);
  } else if (ev.key === " ") {
    ev.preventDefault();
    primary(...play.cursor);
  } else if (ev.key === "f" || ev.key === "F") {
    act("flag", ...play.cursor);
  }
}

export function setupPlay() {
  const board = $("board");
  board.addEventListener("click", (ev) => {
    const rc = eventCell(ev);
    if (!rc || play.replayView) return;
    play.cursor = rc;
    primary(...rc);
  });
  board.addEventListener("contextmenu", (ev) => {
    ev.preventDefault();
    const rc = eventCell(ev);
    if (rc && !play.replayView) act("flag", ...rc);
  });
  board.addEventListener("mousedown", (ev) => { if (ev.button === 1) ev.preventDefault(); });
  board.addEventListener("auxclick", (ev) => {
    const rc = eventCell(ev);
    if (ev.button === 1 && rc && !play.replayView) act("chord", ...rc);
  });
  board.addEventListener("mouseover", hoverWhy);
  board.addEventListener("touchstart", hoverWhy, { passive: true });
  $("new-game").addEventListener("submit", newGame);
  $("preset").addEventListener("change", () => { $("custom").hidden = $("preset").value !== "custom"; });
  $("hints-toggle").addEventListener("change", () => queue(refreshHints));
  $("prob-toggle").addEventListener("change", () => queue(refreshHints));
  $("hint-btn").addEventListener("click", showHint);
  $("rp-first").addEventListener("click", () => replayTo(0));
  $("rp-prev").addEventListener("click", () => replayTo(Number($("rp-slider").value) - 1));
  $("rp-next").addEventListener("click", () => replayTo(Number($("rp-slider").value) + 1));
  $("rp-last").addEventListener("click", () => replayTo(play.view.total_moves));
  $("rp-slider").addEventListener("input", () => replayTo(Number($("rp-slider").value)));
  $("export-record").addEventListener("click", () => exportGame("record"));
  $("export-mbf").addEventListener("click", () => exportGame("mbf"));
  $("review-btn").addEventListener("click", showReview);
  setInterval(tick, 250);
}

