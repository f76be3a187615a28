// The analysis board: type or paste a position, read what logic proves and the probabilities.

import { api } from "./api.js";
import { cellAt, drawBoard, eventCell, probMap } from "./board.js";
import { $, MOVES, key, bestText, cellName, download, b64bytes, people } from "./util.js";

const an = { width: 9, height: 9, rows: null, selected: null, result: null, because: null, written: "" };

// A layout count as people read it: in full up to 12 digits, else like 5.6e104 (the count comes
// as a decimal string, exact, so the rounding is done on its digits, as demine.text.big_count does).
export function layouts(count) {
  const digits = String(count);
  if (digits.length <= 12) return `${digits} layout${digits === "1" ? "" : "s"}`;
  let exponent = digits.length - 1;
  let head = Math.floor((Number(digits.slice(0, 3)) + 5) / 10);
  if (head === 100) { head = 10; exponent += 1; }
  return `${Math.floor(head / 10)}.${head % 10}e${exponent} layouts`;
}

function anRows() {
  return an.rows.map((r) => r.join(""));
}

function anText() {
  const m = $("an-mines").value;
  return `${an.width}x${an.height}${m !== "" ? "x" + m : ""}\n${anRows().join("\n")}\n`;
}

// The board's text into the text box (kept, so that Analyse can tell a text typed or pasted there
// since: that text is what Analyse then reads).
function writeText(text = anText()) {
  $("an-text").value = text;
  an.written = text;
}

function anBlank() {
  an.width = Math.max(1, Math.min(100, Number($("an-w").value) || 9));
  an.height = Math.max(1, Math.min(100, Number($("an-h").value) || 9));
  an.rows = Array.from({ length: an.height }, () => Array(an.width).fill("H"));
  undoStack.length = 0;
  an.result = null;
  an.selected = key(0, 0);
  writeText();
  anDraw();
}

function anOverlay() {
  const o = { selected: an.selected, because: an.because };
  const res = an.result;
  if (res && !res.error) {
    o.safe = new Set(res.safe.map(([r, c]) => key(r, c)));
    o.mines = new Set(res.mines_found.map(([r, c]) => key(r, c)));
    o.wrongFlags = new Set((res.wrong_flags || []).map(([r, c]) => key(r, c)));
    o.probs = probMap(res.probabilities, an.width);
    o.best = res.best && res.best.cell ? key(...res.best.cell) : null;
  }
  return o;
}

function anDraw() {
  const board = $("an-board");
  drawBoard(board, anRows(), anOverlay());
  const sel = an.selected ? cellAt(board, ...an.selected.split(",").map(Number)) : null;
  if (sel) board.setAttribute("aria-activedescendant", sel.id);
  else board.removeAttribute("aria-activedescendant");
}

// Undo: the rows before each edit (a blank board or a loaded text starts afresh).
const undoStack = [];

function anUndo() {
  const rows = undoStack.pop();
  if (!rows) { anShow("Nothing to undo"); return; }
  an.rows = rows;
  an.result = null;
  writeText();
  anShow("");
  anDraw();
}

function anShow(text, error = false) {
  $("an-result").textContent = people(text);
  $("an-result").classList.toggle("error", error);
}

// Analyse the text box's position (Load text, or Analyse after a text was typed or pasted there)
// or the board's (Analyse after editing cells).
async function anAnalyse(fromText) {
  fromText = fromText || $("an-text").value !== an.written;
  const body = { text: fromText ? $("an-text").value : anText(), trust_flags: $("an-trust").checked };
  if (!fromText && $("an-mines").value !== "") body.mines = Number($("an-mines").value);
  try {
    const res = await api("/api/analyze", body);
    an.width = res.width;
    an.height = res.height;
    const rows = res.rows.map((r) => [...r]);
    if (an.rows && rows.join("|") !== an.rows.join("|")) undoStack.push(an.rows);
    an.rows = rows;
    $("an-w").value = res.width;
    $("an-h").value = res.height;
    $("an-mines").value = res.mines ?? "";
    writeText(res.text);
    an.result = res;
    if (res.error) {
      anShow(res.error, true);
    } else {
      const sol = res.solutions == null ? "approximate (over budget)" : layouts(res.solutions);
      const guess = res.best && res.best.cell ? `; ${cellName(...res.best.cell)}: ${bestText(res.best)}` : "";
      const solved = !res.safe.length && !guess && res.mines_found.length
        ? ": every covered cell is a proven mine, nothing is left to open" : "";
      anShow(`${res.safe.length} safe, ${res.mines_found.length} mines proven; ${sol}${guess}${solved}`);
    }
  } catch (e) {
    anShow(e.message, true);
  }
  anDraw();
}

function anSet(ch) {
  if (!an.selected) return;
  const [r, c] = an.selected.split(",").map(Number);
  if (an.rows[r][c] === ch) return;
  undoStack.push(an.rows.map((row) => [...row]));
  if (undoStack.length > 500) undoStack.shift();
  an.rows[r][c] = ch;
  an.result = null;
  writeText();
  anShow("");
  anDraw();
}

export function analysisKeys(ev) {
  if (!an.rows || ev.altKey || ev.metaKey) return;
  if (ev.target !== document.body && !ev.target.closest("#an-board")) return;
  if (ev.ctrlKey) {
    if (ev.key === "z") { ev.preventDefault(); anUndo(); }
    return;
  }
  const k = ev.key;
  if (MOVES[k] && k.startsWith("Arrow")) {
    ev.preventDefault();
    const [r, c] = (an.selected || "0,0").split(",").map(Number);
    const [dr, dc] = MOVES[k];
    an.selected = key(Math.max(0, Math.min(an.height - 1, r + dr)), Math.max(0, Math.min(an.width - 1, c + dc)));
    anDraw();
  } else if (k >= "0" && k <= "8") {
    anSet(k);
  } else if (k === "f" || k === "F") {
    anSet("F");
  } else if (k === "h" || k === "H") {
    anSet("H");
  }
}

function anHover(ev) {
  const rc = eventCell(ev);
  const res = an.result;
  let because = null;
  if (rc && res && res.reasons) {
    const reason = res.reasons[key(...rc)];
    if (reason) {
      $("an-why").textContent = people(reason.text);
      because = new Set(reason.numbers.map(([r, c]) => key(r, c)));
    }
  }
  if ((because ? [...because].join() : "") !== (an.because ? [...an.because].join() : "")) {
    an.because = because;
    anDraw();
  }
}

export function setupAnalysis() {
  $("an-blank").addEventListener("click", anBlank);
  $("an-undo").addEventListener("click", anUndo);
  for (const b of $("an-keys").querySelectorAll("button[data-set]")) {
    b.addEventListener("click", () => anSet(b.dataset.set));
  }
  $("an-load").addEventListener("click", () => anAnalyse(true));
  $("an-run").addEventListener("click", () => anAnalyse(false));
  $("an-board").addEventListener("click", (ev) => {
    const rc = eventCell(ev);
    if (!rc) return;
    an.selected = key(...rc);
    $("an-board").focus({ preventScroll: true });
    anDraw();
  });
  $("an-board").addEventListener("mouseover", anHover);
  $("an-export-text").addEventListener("click", () => {
    writeText();
    download("position.mine", new Blob([anText()], { type: "text/plain" }));
  });
  $("an-export-mbf").addEventListener("click", async () => {
    await anAnalyse(false);
    const res = an.result;
    if (res && res.mbf) download("position.mbf", new Blob([b64bytes(res.mbf)], { type: "application/octet-stream" }));
    else if (res) anShow(res.error || res.mbf_note, true);
  });
  anBlank();
}

