// demine's page: the game with hints, and the analysis board. Plain JS module, no build step.
// Every hint comes from the server, computed from what the player sees.

const $ = (id) => document.getElementById(id);
const key = (r, c) => `${r},${c}`;
const GLYPH = { flag: "⚑", safe: "✓", mine: "✱", best: "★", bomb: "●" };

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const res = await fetch(path, opts);
  let data;
  try { data = await res.json(); } catch { data = { error: `HTTP ${res.status}` }; }
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  return data;
}

function download(name, blob) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

function b64bytes(text) {
  return Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
}

// ---------------------------------------------------------------- drawing a board
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

function cellAt(el, width, r, c) {
  return el.children[r * width + c];
}

// o: {safe, mines, wrongFlags, probs (Map key -> p), best, pick, cursor, mineCells, exploded, endWrong}
function drawBoard(el, rows, o = {}) {
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
function probMap(permille, width) {
  const m = new Map();
  permille.forEach((v, i) => { if (v !== null) m.set(key(Math.floor(i / width), i % width), v / 1000); });
  return m;
}

function eventCell(ev) {
  const t = ev.target.closest(".cell");
  return t ? [Number(t.dataset.r), Number(t.dataset.c)] : null;
}

// ---------------------------------------------------------------- the game
const play = {
  view: null,          // the server's view of the game
  hints: null,         // the last hints for this view
  pick: null,          // the cell the hint button showed
  cursor: [0, 0],
  because: null,       // numbers that force the hovered cell
  replayView: null,    // a replay frame, when one is shown
  reviewMark: null,    // the reviewed move shown on the replay frame: {played, better} cells
  timer: null,
  busy: Promise.resolve(),
};

function hintsOn() { return $("hints-toggle").checked; }
function probsOn() { return $("prob-toggle").checked; }

function overlay() {
  const v = play.replayView || play.view;
  const o = { cursor: key(...play.cursor), pick: play.pick, because: play.because };
  if (v.mine_cells) {
    o.mineCells = new Set((v.mine_cells || []).map(([r, c]) => key(r, c)));
    o.exploded = v.exploded ? key(...v.exploded) : null;
    o.endWrong = new Set((v.wrong_flags || []).map(([r, c]) => key(r, c)));
    if (play.replayView) o.cursor = null;
    if (play.replayView && play.reviewMark) {
      o.played = play.reviewMark.played;
      o.better = play.reviewMark.better;
    }
    return o;
  }
  const h = play.hints;
  if (h && !h.error) {
    if (hintsOn()) {
      o.safe = new Set(h.safe.map(([r, c]) => key(r, c)));
      o.mines = new Set(h.mines.map(([r, c]) => key(r, c)));
      o.wrongFlags = new Set(h.wrong_flags.map(([r, c]) => key(r, c)));
      o.best = h.best && h.best.cell ? key(...h.best.cell) : null;
    }
    if (probsOn() && h.probabilities) o.probs = probMap(h.probabilities, v.width);
  }
  return o;
}

function redraw() {
  const v = play.replayView || play.view;
  if (!v) return;
  drawBoard($("board"), v.rows, overlay());
  $("mines-left").value = play.view.mines_left;
  $("face").textContent = { playing: "playing", won: "won!", lost: "lost" }[play.view.outcome];
  $("face").className = play.view.outcome;
}

function tick() {
  const v = play.view;
  if (!v) return;
  let t = v.elapsed;
  if (v.running) t += (performance.now() - play.receivedAt) / 1000;
  $("timer").value = Math.floor(t);
}

async function refreshHints() {
  play.hints = null;
  const v = play.view;
  if (v.outcome === "playing" && (hintsOn() || probsOn())) {
    try {
      play.hints = await api(`/api/games/${v.id}/hints?probabilities=${probsOn() ? 1 : 0}`);
      if (play.hints.error) showWhy(play.hints.error, true);
    } catch (e) {
      showWhy(e.message, true);
    }
  }
  redraw();
}

// When nothing is safe the best guess comes in a second request (it costs more than the hints).
async function fetchGuess() {
  const h = play.hints;
  if (!h || !h.guess_pending || !hintsOn()) return;
  const v = play.view;
  const g = await api(`/api/games/${v.id}/hint`);
  if (play.view === v && play.hints === h && g.kind === "guess") {
    h.best = g;
    redraw();
  }
}

function showWhy(text, error = false) {
  $("why").textContent = text;
  $("why").classList.toggle("error", error);
}

function setView(v) {
  const first = !play.view || play.view.id !== v.id;
  play.view = v;
  play.receivedAt = performance.now();
  play.replayView = null;
  play.pick = null;
  play.because = null;
  if (first) {
    play.cursor = [Math.min(play.cursor[0], v.height - 1), Math.min(play.cursor[1], v.width - 1)];
    const url = new URL(location.href);
    url.searchParams.set("game", v.id);
    history.replaceState(null, "", url);
    $("link").href = url.href;
    $("link").textContent = url.href;
  }
  const badge = $("no-guess-badge");
  badge.hidden = !v.no_guess;
  badge.textContent = v.no_guess === "local"
    ? "no guess needed (numbers alone)"
    : "no guess needed (counting mines)";
  showEnd();
  tick();
}

function showEnd() {
  const v = play.view;
  const over = v.outcome !== "playing";
  $("end").hidden = !over;
  $("review").hidden = true;
  if (!over) return;
  const secs = v.elapsed.toFixed(1);
  $("result").textContent = `${v.outcome === "won" ? "Won" : "Lost"} — 3BV ${v.bbbv ?? "–"}, ` +
    `${secs} s, ${v.total_moves} moves, seed ${v.seed}`;
  const s = $("rp-slider");
  s.max = v.total_moves;
  s.value = v.total_moves;
  $("rp-label").value = `move ${v.total_moves} / ${v.total_moves}`;
}

// One request at a time per page, in click order (the server serialises too).
function queue(fn) {
  play.busy = play.busy.then(fn).catch(async (e) => {
    showWhy(e.message, true);
    await refreshView();  // another tab may have moved on: show the game as it is now
  });
  return play.busy;
}

async function refreshView() {
  const v = play.view;
  if (!v) return;
  try {
    setView(await api(`/api/games/${encodeURIComponent(v.id)}`));
    redraw();
  } catch (e) {
    // the error shown already says what went wrong
  }
}

function act(kind, r, c) {
  return queue(async () => {
    const v = play.view;
    if (!v || v.outcome !== "playing") return;
    const want = hintsOn() || probsOn();
    const query = want ? `?hints=1&probabilities=${probsOn() ? 1 : 0}` : "";
    const body = { kind, row: r, col: c };
    if (kind === "flag") body.flag = v.rows[r][c] !== "F";  // the state wanted, not a blind toggle
    const nv = await api(`/api/games/${v.id}/moves${query}`, body);
    setView(nv);
    showWhy("");
    play.hints = nv.hints || null;  // one request per click: the hints come with the move
    if (play.hints && play.hints.error) showWhy(play.hints.error, true);
    redraw();
    await fetchGuess();
  });
}

function primary(r, c) {
  const ch = play.view.rows[r][c];
  act(ch >= "1" && ch <= "8" ? "chord" : "reveal", r, c);
}

async function newGame(ev) {
  if (ev) ev.preventDefault();
  const preset = $("preset").value;
  const body = { rule: $("rule").value, seed: $("seed").value || null, no_guess: $("no-guess").value || null };
  if (preset === "custom") {
    body.width = Number($("cw").value);
    body.height = Number($("ch").value);
    body.mines = Number($("cm").value);
  } else {
    body.preset = preset;
  }
  await queue(async () => {
    setView(await api("/api/games", body));
    showWhy("");
    await refreshHints();
  });
}

async function loadGame(id) {
  try {
    setView(await api(`/api/games/${encodeURIComponent(id)}`));
    await refreshHints();
  } catch (e) {
    showWhy(`${e.message}; starting a new game`, true);
    await newGame();
  }
}

function hoverWhy(ev) {
  const rc = eventCell(ev);
  const h = play.hints;
  let because = null;
  if (rc && h && !h.error && hintsOn() && play.view.outcome === "playing") {
    const k = key(...rc);
    const reason = h.reasons[k];
    if (reason) {
      showWhy(reason.text);
      because = new Set(reason.numbers.map(([r, c]) => key(r, c)));
    } else if (h.best && h.best.cell && key(...h.best.cell) === k) {
      showWhy(bestText(h.best));
    }
  }
  const changed = (because ? [...because].join() : "") !== (play.because ? [...play.because].join() : "");
  play.because = because;
  if (changed) redraw();
}

function bestText(b) {
  if (b.reason === "first-click") return `Best first click: ${b.text}`;
  const more = b.outlook ? `, ${b.outlook}` : "";
  return `No safe cell: best guess (${b.reason}), ${(100 * b.mine_probability).toFixed(1)}% risk${more}`;
}

async function showHint() {
  await queue(async () => {
    const v = play.view;
    if (!v || v.outcome !== "playing") return;
    const h = await api(`/api/games/${v.id}/hint`);
    if (h.error) { showWhy(h.error, true); return; }
    play.pick = h.cell ? key(...h.cell) : null;
    play.because = new Set((h.numbers || []).map(([r, c]) => key(r, c)));
    if (h.cell) play.cursor = h.cell;
    showWhy(h.kind === "safe" ? `Safe: ${h.text}` : h.text);
    redraw();
  });
}

async function replayTo(k, mark = null) {
  const v = play.view;
  if (!v || v.outcome === "playing") return;
  play.reviewMark = mark;
  k = Math.max(0, Math.min(v.total_moves, k));
  const frame = await api(`/api/games/${v.id}/replay?move=${k}`);
  play.replayView = k === v.total_moves ? null : frame;
  $("rp-slider").value = k;
  $("rp-label").value = `move ${k} / ${v.total_moves}` +
    (frame.last ? ` (${frame.last.kind} ${frame.last.cell.join(",")})` : "");
  redraw();
}

// ---------------------------------------------------------------- the review of a finished game
const SHOWN_MARKS = ["inaccuracy", "mistake", "blunder", "needless guess", "wrong flag", "best guess"];

async function showReview() {
  const v = play.view;
  if (!v || v.outcome === "playing") return;
  $("review").hidden = false;
  $("review-summary").textContent = "Reviewing…";
  let r;
  try {
    r = await api(`/api/games/${v.id}/review`);
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
      ? `; better ${d.best.join(",")} (${pct(d.best_mine_probability)} mine)` : "";
    const lost = d.lost ? `; ${(100 * d.lost).toFixed(1)} points lost${d.exact ? "" : " (estimate)"}` : "";
    b.textContent = `${d.mark}${d.hit_mine ? " — hit a mine" : ""}: ${d.kind} ${d.row},${d.col}${risk}${best}${lost}`;
    const cell = (rc) => (rc ? key(rc[0], rc[1]) : null);
    b.addEventListener("click", () => replayTo(d.index, {
      played: key(d.row, d.col),
      better: d.best && (d.best[0] !== d.row || d.best[1] !== d.col) ? cell(d.best) : null,
    }));
    li.append(b);
    list.append(li);
  }
  if (!list.children.length) list.textContent = "No guesses: every move was forced.";
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
  const colours = { "best guess": "#2e7d32", inaccuracy: "#f9a825", mistake: "#ef6c00", blunder: "#c62828",
    "needless guess": "#6a1b9a", "wrong flag": "#1565c0" };
  r.decisions.forEach((d, i) => {
    if (!colours[d.mark]) return;
    const c = document.createElementNS(NS, "circle");
    c.setAttribute("cx", px(x[i])); c.setAttribute("cy", py(kept[i])); c.setAttribute("r", "4.5");
    c.setAttribute("fill", colours[d.mark]); c.setAttribute("class", "review-dot");
    const t = document.createElementNS(NS, "title");
    t.textContent = `move ${d.index + 1}: ${d.mark}`;
    c.append(t);
    svg.append(c);
  });
}

async function exportGame(what) {
  const v = play.view;
  const data = await api(`/api/games/${v.id}/export`);
  if (what === "record") {
    download(`demine-${v.id}.json`, new Blob([JSON.stringify(data.record) + "\n"], { type: "application/json" }));
  } else if (data.mbf) {
    download(`demine-${v.id}.mbf`, new Blob([b64bytes(data.mbf)], { type: "application/octet-stream" }));
  } else {
    showWhy("MBF holds boards up to 255x255", true);
  }
}

function moveCursor(dr, dc) {
  const v = play.view;
  play.cursor = [
    Math.max(0, Math.min(v.height - 1, play.cursor[0] + dr)),
    Math.max(0, Math.min(v.width - 1, play.cursor[1] + dc)),
  ];
  redraw();
}

const MOVES = {
  ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
  k: [-1, 0], j: [1, 0], h: [0, -1], l: [0, 1],
};

function playKeys(ev) {
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

function setupPlay() {
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
  document.addEventListener("keydown", (ev) => {
    if (!$("play").hidden) playKeys(ev);
    else analysisKeys(ev);
  });
  setInterval(tick, 250);
}

// ---------------------------------------------------------------- the analysis board
const an = { width: 9, height: 9, rows: null, selected: null, result: null, because: null };

function anRows() {
  return an.rows.map((r) => r.join(""));
}

function anText() {
  const m = $("an-mines").value;
  return `${an.width}x${an.height}${m !== "" ? "x" + m : ""}\n${anRows().join("\n")}\n`;
}

function anBlank() {
  an.width = Math.max(1, Math.min(100, Number($("an-w").value) || 9));
  an.height = Math.max(1, Math.min(100, Number($("an-h").value) || 9));
  an.rows = Array.from({ length: an.height }, () => Array(an.width).fill("H"));
  an.result = null;
  an.selected = key(0, 0);
  $("an-text").value = anText();
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
  drawBoard($("an-board"), anRows(), anOverlay());
}

function anShow(text, error = false) {
  $("an-result").textContent = text;
  $("an-result").classList.toggle("error", error);
}

async function anAnalyse(fromText) {
  const body = { text: fromText ? $("an-text").value : anText(), trust_flags: $("an-trust").checked };
  if (!fromText && $("an-mines").value !== "") body.mines = Number($("an-mines").value);
  try {
    const res = await api("/api/analyze", body);
    an.width = res.width;
    an.height = res.height;
    an.rows = res.rows.map((r) => [...r]);
    $("an-w").value = res.width;
    $("an-h").value = res.height;
    $("an-mines").value = res.mines ?? "";
    $("an-text").value = res.text;
    an.result = res;
    if (res.error) {
      anShow(res.error, true);
    } else {
      const sol = res.solutions == null ? "approximate (over budget)" : `${res.solutions} layouts`;
      anShow(`${res.safe.length} safe, ${res.mines_found.length} mines proven; ${sol}` +
        (res.best && res.best.cell ? `; best guess (${res.best.cell.join(",")}) ${bestText(res.best)}` : ""));
    }
  } catch (e) {
    anShow(e.message, true);
  }
  anDraw();
}

function anSet(ch) {
  if (!an.selected) return;
  const [r, c] = an.selected.split(",").map(Number);
  an.rows[r][c] = ch;
  an.result = null;
  $("an-text").value = anText();
  anShow("");
  anDraw();
}

function analysisKeys(ev) {
  if (ev.target.closest("input, textarea, select") || !an.rows) return;
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
      $("an-why").textContent = reason.text;
      because = new Set(reason.numbers.map(([r, c]) => key(r, c)));
    }
  }
  if ((because ? [...because].join() : "") !== (an.because ? [...an.because].join() : "")) {
    an.because = because;
    anDraw();
  }
}

function setupAnalysis() {
  $("an-blank").addEventListener("click", anBlank);
  $("an-load").addEventListener("click", () => anAnalyse(true));
  $("an-run").addEventListener("click", () => anAnalyse(false));
  $("an-board").addEventListener("click", (ev) => {
    const rc = eventCell(ev);
    if (!rc) return;
    an.selected = key(...rc);
    $("an-board").focus();
    anDraw();
  });
  $("an-board").addEventListener("mouseover", anHover);
  $("an-export-text").addEventListener("click", () => {
    $("an-text").value = anText();
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

// ---------------------------------------------------------------- tabs and start
function showTab(name) {
  for (const t of ["play", "analyse"]) {
    $(t).hidden = t !== name;
    $(`tab-${t}`).setAttribute("aria-selected", String(t === name));
  }
}

setupPlay();
setupAnalysis();
$("tab-play").addEventListener("click", () => showTab("play"));
$("tab-analyse").addEventListener("click", () => showTab("analyse"));
const gameId = new URL(location.href).searchParams.get("game");
if (gameId) loadGame(gameId); else newGame();
