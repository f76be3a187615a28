// The page's settings, kept in this browser (localStorage) and restored on a reload: the new
// game's board, rule and no-guess mode, the Hints and Probabilities switches, the cell size, the
// long-press delay, the theme and the palette.

import { fitWrap, setCellSize } from "./board.js";
import { $ } from "./util.js";

const KEY = "demine-settings";
// setting -> [element id, property]
const FIELDS = {
  preset: ["preset", "value"], rule: ["rule", "value"], noGuess: ["no-guess", "value"],
  width: ["cw", "value"], height: ["ch", "value"], mines: ["cm", "value"],
  hints: ["hints-toggle", "checked"], probs: ["prob-toggle", "checked"],
  cellSize: ["cell-size", "value"], longPress: ["long-press", "value"],
  theme: ["theme", "value"], palette: ["palette", "value"],
};

export const touchFirst = window.matchMedia("(pointer: coarse)").matches;

function stored() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "{}") || {};
  } catch {
    return {};  // unreadable or blocked storage: the defaults
  }
}

let sizedByPlayer = false;  // the cell size was chosen (slider or Fit), not the touch default

export function saveSettings() {
  const out = { sizedByPlayer };
  for (const [name, [id, prop]] of Object.entries(FIELDS)) out[name] = $(id)[prop];
  try { localStorage.setItem(KEY, JSON.stringify(out)); } catch { /* storage off: not kept */ }
}

// Puts the stored settings into the page's controls (before the first game is made).
export function restoreSettings() {
  $("cell-size").value = touchFirst ? 40 : 26;  // touch: cells a finger can hit (>= 32 px)
  const s = stored();
  for (const [name, [id, prop]] of Object.entries(FIELDS)) {
    if (s[name] === undefined || (name === "cellSize" && !s.sizedByPlayer)) continue;
    const el = $(id);
    if (el.tagName === "SELECT" && ![...el.options].some((o) => o.value === s[name])) continue;
    el[prop] = s[name];
  }
  sizedByPlayer = Boolean(s.sizedByPlayer);
  $("custom").hidden = $("preset").value !== "custom";
  applyLook();
}

// On a touch screen, until the player picks a size: cells as big as fit the screen's width,
// between 32 and 44 px (a finger's target; a board wider than that pans).
export function touchCellSize(cols, rows) {
  if (!touchFirst || sizedByPlayer) return;
  const room = ($("board-wrap").clientWidth || window.innerWidth - 16) - (8 * String(rows).length + 6);
  const size = Math.max(32, Math.min(44, Math.floor((room - 7) / cols) - 1));
  if (Number($("cell-size").value) !== size) {
    $("cell-size").value = size;
    applyLook();
  }
}

export function longPressMs() {
  const v = Number($("long-press").value);
  return Number.isFinite(v) && v >= 150 ? Math.min(v, 2000) : 400;
}

const dark = window.matchMedia("(prefers-color-scheme: dark)");

// The theme ("auto" follows the system), the palette and the cell size, onto the page.
export function applyLook() {
  const t = $("theme").value;
  document.documentElement.dataset.theme = t === "auto" ? (dark.matches ? "dark" : "light") : t;
  document.documentElement.dataset.palette = $("palette").value;
  for (const id of ["board", "an-board"]) setCellSize($(id), Number($("cell-size").value));
}

export function watchSettings() {
  for (const [id] of Object.values(FIELDS)) $(id).addEventListener("change", saveSettings);
  $("cell-size").addEventListener("change", () => { sizedByPlayer = true; saveSettings(); });
  for (const id of ["theme", "palette", "cell-size"]) {
    $(id).addEventListener("change", applyLook);
    $(id).addEventListener("input", applyLook);
  }
  dark.addEventListener("change", applyLook);
  window.addEventListener("resize", () => { fitWrap($("board")); fitWrap($("an-board")); });
  $("fit").addEventListener("click", fitToScreen);
}

// Fit to screen: the biggest cells that show the board's whole width, from 12 px with a mouse; on
// a touch screen never below 32 px, a finger's target (a board wider than that pans, and the page
// says so).
function fitToScreen() {
  const board = $("board");
  const cols = Number(board.dataset.width) || 1;
  const labels = parseFloat(board.style.getPropertyValue("--lab-w")) || 0;
  const room = $("board-wrap").clientWidth - 8 - labels - (cols - 1);
  const fit = Math.floor(room / cols);
  const least = touchFirst ? 32 : 12;
  $("cell-size").value = Math.max(least, Math.min(56, fit));
  sizedByPlayer = true;
  applyLook();
  saveSettings();
  const why = $("why");
  if (fit < least) {
    why.classList.remove("error");
    why.textContent = `${cols} columns do not fit this screen at ${least} px a cell, the smallest a ` +
      "finger can tap: the board pans in its box (pinch to zoom out for a look at all of it).";
  }
}
