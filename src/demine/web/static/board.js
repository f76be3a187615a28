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
  el._last = null;  // new cells: the next draw looks at every one
  fitWrap(el);
}

// The board's scrolling box gets a fixed size (as tall as the board, at most 85% of the screen),
// so that with `contain: strict` nothing around it ever lays the 10,000 cells of a 100x100 board out
// again, nor a cell's change the page around it.
export function fitWrap(el) {
  const wrap = el.parentElement;
  const rows = Number(el.getAttribute("aria-rowcount")) || 0;
  const cols = Number(el.getAttribute("aria-colcount")) || 0;
  // --cell is a length, or (the Train tab's) a clamp() the browser resolves: then measure a cell
  const given = getComputedStyle(el).getPropertyValue("--cell").trim();
  let cell = /^[\d.]+px$/.test(given) ? parseFloat(given) : NaN;
  if (!(cell > 0)) {
    const one = el.querySelector(".cell");
    cell = one ? one.getBoundingClientRect().height : 26;
  }
  const w = cols * (cell + 1) + 5;
  const h = rows * (cell + 1) + 5 + (w > wrap.clientWidth ? 17 : 0);  // room for a scroll bar
  wrap.style.height = `${Math.ceil(Math.min(h, 0.85 * window.innerHeight))}px`;
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
  const todo = rowsToDraw(el, rows, o);
  for (let r = 0; r < height; r++) {
    if (todo && !todo.has(r)) continue;
    const row = rows[r];
    const rowEl = el.children[r];
    for (let c = 0; c < width; c++) {
      const b = rowEl.children[c];
      const ch = row[c];
      const k = key(r, c);
      // the classes and text first; the words for screen readers only when the cell changed
      let cls = "cell";
      let text = "";
      let state;  // the label's words for the state
      if (ch >= "0" && ch <= "8") {
        cls += ` open n${ch}`;
        if (ch !== "0") { text = ch; cls += " chordable"; }
        state = ch === "0" ? "empty" : ch;
      } else if (o.mineCells && o.mineCells.has(k) && ch !== "F") {
        cls += " mine-shown";
        if (o.exploded === k) cls += " exploded";
        text = GLYPH.bomb;
        state = o.exploded === k ? "the mine hit" : "mine";
      } else if (ch === "F") {
        cls += " flag";
        text = GLYPH.flag;
        state = "flagged";
        if ((o.wrongFlags && o.wrongFlags.has(k)) || (o.endWrong && o.endWrong.has(k))) {
          cls += " wrong-flag";
          state += " (wrong: logic proves this cell safe)";
        }
      } else {
        cls += " covered";
        state = "covered";
        if (o.safe && o.safe.has(k)) {
          cls += " hint-safe"; text = GLYPH.safe; state += ", deduced safe";
        } else if (o.mines && o.mines.has(k)) {
          cls += " hint-mine"; text = GLYPH.mine; state += ", deduced mine";
        } else if (o.best === k) {
          cls += " best"; text = GLYPH.best; state += ", best guess";
        }
      }
      if (o.pick === k) cls += " pick";
      if (o.played === k) cls += " rv-played";
      if (o.better === k) cls += " rv-better";
      if (o.because && o.because.has(k)) cls += " because";
      if (o.cursor === k) cls += " cursor";
      if (o.selected === k) cls += " selected";
      const p = o.probs ? o.probs.get(k) : undefined;
      const pct = p !== undefined && (ch === "H" || ch === "F") && !ended ? pctText(p) : null;
      const drawn = `${cls}|${text}|${pct}|${p}|${state}`;
      if (b._drawn === drawn) continue;  // unchanged since the last draw
      b._drawn = drawn;
      b.className = cls;
      b.textContent = text;
      let label = state;
      if (o.played === k) label += ", the move played";
      if (o.better === k) label += ", the better move";
      if (pct !== null) {
        label += `, ${(p * 100).toFixed(1)}% mine`;
        const span = document.createElement("span");
        span.className = "pct";
        span.setAttribute("aria-hidden", "true");
        span.style.setProperty("--p", p);
        span.textContent = pct;
        b.append(span);
      }
      b.setAttribute("aria-label", `${label}, row ${r + 1} column ${c + 1}`);
    }
  }
}

// Without hints, probabilities or an ended game's layout, only the rows whose cells changed, and
// those of the marked cells (cursor, hint pick, ...) now or at the last draw, need a look: on
// 100x100 a move then costs 100 string comparisons, not 10,000 cells. Else null: every row.
function rowsToDraw(el, rows, o) {
  const plain = !o.safe && !o.mines && !o.probs && !o.mineCells && !o.wrongFlags && !o.endWrong;
  const marked = [o.cursor, o.pick, o.best, o.played, o.better, o.selected, o.exploded,
    ...(o.because ? o.because : [])].filter(Boolean).map((k) => Number(k.split(",")[0]));
  const last = el._last;
  el._last = { rows, plain, marked };
  if (!plain || !last || !last.plain || last.rows.length !== rows.length) return null;
  const todo = new Set([...marked, ...last.marked]);
  for (let r = 0; r < rows.length; r++) if (rows[r] !== last.rows[r]) todo.add(r);
  return todo;
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
