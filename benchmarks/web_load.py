"""Load on the web game: N concurrent clients on loopback, each playing expert with hints on.

Run: python benchmarks/web_load.py [--clients 200] [--seconds 60] [--think 1.0] [--url URL]
       [--processes 2] [--postgres] [--abuse]

Without ``--url`` it starts ``demine serve`` in a child process on a free port with a fresh
database: a SQLite file, or with ``--postgres`` a database on a PostgreSQL server that it starts
(Debian's ``postgresql``, as the tests do); ``--processes N`` runs N server processes. The server
trusts ``X-Forwarded-For`` (as behind a proxy) and each simulated player sends an address of its
own, so the per-client rates apply to each as to real players, at their defaults.

With ``--abuse`` the run has two phases of ``--seconds`` each: the players alone, then the same
players while one abusive client floods (new games, moves and hints as fast as 16 connections
allow) and another sends the heaviest legal analyses (a 100x100 board of 1s and covered cells,
8 at a time). Printed per phase: the players' latencies and errors, and what the abusers got
(answers by status: 429 from the rate limits, 503 when the heavy pool is full).

Each client loops: start an expert game (safe rule), then per turn wait a think time
(uniform in [0.5, 1.5] x ``--think`` seconds), click a cell the hints colour safe (else the
marked best guess), and receive the new position with its hints and probabilities: the page does
one request per click with hints on (``POST /moves?hints=1``), so a turn's latency is that request.
When no cell is safe the page asks for the best guess (``GET /hint``, the look-ahead search): that
request is measured on its own line.
The first hints of each game (``GET /hints``) are measured separately. Reports p50/p99/max,
turns per second, the load generator's own CPU share, and errors (any non-2xx response or
transport error).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
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
        self.hint: list[float] = []
        self.guess: list[float] = []
        self.errors: list[str] = []
        self.games = 0
        self.won = 0


class HTTPStatusError(Exception):
    """A non-2xx answer."""


async def call(
    http: aiohttp.ClientSession, method: str, path: str, body: Any = None, who: str | None = None
) -> Any:
    headers = {"x-forwarded-for": who} if who else None
    async with http.request(method, path, json=body, headers=headers) as r:
        data = await r.json()
        if r.status >= 300:
            raise HTTPStatusError(f"{r.status} {method} {path}: {data}")
        return data


async def client(
    http: aiohttp.ClientSession, stats: Stats, stop: float, think: float, rng: random.Random, who: str
) -> None:
    await asyncio.sleep(rng.uniform(0, think))  # spread the starts
    while time.monotonic() < stop:
        try:
            new = {"preset": "expert", "rule": "safe"}
            gid = (await call(http, "POST", "/api/games", new, who))["id"]
            outcome = "playing"
            t0 = time.perf_counter()
            hints = await call(
                http, "GET", f"/api/games/{gid}/hints?probabilities=1", who=who
            )  # hints on from the start
            stats.hint.append((time.perf_counter() - t0) * 1000)
            while outcome == "playing" and time.monotonic() < stop:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                # the player clicks a green cell, else the marked best guess
                row, col = hints["safe"][0] if hints["safe"] else hints["best"]["cell"]
                t1 = time.perf_counter()
                v = await call(
                    http,
                    "POST",
                    f"/api/games/{gid}/moves?hints=1&probabilities=1",
                    {"kind": "reveal", "row": row, "col": col},
                    who,
                )
                stats.turn.append((time.perf_counter() - t1) * 1000)
                outcome = v["outcome"]
                hints = v.get("hints")
                if hints and hints.get("guess_pending"):  # nothing safe: the page asks for the best guess
                    t2 = time.perf_counter()
                    g = await call(http, "GET", f"/api/games/{gid}/hint", who=who)
                    stats.guess.append((time.perf_counter() - t2) * 1000)
                    hints["best"] = g
            if outcome != "playing":
                stats.games += 1
                stats.won += outcome == "won"
        except (aiohttp.ClientError, HTTPStatusError, KeyError, ValueError, TypeError) as e:
            stats.errors.append(f"{type(e).__name__}: {e}")


def heaviest_analysis() -> str:
    """The analysis board's heaviest legal paste: 100x100, a 1 on every other cell of every other
    row, the rest covered (one component of 7,500 cells; 0.5 s of analysis, the budget)."""
    rows = ["".join("1" if r % 2 == 0 and c % 2 == 0 else "H" for c in range(100)) for r in range(100)]
    return "100x100x2500\n" + "\n".join(rows)


class Abuse:
    def __init__(self) -> None:
        self.status: dict[str, Counter[int]] = {"flood": Counter(), "heavy": Counter()}


async def flooder(http: aiohttp.ClientSession, abuse: Abuse, stop: float) -> None:
    """Games, moves and hints from one address, as fast as the server answers."""
    gid = None
    while time.monotonic() < stop:
        if gid is None:
            method, path, body = "POST", "/api/games", {"preset": "expert", "rule": "safe"}
        else:
            method, path, body = (
                "POST",
                f"/api/games/{gid}/moves?hints=1",
                {"kind": "flag", "row": 0, "col": 0},
            )
        try:
            async with http.request(method, path, json=body, headers={"x-forwarded-for": "10.99.0.1"}) as r:
                data = await r.json()
                abuse.status["flood"][r.status] += 1
                if r.status == 200 and gid is None:
                    gid = data["id"]
        except aiohttp.ClientError:
            abuse.status["flood"][0] += 1


async def heavy(http: aiohttp.ClientSession, abuse: Abuse, stop: float, text: str) -> None:
    """The heaviest legal analyses from one address, back to back."""
    while time.monotonic() < stop:
        try:
            async with http.post(
                "/api/analyze", json={"text": text}, headers={"x-forwarded-for": "10.99.0.2"}
            ) as r:
                await r.read()
                abuse.status["heavy"][r.status] += 1
        except aiohttp.ClientError:
            abuse.status["heavy"][0] += 1


async def run(
    url: str, clients: int, seconds: float, think: float, seed: int, abuse: Abuse | None = None
) -> Stats:
    stats = Stats()
    connector = aiohttp.TCPConnector(limit=clients + 40)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(url, connector=connector, timeout=timeout) as http:
        stop = time.monotonic() + seconds
        rng = random.Random(seed)
        players = [
            client(http, stats, stop, think, random.Random(rng.random()), f"10.0.{k // 250}.{k % 250 + 1}")
            for k in range(clients)
        ]
        abusers = []
        if abuse is not None:
            text = heaviest_analysis()
            abusers = [flooder(http, abuse, stop) for _ in range(16)]
            abusers += [heavy(http, abuse, stop, text) for _ in range(8)]
        await asyncio.gather(*players, *abusers)
    return stats


def start_server(
    workers: int | None, processes: int = 1, db: str | None = None
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
        # each simulated player sends an address of its own, as a proxy would
        "--trust-proxy",
    ]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            with urllib.request.urlopen(url + "/", timeout=1.0):
                return proc, url, tmp
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the server did not start: " + (proc.stderr.read().decode() if proc.stderr else ""))


def report(title: str, stats: Stats, wall: float) -> None:
    print(f"{title}: turns {len(stats.turn)} ({len(stats.turn) / wall:.1f}/s), "
          f"games finished {stats.games} (won {stats.won})")  # fmt: skip
    for name, xs in (("click+hints", stats.turn), ("best guess", stats.guess), ("first hints", stats.hint)):
        if xs:
            print(
                f"  {name:12} p50 {pct(xs, 0.5):6.1f} ms  p99 {pct(xs, 0.99):6.1f} ms  max {max(xs):7.1f} ms"
                f"  mean {statistics.fmean(xs):.1f} ms"
            )
    print(f"  errors {len(stats.errors)}" + (f": {stats.errors[:3]}" if stats.errors else ""))


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
    ap.add_argument("--abuse", action="store_true", help="a second phase with a flooder and heavy analyses")
    ns = ap.parse_args()
    proc = tmp = pg = None
    url = ns.url
    if url is None:
        db = None
        if ns.postgres:
            from tests.pg_server import PostgresServer

            pg = PostgresServer().start()
            db = pg.new_database()
        proc, url, tmp = start_server(ns.workers, ns.processes, db)
    phases: list[tuple[str, Stats, float, Abuse | None]] = []
    try:
        for name, abuse in [("players alone", None)] + ([("with abusers", Abuse())] if ns.abuse else []):
            t0, c0 = time.monotonic(), time.process_time()
            stats = asyncio.run(run(url, ns.clients, ns.seconds, ns.think, ns.seed, abuse))
            wall, client_cpu = time.monotonic() - t0, time.process_time() - c0
            phases.append((name, stats, wall, abuse))
            print(f"({name}: load generator CPU {client_cpu / wall:.0%} of one core)")
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=20)
        if tmp is not None:
            tmp.cleanup()
        if pg is not None:
            pg.stop()
    store = "PostgreSQL" if ns.postgres else "SQLite"
    print(
        f"clients {ns.clients}, {ns.seconds:.0f} s a phase, think {ns.think} s, workers {ns.workers}, "
        f"processes {ns.processes}, {store}, cpu count {os.cpu_count()}"
    )
    for name, stats, wall, abuse in phases:
        report(name, stats, wall)
        if abuse is not None:
            for who, counts in abuse.status.items():
                print(
                    f"  {who}: "
                    + ", ".join(f"{n} x {code or 'transport error'}" for code, n in sorted(counts.items()))
                )
    if len(phases) == 2:
        before, after = pct(phases[0][1].turn, 0.99), pct(phases[1][1].turn, 0.99)
        print(f"click+hints p99 with abusers / alone: {after / before:.2f}")


if __name__ == "__main__":
    main()
