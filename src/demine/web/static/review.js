// The end of a game: the replay slider and the review (marks, the winning-chance graph, and the
// played and better moves framed on the board).

import { api } from "./api.js";
import { cellAt } from "./board.js";
import { play, redraw } from "./game.js";
import { $, cellName, key } from "./util.js";

export async function replayTo(k, mark = null) {
  const v = play.view;
  if (!v || v.outcome === "playing") return;
  play.reviewMark = mark;
  k = Math.max(0, Math.min(v.total_moves, k));
  const frame = await api(`/api/games/${v.id}/replay?move=${k}`);
  play.replayView = k === v.total_moves ? null : frame;
  $("rp-slider").value = k;
  $("rp-label").textContent = `move ${k} / ${v.total_moves}` +
    (frame.last ? ` (${frame.last.kind} ${cellName(...frame.last.cell)})` : "");
  redraw();
  if (mark) {
    // the move reviewed, in view (below the sticky bar: see the page's scroll-padding)
    const [r, c] = mark.played.split(",").map(Number);
    const el = cellAt($("board"), r, c);
    if (el) el.scrollIntoView({ block: "nearest", inline: "nearest" });
  }
}

// ---------------------------------------------------------------- the review of a finished game
const SHOWN_MARKS = ["inaccuracy", "mistake", "blunder", "needless guess", "wrong flag", "best guess"];

// Each mark on the graph has its own shape as well as its colour.
const MARK_COLOURS = { "best guess": "#2e7d32", inaccuracy: "#a07800", mistake: "#ef6c00", blunder: "#c62828",
  "needless guess": "#6a1b9a", "wrong flag": "#1565c0" };
const MARK_SHAPES = {
  "best guess": (x, y) => `M ${x - 5} ${y} a 5 5 0 1 0 10 0 a 5 5 0 1 0 -10 0`,            // circle
  inaccuracy: (x, y) => `M ${x} ${y - 6} L ${x + 6} ${y + 5} L ${x - 6} ${y + 5} Z`,        // triangle
  mistake: (x, y) => `M ${x - 5} ${y - 5} h 10 v 10 h -10 Z`,                             // square
  blunder: (x, y) => `M ${x - 6} ${y - 3} l 3 -3 l 3 3 l 3 -3 l 3 3 l -3 3 l 3 3 l -3 3 l -3 -3 l -3 3 l -3 -3 l 3 -3 Z`,  // cross
  "needless guess": (x, y) => `M ${x} ${y - 6} L ${x + 6} ${y} L ${x} ${y + 6} L ${x - 6} ${y} Z`,  // diamond
  "wrong flag": (x, y) => `M ${x - 6} ${y - 5} L ${x + 6} ${y - 5} L ${x} ${y + 6} Z`,       // triangle down
};

export async function showReview() {
  const v = play.view;
  if (!v || v.outcome === "playing") return;
  $("review").hidden = false;
  $("review-summary").textContent = "Reviewing…";
  let r;
  try {
    // a long game's review is prepared in the background: ask again every few seconds
    for (let tries = 0; ; tries++) {
      r = await api(`/api/games/${v.id}/review`);
      if (!r.preparing) break;
      if (play.view !== v || tries >= 200) return;
      $("review-summary").textContent = `${r.text} Waiting…`;
      await new Promise((done) => setTimeout(done, 3000));
    }
  } catch (e) {
    $("review-summary").textContent = e.message;
    return;
  }
  const s = r.summary;
  const pct = (x) => (x === null || x === undefined ? "–" : `${(100 * x).toFixed(1)}%`);
  const counts = Object.entries(s.marks).filter(([m, n]) => n && m !== "flag").map(([m, n]) => `${n} ${m}`);
  $("review-summary").textContent = `${counts.join(", ")}. Chance to win given away: ${pct(s.chance_lost)}` +
    ` (${pct(s.chance_lost_exact)} by the exact endgame); luck ${pct(s.luck)}; accuracy ${pct(s.accuracy)};` +
    ` 3BV ${s.solved_bbbv}/${s.bbbv}, IOE ${s.ioe === null ? "–" : s.ioe.toFixed(2)}.`;
  drawReviewGraph(r);
  const list = $("review-marks");
  list.replaceChildren();
  for (const d of r.decisions) {
    if (!SHOWN_MARKS.includes(d.mark) && !d.hit_mine) continue;
    const li = document.createElement("li");
    li.value = d.index + 1;
    const b = document.createElement("button");
    b.type = "button";
    b.className = `mark-${d.mark.replace(" ", "-")}`;
    const risk = d.mine_probability === null ? "" : `, ${pct(d.mine_probability)} mine`;
    const best = d.best && (d.best[0] !== d.row || d.best[1] !== d.col)
      ? `; better ${cellName(...d.best)} (${pct(d.best_mine_probability)} mine)` : "";
    const lost = d.lost ? `; ${(100 * d.lost).toFixed(1)} points lost${d.exact ? "" : " (estimate)"}` : "";
    b.textContent = `${d.mark}${d.hit_mine ? " — hit a mine" : ""}: ${d.kind} ${cellName(d.row, d.col)}${risk}${best}${lost}`;
    const cell = (rc) => (rc ? key(rc[0], rc[1]) : null);
    b.addEventListener("click", () => replayTo(d.index, {
      played: key(d.row, d.col),
      better: d.best && (d.best[0] !== d.row || d.best[1] !== d.col) ? cell(d.best) : null,
    }));
    li.append(b);
    list.append(li);
  }
  if (!list.children.length) {
    // (an item, not text in the list: a list holds only items)
    const li = document.createElement("li");
    li.className = "none";
    li.textContent = "No guesses: every move was forced.";
    list.append(li);
  }
}

function drawReviewGraph(r) {
  const svg = $("review-graph");
  const { x, kept, luck } = r.curves;
  const W = 600, H = 160, pad = 8;
  const last = Math.max(1, x[x.length - 1] || 1);
  const px = (v) => pad + ((W - 2 * pad) * v) / last;
  const py = (p) => H - pad - (H - 2 * pad) * p;
  const steps = (ys) => {
    let d = `M ${px(0)} ${py(1)}`;
    ys.forEach((y, i) => { d += ` H ${px(x[i])} V ${py(y)}`; });
    return d + ` H ${px(last)}`;
  };
  const NS = "http://www.w3.org/2000/svg";
  svg.replaceChildren();
  const path = (d, cls) => {
    const e = document.createElementNS(NS, "path");
    e.setAttribute("d", d); e.setAttribute("fill", "none"); e.setAttribute("class", cls);
    e.setAttribute("stroke", cls === "kept" ? "#37474f" : "#90a4ae");
    e.setAttribute("stroke-width", "2");
    if (cls === "luck") e.setAttribute("stroke-dasharray", "5 4");
    svg.append(e);
  };
  path(steps(luck), "luck");
  path(steps(kept), "kept");
  r.decisions.forEach((d, i) => {
    const shape = MARK_SHAPES[d.mark];
    if (!shape) return;
    const e = document.createElementNS(NS, "path");
    e.setAttribute("d", shape(px(x[i]), py(kept[i])));
    e.setAttribute("fill", MARK_COLOURS[d.mark]);
    e.setAttribute("class", "review-dot");
    const t = document.createElementNS(NS, "title");
    t.textContent = `move ${d.index + 1}: ${d.mark}`;
    e.append(t);
    svg.append(e);
  });
}

