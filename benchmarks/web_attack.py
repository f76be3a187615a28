"""Issue 57's attacks on a real ``demine serve`` (loopback only, at the server's default limits):
what each one gets, in a table. Run it on this tree, and with ``--src DIR`` on another one's
``src`` (for example main's, ``git archive main src | tar -x -C /tmp/main``) to compare.

Run: python benchmarks/web_attack.py [--tokens 150] [--src DIR]

- **restart**: a game in play (expert, a drawn seed, one click) restarted by anyone with its
  link; the copy clicked at the same cell, then lost at once. Are its mines the original's?
- **puzzle**: ``--tokens`` players made from one address answer the daily puzzle wrong, each
  claiming a rating of 2500. How many attempts counted, and where did the puzzle's rating go?
- **record**: player B adds player A's finished game to B's record: added?
- **files**: under umask 022, the modes of the games file's folder (made by serve), the file and
  its ``-wal`` and ``-shm``.
- **h11**: on ``--http h11``, the status of a request with both Content-Length and chunked
  encoding, of one with a folded Transfer-Encoding, and of one whose lines end in a bare LF.
- **no-guess** (``--noguess-seconds``; a server with its default workers): 6 addresses make
  no-guess 100x100 games with 5,000 mines and ask each one's first click, over and over, while a
  player from another address plays a 40x40 game with hints on (its hints are the slow lane's):
  the player's click before and during the flood (median / max), and what the flood's requests
  got and how long they held.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import stat
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _serve(folder: Path, src: str | None, *args: str, workers: bool = False) -> Iterator[tuple[str, int]]:
    """``demine serve`` on a free port with its games under ``folder/data`` (made by serve, as the
    default folder is), under umask 022 (in one process, or with its default ``workers``); the
    URL and port."""
    port = _free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(folder / "data")}
    if src:
        env["PYTHONPATH"] = src
    cmd = [
        sys.executable,
        "-m",
        "demine",
        "serve",
        "--port",
        str(port),
        *([] if workers else ["--workers", "0"]),
        *args,
    ]
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=lambda: os.umask(0o022)
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(url + "/", timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.1)
        yield url, port
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _call(url: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url, data=data, headers={"content-type": "application/json", **(headers or {})}
    )
    for _ in range(20):
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            if e.code != 429:
                return e.code, json.loads(e.read())
            time.sleep(float(e.headers.get("retry-after") or 1))  # (the rates are the defaults)
    raise SystemExit(f"still refused: {url}")


def _play_out(url: str, gid: str, first: tuple[int, int]) -> set[tuple[int, int]]:
    _, v = _call(f"{url}/api/games/{gid}/moves", {"kind": "reveal", "row": first[0], "col": first[1]})
    while v["outcome"] == "playing":
        r, c = next((r, c) for r, row in enumerate(v["rows"]) for c, ch in enumerate(row) if ch == "H")
        _, v = _call(f"{url}/api/games/{gid}/moves", {"kind": "reveal", "row": r, "col": c})
    return {(r, c) for r, c in v["mine_cells"]}


def restart(url: str) -> str:
    first = (8, 15)
    gid = _call(url + "/api/games", {"preset": "expert"})[1]["id"]
    _call(f"{url}/api/games/{gid}/moves", {"kind": "reveal", "row": first[0], "col": first[1]})
    copy = _call(f"{url}/api/games/{gid}/restart", {})[1]["id"]
    copied = _play_out(url, copy, first)
    same = _play_out(url, gid, first) == copied
    return "the copy showed the original's mines" if same else "the copy's mines are another layout"


def puzzle(url: str, tokens: int) -> str:
    from demine.puzzles import read_puzzles

    daily = _call(url + "/api/puzzles/daily")[1]
    p = next(z for z in read_puzzles() if z.id == daily["id"])  # (the set shipped here: a wrong cell)
    wrong = next(c for c in range(p.position.cells) if p.position.states[c] >= 9 and c not in p.answer)
    body = {
        "cell": list(divmod(wrong, p.position.width)),
        "fifty": True,
        "player": {"rating": 2500, "rd": 30},
    }
    before, t0, counted = daily["rating"], time.monotonic(), 0
    for _ in range(tokens):
        token = _call(url + "/api/players", {})[1]["token"]
        v = _call(f"{url}/api/puzzles/{p.id}/answer", body, {"authorization": f"Bearer {token}"})[1]
        counted += bool(v.get("counted"))
    after = _call(url + "/api/puzzles/daily")[1]["rating"]
    took = time.monotonic() - t0
    return f"{counted} of {tokens} attempts counted; rating {before} -> {after} in {took:.0f} s"


def record(url: str) -> str:
    a = {"x-demine-owner": "a" * 43}
    gid = _call(url + "/api/games", {"preset": "beginner"}, a)[1]["id"]
    _play_out(url, gid, (4, 4))
    b = {"authorization": "Bearer " + _call(url + "/api/players", {})[1]["token"]}
    got = _call(url + "/api/players/me/games", {"games": [gid]}, b)[1]
    return "added to B's record" if got["added"] else "refused"


def files(folder: Path) -> str:
    made = folder / "data" / "demine"
    modes = [f"{made.name}/ {stat.S_IMODE(made.stat().st_mode):04o}"]
    for name in ("games.db", "games.db-wal", "games.db-shm"):
        path = made / name
        if path.exists():
            modes.append(f"{name} {stat.S_IMODE(path.stat().st_mode):04o}")
    return ", ".join(modes)


GAME = b'{"preset":"beginner"}'
#: Requests h11 read one way and a proxy may read another (tests/web/test_web_second_attack.py
#: sends them too).
FRAMINGS = {
    "both lengths": b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(GAME), GAME),
    "folded": b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Transfer-Encoding:\r\n chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(GAME), GAME),
    "bare LF": b"POST /api/games HTTP/1.1\nHost: x\nContent-Type: application/json\n"
    b"Content-Length: %d\n\n%s" % (len(GAME), GAME),
}


def framing(port: int) -> str:
    out = []
    for what, request in FRAMINGS.items():
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(request)
            s.settimeout(5)
            got = b""
            try:
                while chunk := s.recv(65536):
                    got += chunk
            except (TimeoutError, ConnectionResetError):
                pass
        out.append(f"{what} {got[9:12].decode() or 'none'}")
    return ", ".join(out)


def _from(port: int, source: str, path: str, body: Any = None) -> tuple[int, Any, float]:
    """A request from the loopback address ``source``: its status, its JSON and its seconds."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120, source_address=(source, 0))
    t0 = time.perf_counter()
    try:
        data = None if body is None else json.dumps(body)
        conn.request("POST" if body is not None else "GET", path, data, {"content-type": "application/json"})
        r = conn.getresponse()
        out = json.loads(r.read() or b"null")
        return r.status, out, time.perf_counter() - t0
    finally:
        conn.close()


def noguess(port: int, seconds: float) -> str:
    def clicks(gid: str, n: int, start: int) -> list[float]:
        times = []
        for k in range(start, start + n):
            status, v, t = _from(
                port,
                "127.3.0.1",
                f"/api/games/{gid}/moves?hints=1",
                {"kind": "flag", "row": k // 40, "col": k % 40},
            )
            if status != 200:
                raise SystemExit(f"the player's click got {status}: {v}")
            times.append(t)
            time.sleep(0.2)
        return times

    _, game, _ = _from(
        port, "127.3.0.1", "/api/games", {"width": 40, "height": 40, "mines": 240, "rule": "safe"}
    )
    gid = game["id"]
    _from(port, "127.3.0.1", f"/api/games/{gid}/moves", {"kind": "reveal", "row": 20, "col": 20})
    alone = clicks(gid, 10, 0)
    stop = time.monotonic() + seconds
    got: list[tuple[int, float]] = []

    def flood(k: int) -> None:
        body = {"width": 100, "height": 100, "mines": 5000, "rule": "safe", "no_guess": "complete"}
        while time.monotonic() < stop:
            status, v, t = _from(port, f"127.3.1.{k}", "/api/games", body)
            got.append((status, t))
            if status == 200:
                status, _, t = _from(
                    port,
                    f"127.3.1.{k}",
                    f"/api/games/{v['id']}/moves",
                    {"kind": "reveal", "row": 50, "col": 50},
                )
                got.append((status, t))
            elif status == 429:
                time.sleep(1)

    threads = [threading.Thread(target=flood, args=(k + 1,)) for k in range(6)]
    for t in threads:
        t.start()
    time.sleep(1)
    during = clicks(gid, 20, 10)
    for t in threads:
        t.join()
    statuses: dict[int, list[float]] = {}
    for status, t in got:
        statuses.setdefault(status, []).append(t)
    flood_said = ", ".join(
        f"{len(ts)} x {s} (median {statistics.median(ts):.2f} s)" for s, ts in sorted(statuses.items())
    )

    def ms(ts: list[float]) -> str:
        return f"{1000 * statistics.median(ts):.0f} / {1000 * max(ts):.0f} ms"

    return f"40x40 click median / max: alone {ms(alone)}, during {ms(during)}; flood: {flood_said}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokens", type=int, default=150, help="players made from one address (default 150)")
    ap.add_argument("--src", help="run the server from this source tree (its PYTHONPATH)")
    ap.add_argument("--noguess-seconds", type=float, default=20.0, help="the no-guess flood's length")
    ap.add_argument("--only", help="only these attacks (comma-separated names)")
    ns = ap.parse_args()
    rows = []
    only = set(ns.only.split(",")) if ns.only else {"restart", "puzzle", "record", "files", "h11", "no-guess"}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with _serve(folder, ns.src) as (url, _):
            for name, attack in (
                ("restart", lambda: restart(url)),
                ("puzzle", lambda: puzzle(url, ns.tokens)),
                ("record", lambda: record(url)),
                ("files", lambda: files(folder)),
            ):
                if name in only:
                    rows.append((name, attack()))
        if "h11" in only:
            with _serve(folder / "h11", ns.src, "--http", "h11") as (_, port):
                rows.append(("h11", framing(port)))
        if "no-guess" in only:
            with _serve(folder / "noguess", ns.src, workers=True) as (_, port):
                rows.append(("no-guess", noguess(port, ns.noguess_seconds)))
    print(f"server from {ns.src or 'this tree'}; load average {os.getloadavg()[0]:.2f}")
    for name, what in rows:
        print(f"{name:8} {what}")


if __name__ == "__main__":
    main()
