// The board view: draws a board of cells from the server's rows and an overlay of marks.
// Used by the game and the analysis board alike. The board is an ARIA grid: role="grid" holds
// role="row"s of role="gridcell"s (rows are `display: contents`, the cells lay out in the grid);
// each cell has an id, so the grid's aria-activedescendant can name the cursor's cell.

import { GLYPH, key } from "./util.js";

// Cells are made once per size and updated in place (only what changed is written).
function ensureCells(el, width, height) {
  if (el.dataset.size === `${width}x${height}`) return;
  el.dataset.size = `${width}x${height}`;
  el.style.setProperty("--cols", width);
  el.setAttribute("aria-rowcount", height);
  el.setAttribute("aria-colcount", width);
  const rows = [];
  for (let r = 0; r < height; r++) {
    const row = document.createElement("div");
    row.className = "row";
    row.setAttribute("role", "row");
    for (let c = 0; c < width; c++) {
      const b = document.createElement("div");
      b.className = "cell";
      b.id = `${el.id}-${r}-${c}`;
      b.dataset.r = r;
      b.dataset.c = c;
      b.setAttribute("role", "gridcell");
      row.append(b);
    }
    rows.push(row);
  }
  el.replaceChildren(...rows);
}

export function cellAt(el, r, c) {
  const row = el.children[r];
  return row ? row.children[c] : undefined;
}

function pctText(p) {
  return p > 0 && p < 0.01 ? "<1" : p < 1 && p > 0.99 ? ">99" : `${Math.round(p * 100)}`;
}

// o: {safe, mines, wrongFlags, probs (Map key -> p), best, pick, cursor, mineCells, exploded,
//     endWrong, played, better, because, selected}
export function drawBoard(el, rows, o = {}) {
  const height = rows.length;
  const width = rows[0].length;
  ensureCells(el, width, height);
  const ended = o.mineCells && o.mineCells.size;
  for (let r = 0; r < height; r++) {
    const row = rows[r];
    const rowEl = el.children[r];
    for (let c = 0; c < width; c++) {
      const b = rowEl.children[c];
      const ch = row[c];
      const k = key(r, c);
      let cls = "cell";
      let text = "";
      let label;
      if (ch >= "0" && ch <= "8") {
        cls += ` open n${ch}`;
        if (ch !== "0") { text = ch; cls += " chordable"; }
        label = ch === "0" ? "empty" : ch;
      } else if (o.mineCells && o.mineCells.has(k) && ch !== "F") {
        cls += " mine-shown";
        if (o.exploded === k) cls += " exploded";
        text = GLYPH.bomb;
        label = o.exploded === k ? "the mine hit" : "mine";
      } else if (ch === "F") {
        cls += " flag";
        text = GLYPH.flag;
        label = "flagged";
        if ((o.wrongFlags && o.wrongFlags.has(k)) || (o.endWrong && o.endWrong.has(k))) {
          cls += " wrong-flag";
          label += " (wrong: logic proves this cell safe)";
        }
      } else {
        cls += " covered";
        label = "covered";
        if (o.safe && o.safe.has(k)) {
          cls += " hint-safe"; text = GLYPH.safe; label += ", deduced safe";
        } else if (o.mines && o.mines.has(k)) {
          cls += " hint-mine"; text = GLYPH.mine; label += ", deduced mine";
        } else if (o.best === k) {
          cls += " best"; text = GLYPH.best; label += ", best guess";
        }
      }
      if (o.pick === k) cls += " pick";
      if (o.played === k) { cls += " rv-played"; label += ", the move played"; }
      if (o.better === k) { cls += " rv-better"; label += ", the better move"; }
      if (o.because && o.because.has(k)) cls += " because";
      if (o.cursor === k) cls += " cursor";
      if (o.selected === k) cls += " selected";
      const p = o.probs ? o.probs.get(k) : undefined;
      const pct = p !== undefined && (ch === "H" || ch === "F") && !ended ? pctText(p) : null;
      if (pct !== null) label += `, ${(p * 100).toFixed(1)}% mine`;
      label += `, row ${r + 1} column ${c + 1}`;
      const state = `${cls}|${text}|${pct}|${p}`;
      if (b._state === state) continue;  // unchanged since the last draw
      b._state = state;
      b.className = cls;
      b.textContent = text;
      if (pct !== null) {
        const span = document.createElement("span");
        span.className = "pct";
        span.setAttribute("aria-hidden", "true");
        span.style.setProperty("--p", p);
        span.textContent = pct;
        b.append(span);
      }
      b.setAttribute("aria-label", label);
    }
  }
}

// probabilities come as thousandths per cell, row-major (null: open)
export function probMap(permille, width) {
  const m = new Map();
  permille.forEach((v, i) => { if (v !== null) m.set(key(Math.floor(i / width), i % width), v / 1000); });
  return m;
}

export function eventCell(ev) {
  const t = ev.target.closest(".cell");
  return t ? [Number(t.dataset.r), Number(t.dataset.c)] : null;
}
