// JSMinesweeper's solver (D. N. Hill, MIT) played headless under Node, for demine's benchmarks.
//
//   node benchmarks/jsm_driver.js SOURCE
//
// SOURCE is JSMinesweeper's folder (the one holding index.html). Its scripts are read from there
// at run time, in index.html's order, into one `vm` context with stand-ins for the few browser
// globals they touch; none of its code is kept in demine. This file is demine's own harness: it
// plays a given layout from a given first click the way JSMinesweeper's own bulk play (`bulkRun`
// in its main.js) does, and asks its solver for a move in a given position.
//
// Protocol: one JSON object a line on stdin, one answer a line on stdout, in order.
//   {"op": "play", "width", "height", "mines": [cell...], "start": cell, "seed", "trace": bool}
//     -> {"ok": true, "status": "won"|"lost"|"stuck", "clicks": [cell...], "guesses": [i...],
//         "calls", "solve_ms", "game_ms", "ignored": {"flag", "chord"}, "warnings": [...],
//         "trace": [{"safety": [..]|null, "clicks": [[cell, [[cell, number]...]]...]}...]}
//   {"op": "decide", "width", "height", "mines": total, "states": [0-8, 9 covered, 10 flag],
//    "trust_flags": bool, "seed"}
//     -> {"ok": true, "moves": [[cell, "reveal"|"flag"|"chord", safety]...], "safety": [..],
//         "message": the line its page would show, "ms"}
//   Every answer also carries "cpu_ms" (the process's CPU time for it) and "warnings" (what the
//   peer wrote to its console as warnings or errors). A request that fails answers {"ok": false, "error": "..."}; the process serves the next one.
// A cell is an int, row-major (y * width + x); "safety" is each cell's chance of being safe as
// JSMinesweeper's probability engine left it (null where it set none). The first line written,
// before any request is read, is {"ready": true, "startup_ms": ...}.
"use strict";

const fs = require("fs");
const path = require("path");
const readline = require("readline");
const vm = require("vm");

// index.html's order (Compression.js is not loaded by the page either)
const SCRIPTS = [
    "Minesweeper/client/Board.js",
    "Minesweeper/client/Tile.js",
    "Minesweeper/client/solver_main.js",
    "Minesweeper/client/solver_probability_engine.js",
    "Minesweeper/client/Brute_force.js",
    "Minesweeper/client/BruteForceAnalysis.js",
    "Minesweeper/client/MinesweeperGame.js",
    "Minesweeper/client/SolutionCounter.js",
    "Minesweeper/client/EfficiencyHelper.js",
    "Minesweeper/client/FiftyFiftyHelper.js",
    "Minesweeper/client/LongTermRiskHelper.js",
    "Minesweeper/client/main.js",
    "Minesweeper/Utility/PrimeSieve.js",
    "Minesweeper/Utility/Binomial.js",
];

// A page element that accepts anything: every property is a further stand-in, every call and
// `new` returns one, and what is assigned is kept (main.js asks for ~47 elements at load).
function standIn() {
    const kept = new Map();
    const proxy = new Proxy(function () {}, {
        get(target, key) {
            if (key === Symbol.toPrimitive) return () => "";
            if (key === "then") return undefined; // (not a promise)
            return kept.has(key) ? kept.get(key) : proxy;
        },
        set(target, key, value) {
            kept.set(key, value);
            return true;
        },
        has() {
            return false;
        },
        apply() {
            return proxy;
        },
        construct() {
            return proxy;
        },
    });
    return proxy;
}

// What the peer writes to its console: log lines are dropped (it logs a line a move); warnings
// and errors are kept for the answer to the current request.
const warnings = [];
function keep(...args) {
    if (warnings.length < 20) warnings.push(args.map(String).join(" ").slice(0, 300));
}
const peerConsole = { log() {}, info() {}, debug() {}, trace() {}, warn: keep, error: keep };

function makeContext(source) {
    const sandbox = {
        console: peerConsole,
        document: standIn(),
        navigator: standIn(),
        localStorage: standIn(),
        window: { location: { search: "", href: "", hostname: "" }, URL },
        URLSearchParams,
        TextEncoder,
        TextDecoder,
        setTimeout,
        clearTimeout,
        setInterval: () => 0, // (a page timer; nothing here needs one)
        clearInterval: () => {},
        performance,
    };
    const context = vm.createContext(sandbox);
    for (const name of SCRIPTS) {
        const file = path.join(source, name);
        vm.runInContext(fs.readFileSync(file, "utf8"), context, { filename: file });
    }
    // the harness, compiled in the peer's context so that it sees the scripts' own top-level
    // names (`board`, `binomialCache`, `ServerGame`, ...), as code on the page would
    vm.runInContext(`(${harness.toString()})()`, context, { filename: "jsm_driver.js:harness" });
    return context;
}

// Runs inside the peer's context (it is compiled there: see makeContext).
function harness() {
    // bulkRun's options
    function playOptions() {
        return {
            playStyle: PLAY_STYLE_NOFLAGS,
            verbose: false,
            advancedGuessing: true,
            fullProbability: true,
            hardcore: false,
        };
    }

    // A seeded Math.random for the solver (its brute-force cache hashes with it), so that a game
    // is played the same way each time: a 32-bit xorshift seeded by the string's FNV-1a hash.
    function seedRandom(text) {
        let h = 0x811c9dc5;
        for (let i = 0; i < text.length; i++) {
            h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
        }
        let s = h || 1;
        Math.random = function () {
            s ^= s << 13;
            s >>>= 0;
            s ^= s >>> 17;
            s ^= s << 5;
            s >>>= 0;
            return s / 4294967296;
        };
    }

    // the safety its probability engine set on each covered tile (null where none was set)
    function safeties(b) {
        return b.tiles.map((t) => (t.isCovered() && t.probability >= 0 ? t.probability : null));
    }

    function revealedOf(reply) {
        return reply.tiles.filter((t) => t.action == 1).map((t) => [t.index, t.value]);
    }

    async function setup() {
        const start = performance.now();
        binomialCache = new BinomialCache(5000, 500, new Binomial(MAX_BINOMIAL_N, 500)); // as startup()
        await solver(); // registers its solution counter, as startup() does
        return performance.now() - start;
    }

    // One game on the given layout, move by move as bulkRun plays its own: the first click at
    // `start`, then at each turn the solver's actions; a clear with safety 1 is played, the first
    // action is played whatever its safety (a guess) and nothing after a guess.
    async function play(req) {
        const { width, height, start } = req;
        const mines = req.mines;
        const n = width * height;
        if (!(Number.isInteger(start) && start >= 0 && start < n)) throw new Error(`start ${start} is off the board`);
        const array = [width, height, mines.length];
        for (const c of mines) {
            if (!(Number.isInteger(c) && c >= 0 && c < n)) throw new Error(`mine cell ${c} is off the board`);
            array.push(c % width, Math.floor(c / width));
        }
        seedRandom(String(req.seed));
        const t0 = performance.now();
        const game = new ServerGame(0, width, height, mines.length, start, 0, "safe");
        game.resetMinesUsingArray(array); // our mines, in place of its own draw
        game.num_bombs = mines.length; // (its constructor lowers them on a crowded board)
        game.tilesLeft = n - mines.length;
        board = new Board(0, width, height, mines.length, 0, "safe");
        // (LongTermRiskHelper reads the page's global `board` for the width and height)
        const trace = [];
        const clicks = [start];
        const guesses = [];
        const ignored = { flag: 0, chord: 0 };
        let reply = game.clickTile(game.getTile(start));
        if (req.trace) trace.push({ safety: null, clicks: [[start, revealedOf(reply)]] });
        if (reply.header.status == IN_PLAY) applyResults(board, reply);
        let calls = 0;
        let solving = 0;
        while (reply.header.status == IN_PLAY && calls < 10000) {
            calls++;
            const t1 = performance.now();
            const answer = await solver(board, playOptions());
            solving += performance.now() - t1;
            const step = req.trace ? { safety: safeties(board), clicks: [] } : null;
            if (step) trace.push(step);
            const actions = answer.actions;
            let played = 0;
            for (let i = 0; i < actions.length; i++) {
                const action = actions[i];
                if (action.action == ACTION_CHORD) {
                    ignored.chord++;
                    continue;
                }
                if (action.action == ACTION_FLAG) {
                    ignored.flag++;
                    continue;
                }
                if (i == 0 || action.prob == 1) {
                    const cell = board.xy_to_index(action.x, action.y);
                    if (action.prob != 1) guesses.push(clicks.length);
                    clicks.push(cell);
                    played++;
                    reply = game.clickTile(game.getTile(cell));
                    if (step) step.clicks.push([cell, revealedOf(reply)]);
                    if (reply.header.status != IN_PLAY) break;
                    applyResults(board, reply);
                }
                if (action.prob != 1) break;
            }
            if (played == 0) break; // (it found nothing to clear: stuck)
        }
        const gameMs = performance.now() - t0;
        const status = reply.header.status == IN_PLAY ? "stuck" : reply.header.status;
        const out = { status, clicks, guesses, calls, solve_ms: solving, game_ms: gameMs, ignored };
        if (req.trace) out.trace = trace;
        return out;
    }

    // The solver's move in a position, as its page's analysis asks for one in play style
    // "no flags": flags are the player's (trusted as mines, as its "flag is mine" box does, or
    // left out as covered cells).
    async function decide(req) {
        const { width, height, states } = req;
        const n = width * height;
        if (!Array.isArray(states) || states.length != n) throw new Error(`expected ${n} cell states`);
        seedRandom(String(req.seed));
        const t0 = performance.now();
        board = new Board(0, width, height, req.mines, 0, "safe");
        for (let i = 0; i < n; i++) {
            const s = states[i];
            const tile = board.getTile(i);
            if (s >= 0 && s <= 8) {
                tile.setValue(s);
            } else if (s == 10 && req.trust_flags) {
                tile.toggleFlag();
                board.bombs_left--;
            } else if (s != 9 && s != 10) {
                throw new Error(`cell ${i} has state ${s}, not one of 0-10`);
            }
        }
        const bad = board.resetForAnalysis(!!req.trust_flags, true);
        if (bad != null) throw new Error(`its numbers cannot be: tile ${bad.asText()} (x,y) sees too few covered cells`);
        if (solver.countSolutions(board).finalSolutionsCount == 0) {
            throw new Error("no layout of the mines fits its numbers");
        }
        messageLine.innerHTML = "";
        const answer = await solver(board, playOptions());
        const message = String(messageLine.innerHTML); // (what its page would show: why this move)
        const kinds = { [ACTION_CLEAR]: "reveal", [ACTION_FLAG]: "flag", [ACTION_CHORD]: "chord" };
        const moves = answer.actions.map((a) => [board.xy_to_index(a.x, a.y), kinds[a.action] || String(a.action), a.prob]);
        return { moves, safety: safeties(board), message, ms: performance.now() - t0 };
    }

    globalThis.__demine = { setup, play, decide };
}

async function main() {
    const source = process.argv[2];
    if (!source) {
        process.stderr.write("usage: node jsm_driver.js JSMINESWEEPER_FOLDER\n");
        process.exit(2);
    }
    let api;
    let startup;
    try {
        const context = makeContext(source);
        api = context.__demine;
        startup = await api.setup();
    } catch (e) {
        process.stdout.write(JSON.stringify({ ready: false, error: String(e && e.stack ? e.stack : e) }) + "\n");
        process.exit(1);
    }
    process.stdout.write(JSON.stringify({ ready: true, startup_ms: startup, node: process.version }) + "\n");
    const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
    for await (const line of lines) {
        if (!line.trim()) continue;
        let answer;
        warnings.length = 0;
        try {
            const req = JSON.parse(line);
            if (req.op != "play" && req.op != "decide") throw new Error(`unknown op ${JSON.stringify(req.op)}`);
            const cpu = process.cpuUsage();
            answer = { ok: true, ...(await api[req.op](req)) };
            const used = process.cpuUsage(cpu);
            answer.cpu_ms = (used.user + used.system) / 1000;
        } catch (e) {
            answer = { ok: false, error: String(e && e.message ? e.message : e) };
        }
        answer.warnings = warnings.slice();
        process.stdout.write(JSON.stringify(answer) + "\n");
    }
}

if (require.main === module) {
    main();
} else {
    module.exports = { makeContext, peerConsole }; // (for a check beside its own bulk play)
}
