// The Train tab: puzzles from real positions, answered by a click or a tap, judged at once by the
// server (/api/puzzles, see demine/web/puzzles.py), with the proof outlined as the hints do.
// The player's rating (Glicko-2, computed by the server from the rating the page sends) and streak
// are kept in this browser's IndexedDB, beside the record of games (database "demine-training").

import { api, answer as answerOf } from "./api.js";
import { cellAt, drawBoard, eventCell, setCellSize } from "./board.js";
import { touchFirst } from "./settings.js";
import { chosen } from "./stats/store.js";
import { $, key, MOVES, people } from "./util.js";

const DB = "demine-training";
const STORE = "profile";
const FRESH = { rating: 1500, rd: 350, volatility: 0.06, streak: 0, best: 0, solved: 0, attempted: 0, seen: [], daily: null };

const tr = { puzzle: null, rows: null, profile: { ...FRESH }, done: false, marked: [], fifty: null, flag: false,
  cursor: [0, 0], overlay: {} };

function request(req) {
  return new Promise((resolve, reject) => { req.onsuccess = () => resolve(req.result); req.onerror = () => reject(req.error); });
}
let opened = null;
function database() {
  if (!opened) {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    opened = request(req);
    opened.catch(() => { opened = null; });
  }
  return opened;
}
async function loadProfile() {
  try {
    const db = await database();
    const got = await request(db.transaction(STORE).objectStore(STORE).get("me"));
    if (got) tr.profile = { ...FRESH, ...got };
  } catch { /* private mode: the rating lives for this page only */ }
}
async function saveProfile() {
  try {
    const db = await database();
    const t = db.transaction(STORE, "readwrite");
    t.objectStore(STORE).put(tr.profile, "me");
    await new Promise((resolve, reject) => { t.oncomplete = resolve; t.onerror = () => reject(t.error); });
  } catch { say("Your rating could not be saved in this browser (is storage blocked?).", true); }
}

function say(text, error = false) {
  const el = $("tr-msg");
  el.textContent = people(text);
  el.classList.toggle("error", error);
}

function showProfile() {
  const p = tr.profile;
  $("tr-rating").textContent = String(Math.round(p.rating));
  $("tr-streak").textContent = String(p.streak);
  $("tr-best").textContent = String(p.best);
  $("tr-solved").textContent = `${p.solved} of ${p.attempted}`;
}

// Cells as big as the box's width allows, from 24 px (32 on a touch screen: a finger's target;
// a wider board pans in its box) to 44; the page scrolls down the board, the question and the
// verdict staying in the sticky bar above it.
function sizeBoard() {
  if (!tr.puzzle) return;
  const board = $("tr-board");
  const cols = tr.rows[0].length;
  const labels = 8 * String(tr.rows.length).length + 6;
  const fit = Math.floor((board.parentElement.clientWidth - labels - 7) / cols) - 1;
  setCellSize(board, Math.max(touchFirst ? 32 : 24, Math.min(44, fit)));
}

function redraw() {
  if (!tr.puzzle) return;
  const board = $("tr-board");
  drawBoard(board, tr.rows, { ...tr.overlay, cursor: tr.done ? undefined : key(...tr.cursor) });
  const cur = cellAt(board, ...tr.cursor);
  if (cur) board.setAttribute("aria-activedescendant", cur.id);
}

const KIND_WORDS = { safe: "Find a safe cell", all: "Decide every proven cell", guess: "Best guess", coin: "50/50?" };

function show(p) {
  tr.puzzle = p;
  $("tr-board").dataset.puzzle = p.id;
  tr.rows = p.rows.slice();
  tr.done = false;
  tr.marked = [];
  tr.fifty = null;
  tr.overlay = { safe: new Set(), mines: new Set() };
  if (p.pair && p.pair.length) tr.overlay.because = new Set(p.pair.map(([r, c]) => key(r, c)));
  tr.cursor = [0, 0];
  $("tr-question").textContent = p.question + (p.mines !== null ? ` The board holds ${p.mines} mines.` : "");
  const tries = p.attempts ? ` · solved ${p.solved} of ${p.attempts} tries` : "";
  $("tr-meta").textContent = `${KIND_WORDS[p.kind]} · ${p.difficulty} (${p.rating}${tries}) · themes: ${p.themes.join(", ")} · from ${p.source}`;
  $("tr-coin").hidden = p.kind !== "coin";
  for (const b of ["tr-yes", "tr-no"]) $(b).setAttribute("aria-pressed", "false");
  $("tr-flagbar").hidden = p.kind !== "all";
  setFlag(false);
  say(p.kind === "coin" ? "First your call: a true 50/50, or not yet? Then the cell to open." : "Your move: click or tap a cell.");
  redraw();
  sizeBoard();
}

async function next() {
  const params = new URLSearchParams({
    kind: $("tr-kind").value, theme: $("tr-theme").value, difficulty: $("tr-difficulty").value,
    rating: String(Math.round(tr.profile.rating)), seen: tr.profile.seen.slice(-200).join(","),
  });
  try { show(await api(`/api/puzzles/next?${params}`)); } catch (e) { say(e.message, true); }
}

async function daily() {
  try {
    const p = await api("/api/puzzles/daily");
    show(p);
    if (tr.profile.daily === p.daily) say("Today's puzzle (you have answered it already: this one does not count again).");
    else say("Today's puzzle: the same for everyone today.");
  } catch (e) { say(e.message, true); }
}

function setFlag(on) {
  tr.flag = on;
  $("tr-flag").setAttribute("aria-pressed", String(on));
}

function setCall(yes) {
  tr.fifty = yes;
  $("tr-yes").setAttribute("aria-pressed", String(yes));
  $("tr-no").setAttribute("aria-pressed", String(!yes));
  say(yes ? "A true 50/50: now open one of the pair." : "Not yet: now open the cell that tells you more first.");
}

// An answer, sent with the player's token when their record is kept on the server (the server then
// counts one attempt per puzzle for the player, not for the address); a token the server no longer
// knows is dropped for this answer.
async function post(path, body) {
  const store = chosen();
  const token = store.where === "server" ? store.token() : null;
  const send = (auth) => fetch(path, {
    method: "POST", body: JSON.stringify(body),
    headers: { "Content-Type": "application/json", ...(auth ? { Authorization: `Bearer ${auth}` } : {}) },
  });
  let res = await send(token);
  if (token && res.status === 401) res = await send(null);
  return answerOf(res);
}

// Answers go to the server one at a time, in the order given: a click made while the last one is
// still being judged waits its turn (it used to be dropped, so a quick player lost a move on a slow
// connection). A click queued for a puzzle that has since been left is not sent.
let answering = Promise.resolve();
function answer(r, c, flag) {
  const p = tr.puzzle;
  answering = answering.then(() => (tr.puzzle === p ? answerNow(r, c, flag) : undefined)).catch((e) => say(e.message, true));
  return answering;
}

async function answerNow(r, c, flag) {
  const p = tr.puzzle;
  if (!p || tr.done) return;
  if (tr.rows[r][c] !== "H" || tr.overlay.safe.has(key(r, c))) { say("Choose a covered cell."); return; }
  if (p.kind === "coin" && tr.fifty === null) { say("First your call: press \"True 50/50\" or \"Not yet\".", true); return; }
  try {
    const counts = !(tr.profile.daily && p.daily && tr.profile.daily === p.daily);
    const body = { cell: [r, c], flag, fifty: tr.fifty, marked: tr.marked, player: counts ? tr.profile : null };
    const v = await post(`/api/puzzles/${p.id}/answer`, {
      ...body, player: body.player && { rating: body.player.rating, rd: body.player.rd, volatility: body.player.volatility },
    });
    judged(r, c, flag, v, counts);
  } catch (e) { say(e.message, true); }
}

function judged(r, c, flag, v, counts) {
  const p = tr.puzzle;
  const o = tr.overlay;
  if (v.right && p.kind === "all") {
    tr.marked.push([r, c]);
    if (flag) { const row = tr.rows[r]; tr.rows[r] = row.slice(0, c) + "F" + row.slice(c + 1); } else o.safe.add(key(r, c));
  }
  o.because = new Set((v.proof || []).map(([rr, cc]) => key(rr, cc)));
  o.pick = v.cell ? key(...v.cell) : undefined;
  if (v.done) {
    tr.done = true;
    for (const [rr, cc] of v.answer) {
      const k = key(rr, cc);
      if (v.mines.some(([mr, mc]) => mr === rr && mc === cc)) { if (tr.rows[rr][cc] !== "F") o.mines.add(k); } else if (p.kind !== "guess" && p.kind !== "coin") o.safe.add(k);
    }
    if (p.kind === "guess" || p.kind === "coin") o.best = key(...v.answer[0]);
    if (!v.right) o.played = key(r, c);
    if (counts) {
      const prof = tr.profile;
      const before = prof.rating;
      if (v.player) Object.assign(prof, v.player);
      prof.attempted += 1;
      if (v.right) { prof.solved += 1; prof.streak += 1; prof.best = Math.max(prof.best, prof.streak); } else prof.streak = 0;
      prof.seen = [...prof.seen.filter((id) => id !== p.id), p.id].slice(-1000);
      if (p.daily) prof.daily = p.daily;
      saveProfile();
      showProfile();
      const d = Math.round(prof.rating - before);
      say(`${v.message} Rating ${Math.round(prof.rating)} (${d >= 0 ? "+" : ""}${d}), streak ${prof.streak}.`, !v.right);
    } else say(v.message, !v.right);
  } else say(v.message, !v.right);
  redraw();
}

async function fillThemes() {
  try {
    const t = await api("/api/puzzles/themes");
    const sel = $("tr-theme");
    for (const th of t.themes) {
      const o = document.createElement("option");
      o.value = th.name;
      o.textContent = `${th.name} (${th.count})`;
      sel.append(o);
    }
  } catch (e) { say(e.message, true); }
}

function keys(ev) {
  if (!tr.puzzle || tr.done) return;
  if (MOVES[ev.key]) {
    ev.preventDefault();
    const [dr, dc] = MOVES[ev.key];
    tr.cursor = [Math.max(0, Math.min(tr.rows.length - 1, tr.cursor[0] + dr)), Math.max(0, Math.min(tr.rows[0].length - 1, tr.cursor[1] + dc))];
    redraw();
    cellAt($("tr-board"), ...tr.cursor).scrollIntoView({ block: "nearest", inline: "nearest" });
  } else if (ev.key === " " || ev.key === "Enter") {
    ev.preventDefault();
    answer(...tr.cursor, tr.flag);
  } else if ((ev.key === "f" || ev.key === "F") && tr.puzzle.kind === "all") {
    ev.preventDefault();
    answer(...tr.cursor, true);
  }
}

let started = false;
// Called when the tab is first shown: the first puzzle is fetched then, not on every page load.
export async function startTrain() {
  if (started) return;
  started = true;
  await loadProfile();
  showProfile();
  fillThemes();
  next();
}

export function setupTrain() {
  const board = $("tr-board");
  board.addEventListener("click", (ev) => {
    const rc = eventCell(ev);
    if (rc) { tr.cursor = rc; answer(...rc, tr.flag); }
  });
  board.addEventListener("contextmenu", (ev) => {
    ev.preventDefault();
    const rc = eventCell(ev);
    if (rc && tr.puzzle && tr.puzzle.kind === "all") answer(...rc, true);
  });
  board.addEventListener("keydown", keys);
  window.addEventListener("resize", sizeBoard);
  $("tr-next").addEventListener("click", next);
  $("tr-daily").addEventListener("click", daily);
  $("tr-flag").addEventListener("click", () => setFlag(!tr.flag));
  $("tr-yes").addEventListener("click", () => setCall(true));
  $("tr-no").addEventListener("click", () => setCall(false));
  for (const id of ["tr-kind", "tr-theme", "tr-difficulty"]) $(id).addEventListener("change", next);
}
