// The game: its state, the moves sent to the server, and what the page shows of them.
//
// Other modules may listen to these events on `document` (see /work/notes/web33-hooks.md):
//   "demine:game-started"  detail {game, preset, resumed}   a new game, or one loaded from a link
//   "demine:move"          detail {game, preset, move}      after each move the server accepted
//   "demine:game-ended"    detail {game, preset}            once, when a move ends the game
// `game` is the server's view of the game (GET /api/games/{id}); `preset` is "beginner",
// "intermediate", "expert" or "custom" from the board's size; `move` is {kind, row, col}.

import { api } from "./api.js";
import { drawBoard, probMap, eventCell } from "./board.js";
import { $, key, bestText, download, b64bytes } from "./util.js";

export const play = {
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

const PRESETS = { beginner: [9, 9, 10], intermediate: [16, 16, 40], expert: [30, 16, 99] };

// The preset a game's size is, or "custom".
export function presetOf(v) {
  for (const [name, [w, h, m]] of Object.entries(PRESETS)) {
    if (v.width === w && v.height === h && v.mines === m) return name;
  }
  return "custom";
}

// Tell the other modules (statistics, ...) what happened; see the events at the top.
function announce(name, detail) {
  document.dispatchEvent(new CustomEvent(name, { detail }));
}

export function hintsOn() { return $("hints-toggle").checked; }
export function probsOn() { return $("prob-toggle").checked; }

export function overlay() {
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

export function redraw() {
  const v = play.replayView || play.view;
  if (!v) return;
  drawBoard($("board"), v.rows, overlay());
  $("mines-left").value = play.view.mines_left;
  $("face").textContent = { playing: "playing", won: "won!", lost: "lost" }[play.view.outcome];
  $("face").className = play.view.outcome;
}

export function tick() {
  const v = play.view;
  if (!v) return;
  let t = v.elapsed;
  if (v.running) t += (performance.now() - play.receivedAt) / 1000;
  $("timer").value = Math.floor(t);
}

export async function refreshHints() {
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

export function showWhy(text, error = false) {
  $("why").textContent = text;
  $("why").classList.toggle("error", error);
}

export function setView(v) {
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
export function queue(fn) {
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

export function act(kind, r, c) {
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
    if (nv.moves !== v.moves) {
      announce("demine:move", { game: nv, preset: presetOf(nv), move: { kind, row: r, col: c } });
      if (nv.outcome !== "playing") announce("demine:game-ended", { game: nv, preset: presetOf(nv) });
    }
    await fetchGuess();
  });
}

export function primary(r, c) {
  const ch = play.view.rows[r][c];
  act(ch >= "1" && ch <= "8" ? "chord" : "reveal", r, c);
}

export async function newGame(ev) {
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
    const v = await api("/api/games", body);
    setView(v);
    showWhy("");
    announce("demine:game-started", { game: v, preset: presetOf(v), resumed: false });
    await refreshHints();
  });
}

export async function loadGame(id) {
  try {
    const v = await api(`/api/games/${encodeURIComponent(id)}`);
    setView(v);
    announce("demine:game-started", { game: v, preset: presetOf(v), resumed: true });
    await refreshHints();
  } catch (e) {
    showWhy(`${e.message}; starting a new game`, true);
    await newGame();
  }
}

export function hoverWhy(ev) {
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

export async function showHint() {
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

export async function exportGame(what) {
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

