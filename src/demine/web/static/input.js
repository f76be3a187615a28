// Input on the game's board and page: mouse, touch and keys, turned into the game's actions.
//
// Mouse: left opens (on a number: chords), right flags, middle chords; hovering a hinted cell
// shows why. Touch: a tap opens or chords, a long press (its delay is a setting) flags; Flag mode
// swaps the two. With Hints on, a tap on a marked cell shows its reason first, and only a second
// tap on it plays: reading never opens a cell, and a proven mine is flagged, never opened (see
// primary in game.js). Keys: arrows/hjkl move (the reason of a hinted cell is shown as the cursor
// reaches it), Space/Enter open or chord, f flags, ? shows a hint, n starts a new game, r
// restarts; keys on buttons, links and fields do what those do.

import { eventCell } from "./board.js";
import {
  act, chord, exportGame, newGame, play, primary, queue, readCell, redraw, refreshHints, restart,
  share, showHint, tick,
} from "./game.js";
import { replayTo, showReview } from "./review.js";
import { longPressMs } from "./settings.js";
import { $, key, MOVES } from "./util.js";

const SLOP = 10;  // px a finger may drift during a long press

export function flagMode() {
  return $("flag-mode").getAttribute("aria-pressed") === "true";
}

function moveCursor(dr, dc) {
  const v = play.view;
  play.cursor = [
    Math.max(0, Math.min(v.height - 1, play.cursor[0] + dr)),
    Math.max(0, Math.min(v.width - 1, play.cursor[1] + dc)),
  ];
  readCell(play.cursor);  // a hinted cell's reason, as a hover shows it
  redraw();
  const cell = $("board").querySelector(".cell.cursor");
  if (cell) cell.scrollIntoView({ block: "nearest", inline: "nearest" });
}

// The page's own keys (not the cursor's): what the buttons beside the board do.
const COMMANDS = { "?": showHint, n: () => newGame(null), r: restart };

export function playKeys(ev) {
  if (!play.view || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  // keys belong to whatever has focus, unless that is the board or nothing
  if (ev.target !== document.body && !ev.target.closest("#board")) return;
  if (MOVES[ev.key]) {
    ev.preventDefault();
    moveCursor(...MOVES[ev.key]);
  } else if (ev.key === " " || ev.key === "Enter") {
    ev.preventDefault();
    if (!play.replayView) primary(...play.cursor, flagMode());
  } else if ((ev.key === "f" || ev.key === "F") && !play.replayView) {
    act("flag", ...play.cursor);
  } else if (COMMANDS[ev.key]) {
    ev.preventDefault();
    COMMANDS[ev.key]();
  }
}

// A tap or a left click on a cell.
function tap(rc, touch) {
  play.cursor = rc;
  const [r, c] = rc;
  const ch = play.view.rows[r][c];
  const flagging = flagMode();
  const opens = !flagging && (ch === "H" || (ch >= "1" && ch <= "8"));
  if (touch && opens && ch === "H" && play.reading !== key(r, c) && readCell(rc)) return;  // read first
  primary(r, c, flagging);
}

export function setupPlay() {
  const board = $("board");
  let press = null;  // the finger down on the board: {rc, x, y, timer, fired}
  let lastPointer = "mouse";

  board.addEventListener("pointerdown", (ev) => {
    lastPointer = ev.pointerType;
    if (ev.pointerType === "mouse") return;
    const rc = eventCell(ev);
    if (press) clearTimeout(press.timer);
    press = rc && !play.replayView ? { rc, x: ev.clientX, y: ev.clientY, fired: false } : null;
    if (!press) return;
    const p = press;
    p.timer = setTimeout(() => {
      p.fired = true;
      if (navigator.vibrate) navigator.vibrate(20);
      // a long press does what a tap does not: flag (in flag mode: open or chord)
      if (flagMode()) primary(...p.rc, false);
      else act("flag", ...p.rc);
    }, longPressMs());
  });
  const lift = (ev) => {
    if (!press) return;
    if (ev.type === "pointermove" && Math.hypot(ev.clientX - press.x, ev.clientY - press.y) < SLOP) return;
    clearTimeout(press.timer);
    if (ev.type !== "pointerup" && !press.fired) press = null;  // a pan or pinch, not a press
  };
  board.addEventListener("pointermove", lift);
  board.addEventListener("pointerup", lift);
  board.addEventListener("pointercancel", lift);

  board.addEventListener("click", (ev) => {
    const rc = eventCell(ev);
    const touch = lastPointer !== "mouse";
    const p = press;
    press = null;
    if (!rc || play.replayView || !play.view) return;
    if (touch && (!p || p.fired)) return;  // the end of a long press, or of a pan
    if (!touch) board.focus({ preventScroll: true });
    tap(rc, touch);
  });
  board.addEventListener("contextmenu", (ev) => {
    ev.preventDefault();
    if (lastPointer !== "mouse") return;  // a long press: handled above
    const rc = eventCell(ev);
    if (rc && !play.replayView) act("flag", ...rc);
  });
  board.addEventListener("mousedown", (ev) => { if (ev.button === 1) ev.preventDefault(); });
  board.addEventListener("auxclick", (ev) => {
    const rc = eventCell(ev);
    if (ev.button === 1 && rc && !play.replayView && play.view) chord(...rc);
  });
  board.addEventListener("mouseover", (ev) => {
    if (lastPointer === "mouse") readCell(eventCell(ev));
  });

  $("flag-mode").addEventListener("click", () => {
    $("flag-mode").setAttribute("aria-pressed", String(!flagMode()));
  });
  $("new-game").addEventListener("submit", (ev) => newGame(ev));
  $("preset").addEventListener("change", () => { $("custom").hidden = $("preset").value !== "custom"; });
  $("hints-toggle").addEventListener("change", () => queue(refreshHints));
  $("prob-toggle").addEventListener("change", () => queue(refreshHints));
  $("hint-btn").addEventListener("click", showHint);
  $("restart").addEventListener("click", restart);
  $("share").addEventListener("click", share);
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
