// The player's record on the page: the live 3BV/s and clicks during play, the statistics per board
// and rule, the list of games with links to their replay and review, the exports, and the choice
// of where the record is kept. It hears the game through the "demine:*" events (see game.js) and
// touches nothing else of the game.

import { download } from "../util.js";
import {
  boardName, byEnd, computeStats, fromJSON, rate, recordRate, ruleName, toCSV, toJSON,
} from "./records.js";
import { browserStore, choose, chosen, keeps, serverStore } from "./store.js";

const PAGE = 25;  // games listed at first, and added by "Show more"

const state = { view: null, receivedAt: 0, shown: PAGE, keeps: null, records: [] };

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else if (v === true) e.setAttribute(k, "");
    else if (v !== false && v !== null && v !== undefined) e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

const $ = (id) => document.getElementById(id);
const fixed = (x, n) => (x === null || x === undefined ? "–" : x.toFixed(n));

// ------------------------------------------------------------------ the live readout
function elapsed() {
  const v = state.view;
  if (!v) return 0;
  return v.running ? v.elapsed + (performance.now() - state.receivedAt) / 1000 : v.elapsed;
}

function tickLive() {
  const v = state.view;
  if (!v) return;
  const solved = v.outcome === "won" ? v.bbbv : v.solved_bbbv;
  $("live-rate").textContent = fixed(rate(solved, elapsed()), 2);
  $("live-clicks").textContent = String(v.moves);
}

function live(game) {
  state.view = game;
  state.receivedAt = performance.now();
  tickLive();
}

// ------------------------------------------------------------------ the panel
function build(panel) {
  const status = document.querySelector("#play .status");
  if (status) {
    // not live regions: read when asked, not announced four times a second
    status.append(
      el("span", { class: "live", title: "3BV cleared per second (what you can see cleared)" },
        "3BV/s ", el("span", { id: "live-rate", text: "–" })),
      el("span", { class: "live", title: "moves played: opens, chords and flags" },
        "Clicks ", el("span", { id: "live-clicks", text: "0" })));
  }
  const where = el("fieldset", { class: "record-where" },
    el("legend", { text: "Keep my record" }),
    el("label", {}, el("input", { type: "radio", name: "record-where", value: "browser", id: "record-browser" }),
      " in this browser"),
    el("label", {}, el("input", { type: "radio", name: "record-where", value: "server", id: "record-server" }),
      " on the server (anonymous)"));
  const token = el("div", { id: "record-token", class: "controls", hidden: true },
    el("label", {}, "Your token ",
      el("input", { id: "record-token-value", type: "password", readonly: true, size: "20", autocomplete: "off" })),
    el("button", { type: "button", id: "record-token-show", "aria-pressed": "false", text: "Show token" }),
    el("label", {}, "Use a token ",
      el("input", { id: "record-token-in", size: "20", autocomplete: "off", spellcheck: "false" })),
    el("button", { type: "button", id: "record-token-use", text: "Use token" }));
  const statsTable = el("table", { id: "stats-table", class: "record-table" },
    el("caption", { text: "Statistics per board and rule" }),
    el("thead", {}, el("tr", {}, ...["Board", "Rule", "Played", "Won", "Win rate", "Best time (s)",
      "Best 3BV/s", "Streak", "Best streak"].map((h, i) => el("th", { scope: "col", class: i >= 2 ? "num" : null, text: h })))),
    el("tbody"));
  const gamesTable = el("table", { id: "games-table", class: "record-table" },
    el("caption", { text: "Your games, newest first" }),
    el("thead", {}, el("tr", {}, ...["Ended", "Board", "Rule", "Result", "Time (s)", "3BV", "3BV/s",
      "Clicks", "Links"].map((h, i) => el("th", { scope: "col", class: i >= 4 && i < 8 ? "num" : null, text: h })))),
    el("tbody"));
  panel.replaceChildren(
    el("h2", { text: "Your games" }),
    where,
    el("p", { id: "record-note", class: "small" }),
    token,
    el("p", { id: "record-msg", class: "small", "aria-live": "polite" }),
    el("div", { class: "table-scroll", role: "region", "aria-label": "Statistics per board and rule", tabindex: "0" },
      statsTable),
    el("div", { class: "table-scroll", role: "region", "aria-label": "Your games", tabindex: "0" }, gamesTable),
    el("div", { class: "controls" },
      el("button", { type: "button", id: "record-more", hidden: true, text: "Show more games" }),
      el("button", { type: "button", id: "record-json", text: "Export JSON" }),
      el("button", { type: "button", id: "record-csv", text: "Export CSV" }),
      el("label", { class: "file" }, "Import JSON ",
        el("input", { type: "file", id: "record-import", accept: "application/json,.json" })),
      el("button", { type: "button", id: "record-delete", text: "Delete my record" })));
}

function say(text, error = false) {
  $("record-msg").textContent = text;
  $("record-msg").classList.toggle("error", error);
}

function describeWhere() {
  const k = state.keeps;
  const days = k ? `${Math.round(k.days)} days` : "a while";
  const store = chosen();
  $(`record-${store.where}`).checked = true;
  $("record-token").hidden = store.where !== "server";
  if (store.where === "browser") {
    $("record-note").textContent = "Kept in this browser only (IndexedDB): nothing is sent. " +
      "Clearing this site's data, or closing a private window, deletes it: export it (JSON) to keep a " +
      "copy, and import that file to bring it back. " +
      `The Replay and Review links open a game while the server keeps it (${days} after it ends).`;
  } else {
    $("record-token-value").value = serverStore.token() || "";
    $("record-note").textContent = `Kept on the server under an anonymous token: each game for ${days} ` +
      `after it ends (as the games themselves)${k ? `, at most ${k.max_games} games` : ""}; unused, ` +
      `it is deleted after ${days}. Nobody can read it without the token. The token is kept only in ` +
      "this browser: clearing this site's data loses it, and the way to your record with it, unless " +
      "you copied it (Show token). A copy in this browser, if any, stays as it is.";
  }
}

// A table row; the cells from `first` to `last` (numbers) are aligned right.
function row(cells, first, last) {
  return el("tr", {}, ...cells.map((c, i) => {
    const cls = i >= first && i <= last ? "num" : null;
    return c instanceof Node ? el("td", { class: cls }, c) : el("td", { class: cls, text: c });
  }));
}

function render() {
  const records = state.records;
  const stats = computeStats(records);
  $("stats-table").querySelector("tbody").replaceChildren(...stats.map((g) => row([
    g.board, g.rule, String(g.played), String(g.won), `${(100 * g.winRate).toFixed(1)}%`,
    fixed(g.bestTime, 2), fixed(g.bestRate, 2), String(g.streak), String(g.bestStreak),
  ], 2, 8)));
  if (!stats.length) {
    $("stats-table").querySelector("tbody").replaceChildren(
      el("tr", {}, el("td", { colspan: "9", text: "No finished game yet." })));
  }
  const newest = byEnd(records).reverse();
  $("games-table").querySelector("tbody").replaceChildren(...newest.slice(0, state.shown).map((r) => {
    const when = new Date(r.ended * 1000);
    const link = `/?game=${encodeURIComponent(r.id)}`;
    const links = el("span", { class: "links" },
      el("a", { href: link, "aria-label": `replay of the game ended ${when.toLocaleString()}`, text: "Replay" }),
      " ",
      el("a", { href: `${link}&review=1`, "aria-label": `review of the game ended ${when.toLocaleString()}`, text: "Review" }));
    const bbbv = r.outcome === "won" ? String(r.bbbv ?? "–") : `${r.solved_bbbv ?? "–"} of ${r.bbbv ?? "–"}`;
    return row([
      el("time", { datetime: when.toISOString(), text: when.toLocaleString([], { dateStyle: "short", timeStyle: "short" }) }),
      boardName(r), ruleName(r), r.outcome === "won" ? "won" : "lost", fixed(r.elapsed, 2), bbbv,
      fixed(recordRate(r), 2), String(r.moves ?? "–"), links,
    ], 4, 7);
  }));
  $("record-more").hidden = newest.length <= state.shown;
  $("games-table").querySelector("caption").textContent =
    `Your games, newest first (${Math.min(state.shown, newest.length)} of ${newest.length} shown)`;
}

// Read the record again and show it; `quiet`: a failure keeps the message shown (it says why).
async function reload(quiet = false) {
  const store = chosen();
  try {
    state.records = await store.list();
  } catch (e) {
    state.records = [];
    if (!quiet) say(store.where === "server"
      ? `Your record on the server cannot be read: ${e.message}. Use your token again, or keep it in this browser.`
      : `This browser's store cannot be read: ${e.message}`, true);
  }
  render();
}

async function onEnded(ev) {
  const store = chosen();
  let failed = false;
  try {
    const rec = await store.add(ev.detail.game);
    if (rec) say(`Game recorded (${store.where === "server" ? "on the server" : "in this browser"}).`);
    else if (store.where === "server") {
      say("This game is not in your record on the server: another browser made it (a shared link), " +
        "and a game joins only the record of the browser or player that made it.");
    } else say("");
  } catch (e) {
    failed = true;
    if (store.where === "server") {
      // kept in this browser meanwhile, so the game is not lost; sent again with the next game
      await browserStore.add(ev.detail.game).catch(() => null);
      say(`This game could not be sent to the server: ${e.message}. It is kept in this browser ` +
        "meanwhile and sent with your next game.", true);
    } else {
      say(`This game could not be recorded: ${e.message}`, true);
    }
  }
  await reload(failed);
}

// The words for the games the server refused: another browser or player made them, or they are in
// another record already (a game joins one record, its maker's).
function notMine(out) {
  const n = out.refused ? out.refused.length : 0;
  return n ? `; ${n} ${n === 1 ? "was" : "were"} made in another browser or are in another record` : "";
}

async function switchTo(where) {
  if (where === chosen().where) return;
  try {
    if (where === "server") {
      if (!serverStore.token()) await serverStore.create();
      const local = await browserStore.list();
      choose("server");
      const out = local.length ? await serverStore.send(local.map((r) => r.id))
        : { added: [], missing: [], refused: [] };
      say(local.length
        ? `Kept on the server now: ${out.added.length} of this browser's ${local.length} games copied; ` +
          `${out.missing.length} are no longer on the server${notMine(out)}, and stay in this browser only.`
        : "Kept on the server now.");
    } else {
      const remote = serverStore.token() ? await serverStore.list().catch(() => []) : [];
      await browserStore.put(remote);
      choose("browser");
      say(`Kept in this browser now${remote.length ? `: ${remote.length} games copied from the server` : ""}.`);
    }
  } catch (e) {
    say(`Could not switch: ${e.message}`, true);
  }
  describeWhere();
  await reload();
}

async function useToken() {
  const given = $("record-token-in").value.trim();
  if (!given) return;
  const before = serverStore.token();
  serverStore.setToken(given);
  try {
    await serverStore.about();
    choose("server");
    $("record-token-in").value = "";
    say("Token accepted: this is your record on the server.");
  } catch (e) {
    if (before) serverStore.setToken(before); else serverStore.forget();
    say(`That token was refused: ${e.message}`, true);
  }
  describeWhere();
  await reload();
}

async function importFile() {
  const input = $("record-import");
  const file = input.files && input.files[0];
  if (!file) return;
  input.value = "";
  const store = chosen();
  try {
    const { games, refused } = fromJSON(await file.text());
    const skipped = refused ? `; ${refused} entries were not games and were skipped` : "";
    if (store.where === "browser") {
      await browserStore.put(games);
      say(`Imported ${games.length} games into this browser${skipped}.`);
    } else {
      // the server records a game from its own copy: those it no longer has cannot be imported
      const out = await serverStore.send(games.map((g) => g.id));
      say(`Imported ${out.added.length} of ${games.length} games on the server; ` +
        `${out.missing.length} are no longer on the server${notMine(out)}${skipped}.`);
    }
  } catch (e) {
    say(`Could not import ${file.name}: ${e.message}`, true);
  }
  await reload();
}

async function remove() {
  const store = chosen();
  const what = store.where === "server" ? "your record on the server, and its token" : "your record in this browser";
  if (!confirm(`Delete ${what}? This cannot be undone.`)) return;
  try {
    await store.clear();
    if (store.where === "server") choose("browser");
    say("Deleted.");
  } catch (e) {
    say(`Could not delete: ${e.message}`, true);
  }
  describeWhere();
  await reload();
}

export function setupStats() {
  const panel = $("stats-panel");
  if (!panel) return;
  build(panel);
  describeWhere();
  keeps().then((k) => { state.keeps = k; describeWhere(); }).catch(() => {});
  for (const r of document.querySelectorAll('input[name="record-where"]')) {
    r.addEventListener("change", () => switchTo(r.value));
  }
  $("record-token-show").addEventListener("click", () => {
    const input = $("record-token-value");
    const show = input.type === "password";
    input.type = show ? "text" : "password";
    $("record-token-show").setAttribute("aria-pressed", String(show));
  });
  $("record-token-use").addEventListener("click", useToken);
  $("record-more").addEventListener("click", () => { state.shown += 2 * PAGE; render(); });
  $("record-json").addEventListener("click", () =>
    download("demine-record.json", new Blob([toJSON(state.records, chosen().where)], { type: "application/json" })));
  $("record-csv").addEventListener("click", () =>
    download("demine-record.csv", new Blob([toCSV(state.records)], { type: "text/csv" })));
  $("record-import").addEventListener("change", importFile);
  $("record-delete").addEventListener("click", remove);

  let reviewAsked = new URL(location.href).searchParams.get("review") === "1";
  document.addEventListener("demine:game-started", (ev) => {
    live(ev.detail.game);
    if (reviewAsked) {
      // a Review link: open the finished game's review once, and keep the address plain
      reviewAsked = false;
      const url = new URL(location.href);
      url.searchParams.delete("review");
      history.replaceState(history.state, "", url);
      if (ev.detail.game.outcome !== "playing") $("review-btn")?.click();
    }
  });
  document.addEventListener("demine:move", (ev) => live(ev.detail.game));
  document.addEventListener("demine:game-ended", (ev) => { live(ev.detail.game); onEnded(ev); });
  setInterval(tickLive, 500);
  reload();
}
