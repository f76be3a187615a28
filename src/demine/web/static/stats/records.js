// The player's record as data: one record per finished game, the statistics per board and rule,
// and the JSON and CSV exports. Pure functions (no page, no storage), so a test can call them.
//
// A record (the same shape in the browser and on the server, see demine/web/records.py):
//   {id, width, height, mines, rule, no_guess, outcome: "won" | "lost", elapsed (s), bbbv,
//    solved_bbbv, moves, seed, ended (s since the epoch), hints_used}
// hints_used: true when hints (or the probabilities) were shown while the game was played; such
// games are counted apart and set no best time or 3BV/s. Records made before it was kept have
// none (null): they are counted as they were, with the games played alone.

const PRESETS = { beginner: [9, 9, 10], intermediate: [16, 16, 40], expert: [30, 16, 99] };
const NAMES = { beginner: "Beginner", intermediate: "Intermediate", expert: "Expert" };
const NO_GUESS = { complete: "no guess", local: "no guess (numbers alone)" };

// The record of a finished game from the server's view of it (null while it is played).
export function recordFromView(v, endedAt = Date.now() / 1000) {
  if (!v || v.outcome === "playing") return null;
  return {
    id: v.id, width: v.width, height: v.height, mines: v.mines, rule: v.rule,
    no_guess: v.no_guess ?? null, outcome: v.outcome, elapsed: v.elapsed,
    bbbv: v.bbbv ?? null, solved_bbbv: v.solved_bbbv ?? null,
    moves: v.total_moves ?? v.moves, seed: v.seed ?? null,
    ended: Math.round(endedAt * 1000) / 1000, hints_used: v.hints_used ?? null,
  };
}

// 3BV per second: the 3BV cleared over the time (a won game's is its whole 3BV); null without time.
export function rate(solved, elapsed) {
  if (solved == null || !(elapsed > 0)) return null;
  return solved / elapsed;
}

export function recordRate(r) {
  return rate(r.outcome === "won" ? r.bbbv : r.solved_bbbv, r.elapsed);
}

// "Expert", "Beginner" or "20x20/50" for a board's size.
export function boardName(r) {
  for (const [name, [w, h, m]] of Object.entries(PRESETS)) {
    if (r.width === w && r.height === h && r.mines === m) return NAMES[name];
  }
  return `${r.width}x${r.height}/${r.mines}`;
}

// The rule as the page says it: the first-click rule, whether the board was guess-free, and
// whether hints were shown.
export function ruleName(r) {
  const rule = r.no_guess ? `${r.rule}, ${NO_GUESS[r.no_guess] || r.no_guess}` : r.rule;
  return r.hints_used ? `${rule}, with hints` : rule;
}

// Records grouped by board and rule: the same key for the same kind of game (games played with
// hints apart from those played alone).
export function groupKey(r) {
  return `${r.width}x${r.height}/${r.mines}|${r.rule}|${r.no_guess || ""}|${r.hints_used ? "hints" : ""}`;
}

export function byEnd(records) {
  return [...records].sort((a, b) => a.ended - b.ended || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

// The statistics of each board and rule, most played first:
//   {key, board, rule, hints, played, won, winRate (0..1), bestTime (s, won games), bestRate
//    (3BV/s, won games), streak (wins in a row at the end), bestStreak}
// A group of games played with hints (hints true) has no best time nor best 3BV/s (null): those
// are the player's own.
export function computeStats(records) {
  const groups = new Map();
  for (const r of byEnd(records)) {
    const k = groupKey(r);
    let g = groups.get(k);
    if (!g) {
      g = { key: k, board: boardName(r), rule: ruleName(r), hints: Boolean(r.hints_used), played: 0,
            won: 0, bestTime: null, bestRate: null, streak: 0, bestStreak: 0 };
      groups.set(k, g);
    }
    g.played += 1;
    if (r.outcome === "won") {
      g.won += 1;
      g.streak += 1;
      g.bestStreak = Math.max(g.bestStreak, g.streak);
      if (g.hints) continue;  // an assisted win sets no best
      if (g.bestTime === null || r.elapsed < g.bestTime) g.bestTime = r.elapsed;
      const v = recordRate(r);
      if (v !== null && (g.bestRate === null || v > g.bestRate)) g.bestRate = v;
    } else {
      g.streak = 0;
    }
  }
  const out = [...groups.values()];
  for (const g of out) g.winRate = g.played ? g.won / g.played : 0;
  return out.sort((a, b) => b.played - a.played || (a.key < b.key ? -1 : 1));
}

export const CSV_COLUMNS = [
  "id", "ended", "board", "width", "height", "mines", "rule", "no_guess", "outcome",
  "elapsed", "bbbv", "solved_bbbv", "bbbv_per_s", "moves", "seed", "hints_used",
];

// One CSV field: quoted when it holds a comma, a quote or a line break. A seed (the one text the
// player chose) that a spreadsheet would read as a formula, such as "=1+1", gets a leading
// apostrophe; game ids are left as they are (they are keys: "-" may start one).
function field(value, guard = false) {
  if (value === null || value === undefined) return "";
  let s = String(value);
  if (guard && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCSV(records) {
  const lines = [CSV_COLUMNS.join(",")];
  for (const r of byEnd(records)) {
    const v = recordRate(r);
    const row = {
      ...r, ended: new Date(r.ended * 1000).toISOString(), board: boardName(r),
      bbbv_per_s: v === null ? null : v.toFixed(3),
    };
    lines.push(CSV_COLUMNS.map((c) => field(row[c], c === "seed")).join(","));
  }
  return lines.join("\r\n") + "\r\n";
}

export function toJSON(records, where = "browser") {
  return JSON.stringify({
    format: "demine-player-record", version: 1, exported: new Date().toISOString(), kept: where,
    games: byEnd(records), statistics: computeStats(records),
  }, null, 1);
}

const isInt = (x) => Number.isInteger(x) && x >= 0;
const isNum = (x) => typeof x === "number" && Number.isFinite(x) && x >= 0;

// A record read back from an export, with only the fields a record has; null when it is not one.
export function checkRecord(r) {
  if (!r || typeof r !== "object") return null;
  const ok = typeof r.id === "string" && r.id.length > 0 && r.id.length <= 64 &&
    isInt(r.width) && isInt(r.height) && isInt(r.mines) && ["safe", "zero", "none"].includes(r.rule) &&
    [null, undefined, "complete", "local"].includes(r.no_guess) && ["won", "lost"].includes(r.outcome) &&
    isNum(r.elapsed) && isNum(r.ended) && (r.bbbv == null || isInt(r.bbbv)) &&
    (r.solved_bbbv == null || isInt(r.solved_bbbv)) && (r.moves == null || isInt(r.moves)) &&
    (r.seed == null || (typeof r.seed === "string" && r.seed.length <= 64)) &&
    (r.hints_used == null || typeof r.hints_used === "boolean");
  if (!ok) return null;
  return {
    id: r.id, width: r.width, height: r.height, mines: r.mines, rule: r.rule, no_guess: r.no_guess ?? null,
    outcome: r.outcome, elapsed: r.elapsed, bbbv: r.bbbv ?? null, solved_bbbv: r.solved_bbbv ?? null,
    moves: r.moves ?? null, seed: r.seed ?? null, ended: r.ended, hints_used: r.hints_used ?? null,
  };
}

// The games of a JSON export (toJSON's, or a bare list): {games, refused (how many were not records)}.
export function fromJSON(text) {
  let data;
  try { data = JSON.parse(text); } catch (e) { throw new Error(`not JSON: ${e.message}`); }
  const list = Array.isArray(data) ? data : data && Array.isArray(data.games) ? data.games : null;
  if (!list) throw new Error("no list of games in it (expected a demine record export)");
  const games = list.map(checkRecord).filter(Boolean);
  return { games, refused: list.length - games.length };
}
