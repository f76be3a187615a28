// The player's record as data: one record per finished game, the statistics per board and rule,
// and the JSON and CSV exports. Pure functions (no page, no storage), so a test can call them.
//
// A record (the same shape in the browser and on the server, see demine/web/records.py):
//   {id, width, height, mines, rule, no_guess, outcome: "won" | "lost", elapsed (s), bbbv,
//    solved_bbbv, moves, seed, ended (s since the epoch)}

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
    ended: Math.round(endedAt * 1000) / 1000,
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

// The rule as the page says it: the first-click rule, and whether the board was guess-free.
export function ruleName(r) {
  return r.no_guess ? `${r.rule}, ${NO_GUESS[r.no_guess] || r.no_guess}` : r.rule;
}

// Records grouped by board and rule: the same key for the same kind of game.
export function groupKey(r) {
  return `${r.width}x${r.height}/${r.mines}|${r.rule}|${r.no_guess || ""}`;
}

export function byEnd(records) {
  return [...records].sort((a, b) => a.ended - b.ended || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

// The statistics of each board and rule, most played first:
//   {key, board, rule, played, won, winRate (0..1), bestTime (s, won games), bestRate (3BV/s,
//    won games), streak (wins in a row at the end), bestStreak}
export function computeStats(records) {
  const groups = new Map();
  for (const r of byEnd(records)) {
    const k = groupKey(r);
    let g = groups.get(k);
    if (!g) {
      g = { key: k, board: boardName(r), rule: ruleName(r), played: 0, won: 0,
            bestTime: null, bestRate: null, streak: 0, bestStreak: 0 };
      groups.set(k, g);
    }
    g.played += 1;
    if (r.outcome === "won") {
      g.won += 1;
      g.streak += 1;
      g.bestStreak = Math.max(g.bestStreak, g.streak);
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
  "elapsed", "bbbv", "solved_bbbv", "bbbv_per_s", "moves", "seed",
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
