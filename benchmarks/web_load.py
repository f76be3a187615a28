"""Load on the web game: N concurrent clients on loopback, each playing expert with hints on.

Run: python benchmarks/web_load.py [--clients 200] [--seconds 60] [--think 1.0] [--url URL]

Without ``--url`` it starts ``demine serve`` in a child process on a free port with a fresh
database. Each client loops: start an expert game (safe rule), then per turn wait a think time
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
from pathlib import Path
from typing import Any

import aiohttp


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


async def call(http: aiohttp.ClientSession, method: str, path: str, body: Any = None) -> Any:
    async with http.request(method, path, json=body) as r:
        data = await r.json()
        if r.status >= 300:
            raise HTTPStatusError(f"{r.status} {method} {path}: {data}")
        return data


async def client(
    http: aiohttp.ClientSession, stats: Stats, stop: float, think: float, rng: random.Random
) -> None:
    await asyncio.sleep(rng.uniform(0, think))  # spread the starts
    while time.monotonic() < stop:
        try:
            gid = (await call(http, "POST", "/api/games", {"preset": "expert", "rule": "safe"}))["id"]
            outcome = "playing"
            t0 = time.perf_counter()
            hints = await call(
                http, "GET", f"/api/games/{gid}/hints?probabilities=1"
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
                )
                stats.turn.append((time.perf_counter() - t1) * 1000)
                outcome = v["outcome"]
                hints = v.get("hints")
                if hints and hints.get("guess_pending"):  # nothing safe: the page asks for the best guess
                    t2 = time.perf_counter()
                    g = await call(http, "GET", f"/api/games/{gid}/hint")
                    stats.guess.append((time.perf_counter() - t2) * 1000)
                    hints["best"] = g
            if outcome != "playing":
                stats.games += 1
                stats.won += outcome == "won"
        except (aiohttp.ClientError, HTTPStatusError, KeyError, ValueError, TypeError) as e:
            stats.errors.append(f"{type(e).__name__}: {e}")


async def run(url: str, clients: int, seconds: float, think: float, seed: int) -> Stats:
    stats = Stats()
    connector = aiohttp.TCPConnector(limit=clients + 10)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(url, connector=connector, timeout=timeout) as http:
        stop = time.monotonic() + seconds
        rng = random.Random(seed)
        await asyncio.gather(
            *(client(http, stats, stop, think, random.Random(rng.random())) for _ in range(clients))
        )
    return stats


def start_server(
    workers: int | None,
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
        str(Path(tmp.name) / "games.db"),
        # every simulated player comes from 127.0.0.1: one client to the per-client rates
        "--rate",
        "games=off",
        "--rate",
        "moves=off",
        "--rate",
        "hints=off",
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--think", type=float, default=1.0, help="mean think time between clicks, seconds")
    ap.add_argument("--url", help="an already running server (default: start one)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, help="the server's hint workers (default: its own default)")
    ns = ap.parse_args()
    proc = tmp = None
    url = ns.url
    if url is None:
        proc, url, tmp = start_server(ns.workers)
    try:
        t0, c0 = time.monotonic(), time.process_time()
        stats = asyncio.run(run(url, ns.clients, ns.seconds, ns.think, ns.seed))
        wall, client_cpu = time.monotonic() - t0, time.process_time() - c0
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)
        if tmp is not None:
            tmp.cleanup()
    print(
        f"clients {ns.clients}, {ns.seconds:.0f} s, think {ns.think} s, "
        f"workers {ns.workers}, cpu count {os.cpu_count()}"
    )
    print(
        f"turns {len(stats.turn)} ({len(stats.turn) / wall:.1f}/s), "
        f"games finished {stats.games} (won {stats.won})"
    )
    for name, xs in (("click+hints", stats.turn), ("best guess", stats.guess), ("first hints", stats.hint)):
        if xs:
            print(
                f"{name:12} p50 {pct(xs, 0.5):6.1f} ms  p99 {pct(xs, 0.99):6.1f} ms  max {max(xs):7.1f} ms"
                f"  mean {statistics.fmean(xs):.1f} ms"
            )
    print(f"load generator CPU: {client_cpu / wall:.0%} of one core")
    print(f"errors {len(stats.errors)}" + (f": {stats.errors[:3]}" if stats.errors else ""))


if __name__ == "__main__":
    main()
