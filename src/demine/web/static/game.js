// The game: its state, the moves sent to the server, and what the page shows of them.
//
// Other modules may listen to these events on `document` (see /work/notes/web33-hooks.md):
//   "demine:game-started"  detail {game, preset, resumed}   a new game, or one loaded from a link
//   "demine:move"          detail {game, preset, move}      after each move the server accepted
//   "demine:game-ended"    detail {game, preset}            once, when a move ends the game
// `game` is the server's view of the game (GET /api/games/{id}); `preset` is "beginner",
// "intermediate", "expert" or "custom" from the board's size; `move` is {kind, row, col}.
//
// What the page says: #why (role="status", in the sticky bar) holds hint reasons, the hint
// button's message and errors, and keeps them until there is something else worth saying; #said
// (a polite live region) says what each move did. The timer is not a live region.

import { api, ownerHeader } from "./api.js";
import { cellAt, drawBoard, probMap } from "./board.js";
import { touchCellSize } from "./settings.js";
import { $, key, bestText, cellName, download, b64bytes, people } from "./util.js";

export const play = {
  view: null,          // the server's view of the game
  hints: null,         // the last hints for this view
  pick: null,          // the cell the hint button showed
  cursor: [0, 0],
  because: null,       // numbers that force the cell whose reason is shown
  reading: null,       // the cell whose reason is shown (a touch on a hinted cell reads first)
  replayView: null,    // a replay frame, when one is shown
  reviewMark: null,    // the reviewed move shown on the replay frame: {played, better} cells
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
  const board = $("board");
  drawBoard(board, v.rows, overlay());
  const cur = cellAt(board, ...play.cursor);
  if (cur) board.setAttribute("aria-activedescendant", cur.id);
  $("mines-left").textContent = play.view.mines_left;
  $("face").textContent = { playing: "playing", won: "won!", lost: "lost" }[play.view.outcome];
  $("face").className = play.view.outcome;
}

export function tick() {
  const v = play.view;
  if (!v) return;
  let t = v.elapsed;
  if (v.running) t += (performance.now() - play.receivedAt) / 1000;
  const s = String(Math.floor(t));
  if ($("timer").textContent !== s) $("timer").textContent = s;
}

export async function refreshHints() {
  const v = play.view;
  let h = null;  // the hints shown stay until the new ones arrive (a hover meanwhile reads them)
  if (v.outcome === "playing" && (hintsOn() || probsOn())) {
    try {
      h = await api(`/api/games/${v.id}/hints?probabilities=${probsOn() ? 1 : 0}`);
      if (h.error) showWhy(h.error, true);
    } catch (e) {
      showWhy(e.message, true);
    }
  }
  play.hints = h;
  if (h) { v.hints_used = true; $("hints-badge").hidden = false; }  // (the server noted it too)
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

// The message region (role="status"): a reason, the hint's message or an error. It stays until
// the next message.
export function showWhy(text, error = false) {
  $("why").textContent = people(text);
  $("why").classList.toggle("error", error);
}

function say(text) {
  $("said").textContent = text;
}

function gameLink(id) {
  const url = new URL(location.href);
  url.search = "";
  url.hash = "";
  url.searchParams.set("game", id);
  return url;
}

// Show a game. `nav`: "push" (a new game: its own history entry), "replace" (the page's first
// game, or a link normalised) or "none" (the browser went back or forward to it).
export function setView(v, nav = "none") {
  const first = !play.view || play.view.id !== v.id;
  play.view = v;
  play.receivedAt = performance.now();
  play.replayView = null;
  play.pick = null;
  play.because = null;
  play.reading = null;
  if (first) {
    play.hints = null;  // another game's hints never show on this one
    play.cursor = [Math.min(play.cursor[0], v.height - 1), Math.min(play.cursor[1], v.width - 1)];
    const url = gameLink(v.id);
    if (nav === "push") history.pushState({ game: v.id }, "", url);
    else if (nav === "replace") history.replaceState({ game: v.id }, "", url);
    $("link").href = url.href;
    $("link").textContent = url.href;
    matchControls(v);
    touchCellSize(v.width, v.height);
  }
  $("hints-badge").hidden = !v.hints_used;
  const badge = $("no-guess-badge");
  badge.hidden = !v.no_guess;
  // until the first click has found its board, none is promised yet (a dense one may not be found)
  badge.textContent = !v.no_guess ? ""
    : v.moves === 0 && v.outcome === "playing" ? "no guess: the board is made at the first click"
    : v.no_guess === "local" ? "no guess needed (numbers alone)"
    : "no guess needed (counting mines)";
  showEnd();
  tick();
}

// The new-game menus show the game on screen (a link or Back may bring another kind of game).
function matchControls(v) {
  const preset = presetOf(v);
  $("preset").value = preset;
  $("custom").hidden = preset !== "custom";
  if (preset === "custom") {
    $("cw").value = v.width;
    $("ch").value = v.height;
    $("cm").value = v.mines;
  }
  $("rule").value = v.rule;
  $("no-guess").value = v.no_guess || "";
}

function showEnd() {
  const v = play.view;
  const over = v.outcome !== "playing";
  $("end").hidden = !over;
  $("review").hidden = true;
  // the server replays a board only once its game is over or when its seed was chosen: a copy of
  // a board in play could be lost at once to show its mines
  $("restart").title = over || v.seed ? "the same board again (key r)"
    : "a new board of the same kind; the same board once this game is over (key r)";
  if (!over) return;
  const secs = v.elapsed.toFixed(1);
  $("result").textContent = `${v.outcome === "won" ? "Won" : "Lost"} — 3BV ${v.bbbv ?? "–"}, ` +
    `${secs} s, ${v.total_moves} moves, seed ${v.seed}`;
  const s = $("rp-slider");
  s.max = v.total_moves;
  s.value = v.total_moves;
  $("rp-label").textContent = `move ${v.total_moves} / ${v.total_moves}`;
}

// One request at a time per page, in click order (the server serialises too).
export function queue(fn) {
  play.busy = play.busy.then(fn).catch(async (e) => {
    showWhy(explain(e), true);
    await refreshView();  // another tab may have moved on: show the game as it is now
  });
  return play.busy;
}

// An error in words (the server's message says what can be found and what to try when a
// no-guess board could not be made: nothing is added here, so the advice is given once).
function explain(e) {
  return e.message;
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

function opened(before, after) {
  let n = 0;
  for (let r = 0; r < after.length; r++) {
    for (let c = 0; c < after[r].length; c++) {
      const a = after[r][c];
      if (a >= "0" && a <= "8" && !(before[r][c] >= "0" && before[r][c] <= "8")) n++;
    }
  }
  return n;
}

// The live region's words for a move: the cell it opened and its number when it opened one (a
// chord's too: the cell opened, not the number chorded), else how many it opened.
function describe(kind, r, c, v, nv) {
  const at = cellName(r, c);
  let text;
  if (kind === "flag") {
    text = nv.rows[r][c] === "F" ? `Flagged ${at}.` : `Unflagged ${at}.`;
  } else if (nv.outcome === "lost") {
    text = `A mine at ${nv.exploded ? cellName(...nv.exploded) : at}: game lost.`;
  } else {
    const n = opened(v.rows, nv.rows);
    const one = n === 1 && nv.opened && nv.opened.length === 1 ? nv.opened[0] : null;
    const ch = one ? nv.rows[one[0]][one[1]] : null;
    text = one ? `${kind === "chord" ? "Chord opened " : ""}${cellName(...one)}: ${ch === "0" ? "empty" : ch}.`
      : `${kind === "chord" ? "Chord opened" : "Opened"} ${n} cell${n === 1 ? "" : "s"}.`;
  }
  if (nv.outcome === "won") text += ` Won in ${nv.elapsed.toFixed(1)} s!`;
  return text;
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
    if ($("why").classList.contains("error")) showWhy("");  // an error is over once a move went
    play.hints = nv.hints || null;  // one request per click: the hints come with the move
    if (play.hints && play.hints.error) showWhy(play.hints.error, true);
    redraw();
    if (nv.hints_pending) await refreshHints();  // the server was too busy to send them with it
    if (nv.moves !== v.moves) {
      say(describe(kind, r, c, v, nv));
      announce("demine:move", { game: nv, preset: presetOf(nv), move: { kind, row: r, col: c } });
      if (nv.outcome !== "playing") announce("demine:game-ended", { game: nv, preset: presetOf(nv) });
    }
    await fetchGuess();
  });
}

// Whether the hints shown prove the cell at r, c a mine.
function provenMine(r, c) {
  const h = play.hints;
  return Boolean(hintsOn() && h && !h.error && h.mines.some(([mr, mc]) => mr === r && mc === c));
}

// A tap, a left click or Space on a cell: a number chords, a covered cell opens (in flag mode:
// flags), a flag stays (in flag mode: comes off). With Hints on, the page never opens a cell it
// shows as a proven mine: that cell is flagged instead (what a player means who has read that it
// is a mine), and a chord that would open one (a wrong flag around the number) is not sent.
export function primary(r, c, flagMode = false) {
  const ch = play.view.rows[r][c];
  if (ch >= "1" && ch <= "8") return chord(r, c);
  if (ch === "0") return undefined;
  if (flagMode) return act("flag", r, c);
  if (ch === "F") return undefined;
  if (provenMine(r, c)) {
    showWhy(`Flagged ${cellName(r, c)}: logic proves it a mine, so it is not opened.`);
    return act("flag", r, c);
  }
  return act("reveal", r, c);
}

// A chord on the number at r, c (a tap, a left or middle click, Space), unless it would open a
// cell the hints show as a proven mine.
export function chord(r, c) {
  const risky = chordRisk(r, c);
  if (risky) {
    showWhy(`Not chorded: it would open ${cellName(...risky)}, which logic proves a mine ` +
      "(a flag around this number is wrong).", true);
    return undefined;
  }
  return act("chord", r, c);
}

// The proven mine a chord on the number at r, c would open (its flags around match the number,
// and a covered neighbour is proven a mine), or null.
function chordRisk(r, c) {
  const v = play.view;
  if (!hintsOn()) return null;
  let flags = 0;
  let mine = null;
  for (let dr = -1; dr <= 1; dr++) {
    for (let dc = -1; dc <= 1; dc++) {
      const rr = r + dr, cc = c + dc;
      if ((!dr && !dc) || rr < 0 || cc < 0 || rr >= v.height || cc >= v.width) continue;
      if (v.rows[rr][cc] === "F") flags++;
      else if (v.rows[rr][cc] === "H" && !mine && provenMine(rr, cc)) mine = [rr, cc];
    }
  }
  return flags === Number(v.rows[r][c]) ? mine : null;
}

// The first game on the page comes from the link, else is new (nav "replace"); New game and
// Restart push a history entry, so Back returns to the game before.
export async function newGame(ev, nav = "push", keepMessage = false) {
  if (ev) ev.preventDefault();
  const preset = $("preset").value;
  const seed = $("seed").value.trim();
  const body = { rule: $("rule").value, seed: seed || null, no_guess: $("no-guess").value || null };
  if (preset === "custom") {
    body.width = Number($("cw").value);
    body.height = Number($("ch").value);
    body.mines = Number($("cm").value);
  } else {
    body.preset = preset;
  }
  await queue(async () => {
    const v = await api("/api/games", body, ownerHeader());
    $("seed").value = "";  // the next game draws a new board unless a seed is typed again
    $("options-toggle").setAttribute("aria-expanded", "false");  // (a phone folds them away again)
    started(v, play.view ? nav : "replace", false, keepMessage);
    await refreshHints();
  });
}

function started(v, nav, resumed, keepMessage = false) {
  setView(v, nav);
  if (!keepMessage) showWhy("");
  say(`${resumed ? "Resumed" : "New"} game: ${v.width} by ${v.height}, ${v.mines} mines.`);
  announce("demine:game-started", { game: v, preset: presetOf(v), resumed });
}

// The same board again (its size, rule and seed), as a new game, once the game is over or when
// its seed was chosen; a game in play gets a new board of its kind (the server's reply says which).
export async function restart() {
  const v = play.view;
  if (!v) return;
  await queue(async () => {
    const nv = await api(`/api/games/${encodeURIComponent(v.id)}/restart`, {}, ownerHeader());
    started(nv, "push", false);
    if (!nv.same_board) {
      showWhy("A new board of the same kind: Restart replays a board once its game is over " +
        "(or when you chose its seed).");
    }
    await refreshHints();
  });
}

// The link to this game (and, once it is over, its seed and rule), shared or copied.
export async function share() {
  const v = play.view;
  if (!v) return;
  const url = gameLink(v.id).href;
  const board = `${v.width}x${v.height}/${v.mines}, first click ${v.rule}` +
    (v.no_guess ? `, no guess (${v.no_guess})` : "") + (v.seed ? `, seed ${v.seed}` : "");
  const text = `demine ${board}`;
  try {
    if (navigator.share) {
      await navigator.share({ title: "demine", text, url });
      showWhy(`Shared: ${url} (${board})`);
      return;
    }
    await navigator.clipboard.writeText(`${text}: ${url}`);
    showWhy(`Link copied: ${url} (${board})`);
  } catch {
    showWhy(`This game's link: ${url} (${board})`);
  }
}

// A game from a link, a reload, or Back/Forward (nav "none").
export async function loadGame(id, nav = "replace") {
  try {
    const v = await api(`/api/games/${encodeURIComponent(id)}`);
    await queue(async () => {
      started(v, nav, true);
      await refreshHints();
    });
  } catch (e) {
    const why = e.status === 404
      ? "This game link is unknown or has expired (games are deleted some days after their last move)."
      : `This game could not be loaded: ${e.message}.`;
    showWhy(`${why} Here is a new game instead.`, true);
    await newGame(null, "replace", true);
  }
}

// Show why a hinted cell is what it is (hover, or a first tap). True if there was a reason.
export function readCell(rc) {
  const h = play.hints;
  let because = null;
  let k = null;
  if (rc && h && !h.error && hintsOn() && play.view.outcome === "playing" && !play.replayView) {
    k = key(...rc);
    const reason = h.reasons[k];
    if (reason) {
      showWhy(reason.text);
      because = new Set(reason.numbers.map(([r, c]) => key(r, c)));
    } else if (h.best && h.best.cell && key(...h.best.cell) === k) {
      showWhy(bestText(h.best));
      because = new Set();
    }
  }
  play.reading = because ? k : null;
  const changed = (because ? [...because].join() : "") !== (play.because ? [...play.because].join() : "");
  play.because = because && because.size ? because : null;
  if (changed) redraw();
  return because !== null;
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
    if (h.cell) cellAt($("board"), ...h.cell).scrollIntoView({ block: "center", inline: "center" });
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
