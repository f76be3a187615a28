// The board view: draws a board of cells from the server's rows and an overlay of marks.
// Used by the game and the analysis board alike.

import { GLYPH, key } from "./util.js";

// Cells are made once per size and updated in place.
function ensureCells(el, width, height) {
  if (el.dataset.size === `${width}x${height}`) return;
  el.dataset.size = `${width}x${height}`;
  el.style.setProperty("--cols", width);
  el.replaceChildren();
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const b = document.createElement("div");
      b.className = "cell";
      b.dataset.r = r;
      b.dataset.c = c;
      b.setAttribute("role", "gridcell");
      el.append(b);
    }
  }
}

export function cellAt(el, width, r, c) {
  return el.children[r * width + c];
}

// o: {safe, mines, wrongFlags, probs (Map key -> p), best, pick, cursor, mineCells, exploded, endWrong}
export function drawBoard(el, rows, o = {}) {
  const height = rows.length;
  const width = rows[0].length;
  ensureCells(el, width, height);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const b = cellAt(el, width, r, c);
      const ch = rows[r][c];
      const k = key(r, c);
      const cls = ["cell"];
      let text = "";
      let label = `(${r},${c}) `;
      if (ch >= "0" && ch <= "8") {
        cls.push("open", `n${ch}`);
        if (ch !== "0") { text = ch; cls.push("chordable"); }
        label += ch === "0" ? "empty" : ch;
      } else if (o.mineCells && o.mineCells.has(k) && ch !== "F") {
        cls.push("mine-shown");
        if (o.exploded === k) cls.push("exploded");
        text = GLYPH.bomb;
        label += o.exploded === k ? "the mine hit" : "mine";
      } else if (ch === "F") {
        cls.push("flag");
        text = GLYPH.flag;
        label += "flag";
        if ((o.wrongFlags && o.wrongFlags.has(k)) || (o.endWrong && o.endWrong.has(k))) {
          cls.push("wrong-flag");
          label += " (wrong: logic proves this cell safe)";
        }
      } else {
        cls.push("covered");
        label += "covered";
        if (o.safe && o.safe.has(k)) {
          cls.push("hint-safe"); text = GLYPH.safe; label += ", deduced safe";
        } else if (o.mines && o.mines.has(k)) {
          cls.push("hint-mine"); text = GLYPH.mine; label += ", deduced mine";
        } else if (o.best === k) {
          cls.push("best"); text = GLYPH.best; label += ", best guess";
        }
      }
      if (o.pick === k) cls.push("pick");
      if (o.played === k) { cls.push("rv-played"); label += ", the move played"; }
      if (o.better === k) { cls.push("rv-better"); label += ", the better move"; }
      if (o.because && o.because.has(k)) cls.push("because");
      if (o.cursor === k) cls.push("cursor");
      if (o.selected === k) cls.push("selected");
      b.className = cls.join(" ");
      b.textContent = text;
      const p = o.probs ? o.probs.get(k) : undefined;
      if (p !== undefined && (ch === "H" || ch === "F") && !(o.mineCells && o.mineCells.size)) {
        const span = document.createElement("span");
        span.className = "pct";
        span.style.setProperty("--p", p);
        span.textContent = p > 0 && p < 0.01 ? "<1" : p < 1 && p > 0.99 ? ">99" : `${Math.round(p * 100)}`;
        b.append(span);
        label += `, ${(p * 100).toFixed(1)}% mine`;
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

