// The board view: draws a board of cells from the server's rows and an overlay of marks.
// Used by the game, the analysis board and the Train tab alike. The board is an ARIA grid:
// role="grid" holds role="row"s of role="gridcell"s (rows are `display: contents`, the cells lay
// out in the grid), a row of column headers first and a row header before each row's cells; each
// cell has an id, so the grid's aria-activedescendant can name the cursor's cell.

import { cellName, GLYPH, key } from "./util.js";

// Cells are made once per size and updated in place (only what changed is written). The first
// row holds the columns' labels and each row starts with its row's label (1-based, as the page
// names cells: see cellName in util.js): grid column- and row-headers, kept in view (sticky) while
// the board pans in its box.
function ensureCells(el, width, height) {
  if (el.dataset.size === `${width}x${height}`) return;
  el.dataset.size = `${width}x${height}`;
  el.dataset.width = width;
  el.dataset.height = height;
  el.style.setProperty("--cols", width);
  const head = document.createElement("div");
  head.className = "row";
  head.setAttribute("role", "row");
  const corner = document.createElement("div");
  corner.className = "lab corner";
  corner.setAttribute("aria-hidden", "true");
  head.append(corner);
  for (let c = 0; c < width; c++) {
    head.append(label((c + 1) % 5 === 0 || c === 0 ? "lab col tick" : "lab col", "columnheader", `column ${c + 1}`, c + 1));
  }
  const rows = [head];
  for (let r = 0; r < height; r++) {
    const row = document.createElement("div");
    row.className = "row";
    row.setAttribute("role", "row");
    row.append(label("lab rowlab", "rowheader", `row ${r + 1}`, r + 1));
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
  sizeLabels(el);
}

// A row's or a column's label: its number, and its name for screen readers.
function label(cls, role, name, n) {
  const h = document.createElement("div");
  h.className = cls;
  h.setAttribute("role", role);
  h.setAttribute("aria-label", name);
  h.textContent = String(n);
  return h;
}

// The labels' size follows the cells': a font from 9 to 13 px, the row labels as wide as the
// highest row's digits; where a column's number is wider than its cell, only 1 and every fifth
// column keep theirs. Then the board's box is sized (fitWrap).
function sizeLabels(el) {
  const cell = cellPx(el);
  const font = Math.max(9, Math.min(13, Math.round(cell * 0.45)));
  const digit = Math.ceil(font * 0.62);
  const rows = Number(el.dataset.height) || 1;
  const cols = Number(el.dataset.width) || 1;
  el.style.setProperty("--lab-font", `${font}px`);
  el.style.setProperty("--lab-w", `${String(rows).length * digit + 6}px`);
  el.style.setProperty("--lab-h", `${font + 6}px`);
  el.classList.toggle("sparse", String(cols).length * digit + 2 > cell);
  fitWrap(el);
}

// A board's cell size in px (set by setCellSize; 26 before).
function cellPx(el) {
  const v = parseFloat(el.style.getPropertyValue("--cell"));
  return v > 0 ? v : 26;
}

// Cells of `px` pixels on this board, its labels and its box sized to match.
export function setCellSize(el, px) {
  el.style.setProperty("--cell", `${px}px`);
  sizeLabels(el);
}

// The board's scrolling box gets a fixed size (as tall as the board, at most 85% of the screen, or
// the share its data-max-share says: "none" for no bound), so that with `contain: strict` nothing
// around it ever lays the 10,000 cells of a 100x100 board out again, nor a cell's change the page
// around it.
export function fitWrap(el) {
  const wrap = el.parentElement;
  const rows = Number(el.dataset.height) || 0;
  const cols = Number(el.dataset.width) || 0;
  const cell = cellPx(el);
  const labW = parseFloat(el.style.getPropertyValue("--lab-w")) || 0;
  const labH = parseFloat(el.style.getPropertyValue("--lab-h")) || 0;
  const w = labW + cols * (cell + 1) + 7;
  const h = labH + rows * (cell + 1) + 7 + (w > wrap.clientWidth ? 17 : 0);  // room for a scroll bar
  const share = wrap.dataset.maxShare === "none" ? Infinity : Number(wrap.dataset.maxShare) || 0.85;
  wrap.style.height = `${Math.ceil(Math.min(h, share * window.innerHeight))}px`;
}

export function cellAt(el, r, c) {
  const row = el.children[r + 1];
  return row ? row.children[c + 1] : undefined;
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
    const rowEl = el.children[r + 1];
    for (let c = 0; c < width; c++) {
      const b = rowEl.children[c + 1];
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
        label += `, ${pct}% mine`;  // the figure shown, so the name holds the cell's visible text
        const span = document.createElement("span");
        span.className = "pct";
        span.setAttribute("aria-hidden", "true");
        span.style.setProperty("--p", p);
        span.textContent = pct;
        b.append(span);
      }
      b.setAttribute("aria-label", `${label}, ${cellName(r, c)}`);
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
