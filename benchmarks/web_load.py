"""Load on the web game: N concurrent clients on loopback, each playing expert with hints on.

Run: python benchmarks/web_load.py [--clients 200] [--seconds 60] [--think 1.0] [--url URL]
       [--processes 2] [--postgres] [--abuse]

Without ``--url`` it starts ``demine serve`` in a child process on a free port with a fresh
database: a SQLite file, or with ``--postgres`` a database on a PostgreSQL server that it starts
(Debian's ``postgresql``, as the tests do); ``--processes N`` runs N server processes. The server
does not trust ``X-Forwarded-For``: each simulated player connects from a loopback address of its
own (127.2.x.y), so the per-client rates apply to each as to real players, at their defaults.

With ``--abuse`` the run has two phases of ``--seconds`` each: the players alone, then the same
players while abusive clients, each from loopback addresses of their own, do all at once:
- a flooder: new games, moves and hints as fast as 16 connections allow;
- an unknown-id flooder: views of ids that do not exist, 8 connections;
- a slowloris: 300 connections sending headers a line a second, never finishing, reopened when
  the server closes them (at most once a second each);
- a replay/export flooder: replays at random moves and exports of a long finished game;
- a reviewer: reviews of long finished 100x100 games, one after another;
- 8 addresses sending the heaviest legal analyses (a 100x100 board of 1s and covered cells),
  4 at a time each;
- 6 addresses making no-guess games and asking each one's first click at once, 2 at a time each:
  in turn 100x100 with 5,000 mines (refused when made) and the densest 40x40 board the shipped
  figures do not refuse (``demine.analysis.noguess.no_guess_reach``: the whole budget spent).
The long games (100x100, ``--long-moves`` moves each, mostly flags) are played before the
phases, from several addresses. Printed per phase: the players' latencies and errors, and what
the abusers got (answers by status: 429 from the rate limits, 503 when a queue is full).

Each client loops: start an expert game (safe rule), then per turn wait a think time
(uniform in [0.5, 1.5] x ``--think`` seconds), click a cell the hints colour safe (else the
marked best guess), and receive the new position with its hints and probabilities: the page does
one request per click with hints on (``POST /moves?hints=1``), so a turn's latency is that request.
When no cell is safe the page asks for the best guess (``GET /hint``, the look-ahead search): that
request is measured on its own line.
The first hints of each game (``GET /hints``) are measured separately. Reports p50/p99/max,
turns per second, the load generator's own CPU share (and the abusers' process's), the server
processes' and hint workers' CPU (per phase and per player turn, from /proc), and errors (any
non-2xx response or transport error).

The players' process (one event loop for the 200 players, which times every turn) holds its
cycle collector off during a phase and collects between phases (``--client-gc`` keeps it on):
its own full collections took 41-69 ms of wall time in each abuse phase (its aiohttp sessions
and connections), and every turn in flight then was timed that much longer though the server had
answered (docs/research/web-abuse.md, part n). 200 browsers do not pause together; the server's collections
are measured as before.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.pg_server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


class Stats:
    def __init__(self) -> None:
        self.turn: list[float] = []
        self.turn_at: list[float] = []
        """Each turn's start (``time.time()``, comparable with the abusers' process's), as ``turn``."""
        self.hint: list[float] = []
        self.guess: list[float] = []
        self.errors: list[str] = []
        self.pending = 0
        """Moves answered without their hints (asked for again; counted in the turn's time)."""
        self.games = 0
        self.won = 0
        self.seconds = 0.0
        """The players' time (turns per second are over it, not over the abusers' start and end)."""


class HTTPStatusError(Exception):
    """A non-2xx answer."""


async def call(http: aiohttp.ClientSession, method: str, path: str, body: Any = None) -> Any:
    async with http.request(method, path, json=body) as r:
        data = await r.json()
        if r.status >= 300:
            raise HTTPStatusError(f"{r.status} {method} {path}: {data}")
        return data


def session(url: str, source: str, connections: int = 4) -> aiohttp.ClientSession:
    """A client's connections, all from the loopback address ``source``."""
    connector = aiohttp.TCPConnector(limit=connections, local_addr=(source, 0))
    return aiohttp.ClientSession(url, connector=connector, timeout=aiohttp.ClientTimeout(total=30))


def player_address(k: int) -> str:
    return f"127.2.{k // 250}.{k % 250 + 1}"


async def client(url: str, stats: Stats, stop: float, think: float, rng: random.Random, who: str) -> None:
    await asyncio.sleep(rng.uniform(0, think))  # spread the starts
    async with session(url, who) as http:
        while time.monotonic() < stop:
            try:
                await play_one(http, stats, stop, think, rng)
            except (TimeoutError, aiohttp.ClientError, HTTPStatusError, KeyError, ValueError, TypeError) as e:
                stats.errors.append(f"{type(e).__name__}: {e}")


async def play_one(
    http: aiohttp.ClientSession, stats: Stats, stop: float, think: float, rng: random.Random
) -> None:
    new = {"preset": "expert", "rule": "safe"}
    gid = (await call(http, "POST", "/api/games", new))["id"]
    outcome = "playing"
    t0 = time.perf_counter()
    hints = await call(http, "GET", f"/api/games/{gid}/hints?probabilities=1")  # hints on from the start
    stats.hint.append((time.perf_counter() - t0) * 1000)
    while outcome == "playing" and time.monotonic() < stop:
        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        # the player clicks a green cell, else the marked best guess
        row, col = hints["safe"][0] if hints["safe"] else hints["best"]["cell"]
        at, t1 = time.time(), time.perf_counter()
        v = await call(
            http,
            "POST",
            f"/api/games/{gid}/moves?hints=1&probabilities=1",
            {"kind": "reveal", "row": row, "col": col},
        )
        outcome = v["outcome"]
        hints = v.get("hints")
        if v.get("hints_pending"):  # played, the hints not sent (a full queue): the page asks again
            stats.pending += 1
            hints = await call(http, "GET", f"/api/games/{gid}/hints?probabilities=1&guess=0")
        stats.turn.append((time.perf_counter() - t1) * 1000)
        stats.turn_at.append(at)
        if hints and hints.get("guess_pending"):  # nothing safe: the page asks for the best guess
            t2 = time.perf_counter()
            g = await call(http, "GET", f"/api/games/{gid}/hint")
            stats.guess.append((time.perf_counter() - t2) * 1000)
            hints["best"] = g
    if outcome != "playing":
        stats.games += 1
        stats.won += outcome == "won"


def heaviest_analysis() -> str:
    """The analysis board's heaviest legal paste: 100x100, a 1 on every other cell of every other
    row, the rest covered (one component of 7,500 cells; 0.5 s of analysis, the budget)."""
    rows = ["".join("1" if r % 2 == 0 and c % 2 == 0 else "H" for c in range(100)) for r in range(100)]
    return "100x100x2500\n" + "\n".join(rows)


ABUSERS = (
    "flood",
    "unknown ids",
    "slowloris",
    "replay/export",
    "reviews",
    "heavy analyses",
    "no-guess boards",
)


class Abuse:
    def __init__(self, long_games: list[tuple[str, int]], only: Sequence[str] = ABUSERS) -> None:
        self.long_games, self.only = long_games, only
        names = only
        self.status: dict[str, Counter[int | str]] = {k: Counter() for k in names}
        self.events: list[tuple[str, float, float, int | str]] = []
        """Each answer (or failure) as ``(who, sent, answered, status)``, times by ``time.time()``
        (for ``--timeline``)."""

    def count(self, who: str, status: int | str, sent: float | None = None) -> None:
        self.status[who][status] += 1
        now = time.time()
        self.events.append((who, now if sent is None else sent, now, status))


async def hammer(
    url: str, source: str, abuse: Abuse, who: str, stop: float, connections: int, ask: Any
) -> None:
    """``connections`` loops from ``source`` sending ``ask(k)`` -> (method, path, body) as fast as
    the server answers."""

    async def loop(http: aiohttp.ClientSession, rng: random.Random) -> None:
        while time.monotonic() < stop:
            method, path, body = ask(rng)
            sent = time.time()
            try:
                async with http.request(method, path, json=body) as r:
                    await r.read()
                    abuse.count(who, r.status, sent)
            except (TimeoutError, aiohttp.ClientError):
                abuse.count(who, "transport error", sent)
                await asyncio.sleep(0.1)

    async with session(url, source, connections) as http:
        await asyncio.gather(*(loop(http, random.Random(k)) for k in range(connections)))


async def flooder(url: str, abuse: Abuse, stop: float) -> None:
    """Games, moves and hints from one address, as fast as the server answers."""
    games: list[str] = []

    async def loop(http: aiohttp.ClientSession) -> None:
        while time.monotonic() < stop:
            body: dict[str, Any]
            if not games:
                method, path, body = "POST", "/api/games", {"preset": "expert", "rule": "safe"}
            else:
                method, path, body = (
                    "POST",
                    f"/api/games/{games[-1]}/moves?hints=1",
                    {"kind": "flag", "row": 0, "col": 0},
                )
            sent = time.time()
            try:
                async with http.request(method, path, json=body) as r:
                    data = await r.json()
                    abuse.count("flood", r.status, sent)
                    if r.status == 200 and not games:
                        games.append(data["id"])
            except (TimeoutError, aiohttp.ClientError, ValueError):
                abuse.count("flood", "transport error", sent)
                await asyncio.sleep(0.1)

    async with session(url, "127.1.0.1", 16) as http:
        await asyncio.gather(*(loop(http) for _ in range(16)))


async def slowloris(url: str, abuse: Abuse, stop: float, sockets: int = 300) -> None:
    """``sockets`` connections from one address sending a request's headers a line a second and
    never finishing them; one the server closes is opened again a second later."""
    host, port = "127.0.0.1", int(url.rsplit(":", 1)[1])

    async def one() -> None:
        while time.monotonic() < stop:
            sent = time.time()
            try:
                reader, writer = await asyncio.open_connection(host, port, local_addr=("127.1.0.3", 0))
            except OSError:
                abuse.count("slowloris", "refused", sent)
                await asyncio.sleep(1.0)
                continue
            try:
                writer.write(b"GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n")
                while time.monotonic() < stop:
                    try:
                        answer = await asyncio.wait_for(reader.read(64), 1.0)
                    except TimeoutError:
                        writer.write(b"x-slow: 1\r\n")  # one more header line, never the last
                        continue
                    abuse.count(
                        "slowloris",
                        answer.split(b" ")[1].decode() if answer.startswith(b"HTTP/") else "closed",
                        sent,
                    )
                    break
            except OSError:
                abuse.count("slowloris", "closed", sent)
            finally:
                writer.close()
            await asyncio.sleep(1.0)

    await asyncio.gather(*(one() for _ in range(sockets)))


async def noguesser(url: str, source: str, abuse: Abuse, stop: float) -> None:
    """No-guess games from one address, each first click asked at once (issue 57, finding 3):
    in turn a board no budget can find (refused when made) and the densest one the shipped
    figures do not refuse on 40x40 (the whole budget spent, often for nothing)."""
    from demine.analysis.noguess import no_guess_reach

    reach = no_guess_reach(40, 40, "safe")
    hard = 40 * 40 // 4 if reach is None or reach.refused is None else reach.refused - 1
    boards = [(100, 100, 5000), (40, 40, hard)]

    async def loop(http: aiohttp.ClientSession, k: int) -> None:
        while time.monotonic() < stop:
            w, h, m = boards[k % 2]
            k += 1
            sent = time.time()
            try:
                body = {"width": w, "height": h, "mines": m, "rule": "safe", "no_guess": "complete"}
                async with http.post("/api/games", json=body) as r:
                    data = await r.json()
                    abuse.count("no-guess boards", r.status, sent)
                if r.status != 200:
                    continue
                sent = time.time()
                move = {"kind": "reveal", "row": h // 2, "col": w // 2}
                async with http.post(f"/api/games/{data['id']}/moves", json=move) as r:
                    await r.read()
                    abuse.count("no-guess boards", r.status, sent)
            except (TimeoutError, aiohttp.ClientError, ValueError):
                abuse.count("no-guess boards", "transport error", sent)
                await asyncio.sleep(0.1)

    async with session(url, source, 2) as http:
        await asyncio.gather(*(loop(http, k) for k in range(2)))


async def reviewer(url: str, abuse: Abuse, stop: float) -> None:
    """Reviews of the long games, one after another, each asked for every second until ready."""
    async with session(url, "127.1.0.5", 2) as http:
        k = 0
        while time.monotonic() < stop:
            gid = abuse.long_games[k % len(abuse.long_games)][0]
            sent = time.time()
            try:
                async with http.get(f"/api/games/{gid}/review") as r:
                    await r.read()
                    abuse.count("reviews", r.status, sent)
                    if r.status == 200:
                        k += 1
            except (TimeoutError, aiohttp.ClientError):
                abuse.count("reviews", "transport error", sent)
            await asyncio.sleep(1.0)


async def make_long_games(url: str, count: int, moves: int) -> list[tuple[str, int]]:
    """``count`` finished 100x100 games (half mines) of ``moves`` moves or more: flags put on and
    taken off cells of the bottom rows, sent from 40 addresses in turn (a client's rate of moves
    is 30 a second), then reveals of the top rows until the game ends."""
    sessions = [session(url, f"127.3.0.{k + 1}", 2) for k in range(40)]
    out = []
    try:
        for g in range(count):
            new = {"width": 100, "height": 100, "mines": 5000, "seed": f"long{g}"}
            gid = (await call(sessions[0], "POST", "/api/games", new))["id"]
            moves_path = f"/api/games/{gid}/moves"
            await call(sessions[0], "POST", moves_path, {"kind": "reveal", "row": 50, "col": 50})
            flags = [{"kind": "flag", "row": 99 - k // 200 % 40, "col": k // 2 % 100} for k in range(moves)]
            for start in range(0, len(flags), 40):
                batch = flags[start : start + 40]
                await asyncio.gather(
                    *(call(sessions[k], "POST", moves_path, mv) for k, mv in enumerate(batch))
                )
                await asyncio.sleep(1.4)  # under each address's 30 a second and 1,200 a minute
            for k in range(4000):
                mv = {"kind": "reveal", "row": k // 100, "col": k % 100}
                if (await call(sessions[k % 40], "POST", moves_path, mv))["outcome"] != "playing":
                    break
            out.append((gid, (await call(sessions[0], "GET", f"/api/games/{gid}"))["total_moves"]))
    finally:
        for sess in sessions:
            await sess.close()
    return out


async def run(url: str, clients: int, seconds: float, think: float, seed: int) -> Stats:
    """The players, for ``seconds``."""
    stats = Stats()
    stop = time.monotonic() + seconds
    rng = random.Random(seed)
    await asyncio.gather(
        *(
            client(url, stats, stop, think, random.Random(rng.random()), player_address(k))
            for k in range(clients)
        )
    )
    return stats


async def run_abusers(url: str, seconds: float, abuse: Abuse) -> None:
    """The abusers of ``abuse.only``, for ``seconds``."""
    stop = time.monotonic() + seconds
    text = heaviest_analysis()
    long_games = abuse.long_games

    def unknown(r: random.Random) -> tuple[str, str, None]:
        return "GET", f"/api/games/{r.getrandbits(128):032x}", None

    def replays(r: random.Random) -> tuple[str, str, None]:
        gid, n = r.choice(long_games)
        if r.random() < 0.5:
            return "GET", f"/api/games/{gid}/export", None
        return "GET", f"/api/games/{gid}/replay?move={r.randrange(n + 1)}", None

    def analysis(r: random.Random) -> tuple[str, str, dict[str, str]]:
        return "POST", "/api/analyze", {"text": text}

    every: dict[str, Any] = {
        "flood": lambda: [flooder(url, abuse, stop)],
        "unknown ids": lambda: [hammer(url, "127.1.0.2", abuse, "unknown ids", stop, 8, unknown)],
        "slowloris": lambda: [slowloris(url, abuse, stop)],
        "replay/export": lambda: [hammer(url, "127.1.0.4", abuse, "replay/export", stop, 8, replays)],
        "reviews": lambda: [reviewer(url, abuse, stop)],
        "heavy analyses": lambda: [
            hammer(url, f"127.1.1.{k + 1}", abuse, "heavy analyses", stop, 4, analysis) for k in range(8)
        ],
        "no-guess boards": lambda: [noguesser(url, f"127.1.2.{k + 1}", abuse, stop) for k in range(6)],
    }
    await asyncio.gather(*(c for name in abuse.only for c in every[name]()))


def abusers_main(url: str, seconds: float, spec: str) -> None:
    """The abusers in a process of their own (so their work on the client side does not slow the
    players' measurement): reads ``spec`` (JSON: long games, abusers), prints the statuses as JSON."""
    given = json.loads(spec)
    abuse = Abuse([tuple(g) for g in given["long_games"]], given["only"])
    asyncio.run(run_abusers(url, seconds, abuse))
    print(json.dumps({"status": {k: dict(v) for k, v in abuse.status.items()}, "events": abuse.events}))


#: The groups of processes ``tree_cpu`` reports: the server processes, the hint workers at full
#: priority (the quick lane), and those at a lower one (the slow lane and the reviews: niced or
#: SCHED_IDLE).
GROUPS = ("server", "quick workers", "background workers")


def _thread_delays(pid: int) -> tuple[float, float]:
    """CPU seconds and seconds spent waiting for a CPU (runnable, not running) of all threads of
    ``pid`` so far, from /proc/PID/task/*/schedstat (zeros where it is missing)."""
    cpu = wait = 0.0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0, 0.0
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ran, waited, _ = f.read().split()
        except (OSError, ValueError):
            continue
        cpu += int(ran) / 1e9
        wait += int(waited) / 1e9
    return cpu, wait


def tree_cpu(root: int) -> dict[str, tuple[float, float]]:
    """CPU seconds so far and seconds waited for a CPU, per group of :data:`GROUPS`, of the
    processes under ``root`` (itself included): the server processes, and their hint workers (the
    processes started by multiprocessing that start none themselves; with ``--processes N`` the
    server processes are started by multiprocessing too) by priority, from /proc (Linux; zeros
    elsewhere). A thread's wait for a CPU is what a busy machine adds to its requests' times."""
    totals = {g: (0.0, 0.0) for g in GROUPS}
    try:
        stats = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                    with open(f"/proc/{entry}/cmdline", "rb") as f:
                        worker = b"multiprocessing" in f.read()
                except OSError:
                    continue
                # (fields from the state on: ppid is stat's 4th, nice its 19th, policy its 41st)
                stats[int(entry)] = (int(fields[1]), worker, (int(fields[16]), int(fields[38])))
    except OSError:
        return totals
    if root not in stats:
        return totals
    tree, grown = {root}, True
    while grown:
        more = {pid for pid, (ppid, _, _) in stats.items() if ppid in tree} - tree
        tree |= more
        grown = bool(more)
    parents = {stats[pid][0] for pid in tree & stats.keys()}
    for pid in tree & stats.keys():
        _, worker, priority = stats[pid]
        background = priority != stats[root][2]  # (niced or idle against the server: whatever its own nice)
        group = GROUPS[0] if not worker or pid in parents else GROUPS[2] if background else GROUPS[1]
        cpu, wait = _thread_delays(pid)
        totals[group] = (totals[group][0] + cpu, totals[group][1] + wait)
    return totals


def children_cpu() -> float:
    """CPU seconds of the child processes waited for so far (user + system)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_phase(url: str, ns: argparse.Namespace, abuse: Abuse | None) -> Stats:
    """The players for ``ns.seconds``, with the abusers of ``abuse`` in a child process."""
    child = None
    if abuse is not None:
        spec = json.dumps({"long_games": abuse.long_games, "only": list(abuse.only)})
        cmd = [sys.executable, __file__, "--abusers-of", url, "--seconds", str(ns.seconds), "--spec", spec]
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE)
        time.sleep(1.0)  # let them start
    t0 = time.monotonic()
    held = not ns.client_gc and gc.isenabled()
    if held:  # (the instrument's own pauses are not the server's: see the module's docstring)
        gc.collect()
        gc.disable()
    try:
        stats = asyncio.run(run(url, ns.clients, ns.seconds, ns.think, ns.seed))
    finally:
        if held:
            gc.enable()
            gc.collect()
    stats.seconds = time.monotonic() - t0
    if child is not None and abuse is not None:
        out, _ = child.communicate(timeout=ns.seconds + 120)
        got = json.loads(out.decode().strip().splitlines()[-1])
        for who, counts in got["status"].items():
            abuse.status[who].update({(int(k) if k.isdigit() else k): n for k, n in counts.items()})
        abuse.events = [tuple(e) for e in got["events"]]
    return stats


def start_server(
    workers: int | None,
    processes: int = 1,
    db: str | None = None,
    http: str | None = None,
    more: Sequence[str] = (),
) -> tuple[subprocess.Popen[bytes], str, tempfile.TemporaryDirectory[str]]:
    tmp = tempfile.TemporaryDirectory()
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "demine",
        "serve",
        "--port",
        str(port),
        "--db",
        db or str(Path(tmp.name) / "games.db"),
        "--processes",
        str(processes),
    ]
    if http is not None:  # (else serve's own default: a server from before --http runs as it is)
        cmd += ["--http", http]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    cmd += more
    # the server's log goes to a file: a pipe nobody reads fills at 64 KB and then blocks the
    # server at its next line (a run with many 500s wedged so, each logging its traceback)
    with open(Path(tmp.name) / "server.log", "wb") as log:  # (the server keeps its own copy)
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120  # (its worker processes start first: slow on a busy machine)
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(url + "/", timeout=1.0):
                return proc, url, tmp
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start: " + (Path(tmp.name) / "server.log").read_text()[-4000:])


def report(title: str, stats: Stats) -> None:
    print(f"{title}: turns {len(stats.turn)} ({len(stats.turn) / stats.seconds:.1f}/s), "
          f"games finished {stats.games} (won {stats.won})")  # fmt: skip
    for name, xs in (("click+hints", stats.turn), ("best guess", stats.guess), ("first hints", stats.hint)):
        if xs:
            print(
                f"  {name:12} p50 {pct(xs, 0.5):6.1f} ms  p99 {pct(xs, 0.99):6.1f} ms  max {max(xs):7.1f} ms"
                f"  mean {statistics.fmean(xs):.1f} ms"
            )
    print(f"  errors {len(stats.errors)}" + (f": {stats.errors[:3]}" if stats.errors else ""))
    if stats.pending:
        print(f"  moves answered without their hints (asked for again): {stats.pending}")


def _around(turns: list[tuple[float, float]], sent: list[float], ended: list[float]) -> tuple[float, float]:
    """Of requests sent at ``sent`` and answered at ``ended`` (both sorted): how many were in flight
    during a turn of ``turns`` (start, ms) and how many answered during one, on average."""
    busy = done = 0
    for t, ms in turns:
        end = t + ms / 1000
        busy += bisect_right(sent, end) - bisect_left(ended, t)  # overlapping the turn
        done += bisect_right(ended, end) - bisect_left(ended, t)  # answered during it
    return busy / len(turns), done / len(turns)


def timeline(name: str, stats: Stats, abuse: Abuse | None, path: str | None) -> None:
    """Where the phase's slow turns fell (``--timeline``): the turns at or over its p99 (those that
    set it) by second of the phase, and for each abuser kind its requests in flight and answered
    during a slow turn against during any turn. Writes every turn and abuser request to ``path``
    (JSON) when given."""
    if not stats.turn:
        return
    p99 = pct(stats.turn, 0.99)
    t0 = min(stats.turn_at)
    seconds = int(max(stats.turn_at) - t0) + 1
    slow = [(t, ms) for t, ms in zip(stats.turn_at, stats.turn, strict=True) if ms >= p99]
    per_second = Counter(int(t - t0) for t, _ in slow)
    print(
        f"  timeline: {len(slow)} turns >= p99 ({p99:.1f} ms) in {len(per_second)} of {seconds} seconds;"
        f" per second: {' '.join(str(per_second[k]) for k in range(seconds))}"
    )
    if abuse is not None and abuse.events:
        every = list(zip(stats.turn_at, stats.turn, strict=True))
        for who in abuse.status:
            mine = [e for e in abuse.events if e[0] == who]
            sent, ended = sorted(e[1] for e in mine), sorted(e[2] for e in mine)
            (sb, sd), (ab, ad) = _around(slow, sent, ended), _around(every, sent, ended)
            print(
                f"    {who}: in flight {sb:.2f} in a slow turn, {ab:.2f} in any; answered {sd:.3f} / {ad:.3f}"
            )
    if path:
        data = {"phase": name, "turns": list(zip(stats.turn_at, stats.turn, strict=True))}
        if abuse is not None:
            data["abusers"] = abuse.events
        with open(path, "a") as f:
            f.write(json.dumps(data) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--think", type=float, default=1.0, help="mean think time between clicks, seconds")
    ap.add_argument("--url", help="an already running server (default: start one)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, help="the server's hint workers (default: its own default)")
    ap.add_argument("--processes", type=int, default=1, help="server processes (default 1)")
    ap.add_argument("--postgres", action="store_true", help="games on a PostgreSQL server started here")
    ap.add_argument("--http", help="the server's HTTP parser (serve --http; default: serve's default)")
    ap.add_argument(
        "--serve-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="an argument passed on to demine serve as it is (repeat for several: "
        "--serve-arg=--memory --serve-arg=256M)",
    )
    ap.add_argument("--abuse", action="store_true", help="a second phase with abusive clients (see above)")
    ap.add_argument(
        "--client-gc",
        action="store_true",
        help="keep the players' process's cycle collector on during a phase (its pauses are then "
        "timed as the server's; default: off during a phase, collected between)",
    )
    ap.add_argument(
        "--abusers",
        default=",".join(ABUSERS),
        help=f"with --abuse, which abusers (default all: {','.join(ABUSERS)})",
    )
    ap.add_argument(
        "--long-games", type=int, default=2, help="long games made for the replay and review abusers"
    )
    ap.add_argument("--long-moves", type=int, default=2000, help="moves of each long game (at least)")
    ap.add_argument(
        "--timeline",
        nargs="?",
        const="",
        metavar="FILE",
        help="report where each phase's slowest turns fell and what the abusers were doing then; "
        "with FILE, append every turn and abuser request to it (a JSON line a phase)",
    )
    ap.add_argument("--abusers-of", help=argparse.SUPPRESS)  # (the abusers' own process)
    ap.add_argument("--spec", help=argparse.SUPPRESS)
    ns = ap.parse_args()
    if ns.timeline:  # (before minutes of load: the file is written at the end of each phase)
        try:
            open(ns.timeline, "a").close()
        except OSError as e:
            ap.error(f"--timeline {ns.timeline}: {e.strerror or e}")
    if ns.abusers_of:
        abusers_main(ns.abusers_of, ns.seconds, ns.spec)
        return
    proc = tmp = pg = None
    url = ns.url
    if url is None:
        db = None
        if ns.postgres:
            from tests.pg_server import PostgresServer

            pg = PostgresServer().start()
            db = pg.new_database()
        proc, url, tmp = start_server(ns.workers, ns.processes, db, ns.http, ns.serve_arg)
    phases: list[tuple[str, Stats, float, Abuse | None]] = []
    try:
        plan: list[tuple[str, Abuse | None]] = [("players alone", None)]
        if ns.abuse:
            t0 = time.monotonic()
            long_games = asyncio.run(make_long_games(url, ns.long_games, ns.long_moves))
            print(f"({len(long_games)} long games made in {time.monotonic() - t0:.0f} s)")
            only = [a.strip() for a in ns.abusers.split(",")]
            if unknown := set(only) - set(ABUSERS):
                raise SystemExit(f"unknown abusers {sorted(unknown)}; choose from {', '.join(ABUSERS)}")
            plan.append(("with abusers", Abuse(long_games, only)))
        for name, abuse in plan:
            t0, c0, a0 = time.monotonic(), time.process_time(), children_cpu()
            s0 = tree_cpu(proc.pid) if proc is not None else {}
            stats = run_phase(url, ns, abuse)
            wall, client_cpu = time.monotonic() - t0, time.process_time() - c0
            phases.append((name, stats, wall, abuse))
            print(f"({name}: load generator CPU {client_cpu / wall:.0%} of one core)")
            if proc is not None:
                s1 = tree_cpu(proc.pid)
                turns = max(1, len(stats.turn))
                (c1, w1), (c0_, w0) = s1[GROUPS[0]], s0[GROUPS[0]]
                print(
                    f"({name}: server processes CPU {(c1 - c0_) / wall:.0%} of one core, "
                    f"{(c1 - c0_) * 1000 / turns:.2f} ms a player's turn, waited for a CPU "
                    f"{(w1 - w0) * 1000 / turns:.2f} ms a turn; "
                    + "; ".join(
                        f"{g} {(s1[g][0] - s0[g][0]) / wall:.0%}, "
                        f"waited {(s1[g][1] - s0[g][1]) * 1000 / turns:.2f} ms a turn"
                        for g in GROUPS[1:]
                    )
                    + ")"
                )
            if abuse is not None:
                # the abusers' own process (waited for by run_phase): on this machine it takes CPU
                # from the server, which a remote attacker's client would not
                print(f"({name}: the abusers' process CPU {(children_cpu() - a0) / wall:.0%} of one core)")
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:  # (a loaded machine: the shutdown was too slow)
                proc.kill()
                proc.wait()
        if tmp is not None:
            if (logged := (Path(tmp.name) / "server.log").read_text(errors="replace")).strip():
                print(f"(the server logged {len(logged):,} characters; the last lines:)")
                print("\n".join(logged.splitlines()[-5:]))
            tmp.cleanup()
        if pg is not None:
            pg.stop()
    store = "PostgreSQL" if ns.postgres else "SQLite"
    print(
        f"clients {ns.clients}, {ns.seconds:.0f} s a phase, think {ns.think} s, workers {ns.workers}, "
        f"processes {ns.processes}, {store}, http {ns.http or 'default'}, cpu count {os.cpu_count()}"
        + (f", serve {' '.join(ns.serve_arg)}" if ns.serve_arg else "")
    )
    for name, stats, _wall, abuse in phases:
        report(name, stats)
        if abuse is not None:
            for who, counts in abuse.status.items():
                print(
                    f"  {who}: " + ", ".join(f"{n} x {code}" for code, n in sorted(counts.items(), key=str))
                )
        if ns.timeline is not None:
            timeline(name, stats, abuse, ns.timeline or None)
    if len(phases) == 2:
        before, after = pct(phases[0][1].turn, 0.99), pct(phases[1][1].turn, 0.99)
        print(f"click+hints p99 with abusers / alone: {after / before:.2f}")


if __name__ == "__main__":
    main()
