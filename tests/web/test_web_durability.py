"""A real server process killed with SIGKILL mid-game: every acknowledged move is in the file when
it starts again, and its hint workers do not live on as orphans."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.serving import free_port, start

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc for the worker processes")


#: The tests move at a script's speed, past the per-second rates and the pace a person never meets.
SCRIPT = [*(a for k in ("moves", "games", "hints", "views") for a in ("--rate", f"{k}=off")), "--pace", "0"]


def _start(db: Path, port: int) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable,
        "-m",
        "demine",
        "serve",
        "--port",
        str(port),
        "--db",
        str(db),
        "--workers",
        "2",
        *SCRIPT,
    ]
    return start(cmd, port)


def _call(url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        out: dict[str, Any] = json.loads(r.read())
        return out


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        out += [int(x) for x in text]
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_killed_server_keeps_every_acknowledged_move_and_leaves_no_orphans(tmp_path: Path) -> None:
    db, port = tmp_path / "games.db", free_port()
    server = _start(db, port)
    base = f"http://127.0.0.1:{port}"
    try:
        workers = _children(server.pid)
        assert len(workers) >= 2  # the hint workers (and the pool's helper, if any)
        game = _call(f"{base}/api/games", {"preset": "expert", "rule": "zero", "seed": "dur"})
        gid = game["id"]
        acknowledged = 0
        _call(f"{base}/api/games/{gid}/moves", {"kind": "reveal", "row": 3, "col": 3})
        acknowledged += 1
        for i in range(40):  # flags on and off a corner cell: each answer is an acknowledgement
            _call(f"{base}/api/games/{gid}/moves", {"kind": "flag", "row": 15, "col": 29 - (i % 2)})
            acknowledged += 1
        _call(f"{base}/api/games/{gid}/hints")  # the workers are busy with a real hint too
    finally:
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=10)
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(w) for w in workers), "hint workers outlived their server"
    again = _start(db, port)
    try:
        view = _call(f"{base}/api/games/{gid}")
        assert view["moves"] == acknowledged
    finally:
        again.terminate()
        again.wait(timeout=10)


def test_two_server_processes_on_one_database_lose_no_move(store_url: str) -> None:
    """On a SQLite file and on PostgreSQL (``store_url`` runs it on each)."""
    import threading

    port = free_port()
    cmd = [sys.executable, "-m", "demine", "serve", "--port", str(port), "--db", store_url, *SCRIPT]
    server = subprocess.Popen(
        [*cmd, "--workers", "0", "--processes", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                gid = _call(f"{base}/api/games", {"preset": "expert", "rule": "zero", "seed": "pp"})["id"]
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        _call(f"{base}/api/games/{gid}/moves", {"kind": "reveal", "row": 3, "col": 3})
        view = _call(f"{base}/api/games/{gid}")
        covered = [(r, c) for r in range(16) for c in range(30) if view["rows"][r][c] == "H"][:64]
        errors: list[str] = []

        def flagger(k: int) -> None:  # each thread sets the flags of its own cells, in parallel
            for r, c in covered[k::8]:
                try:
                    _call(f"{base}/api/games/{gid}/moves", {"kind": "flag", "row": r, "col": c, "flag": True})
                except OSError as e:
                    errors.append(str(e))

        threads = [threading.Thread(target=flagger, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        # whichever process answers, it shows every flag and every move
        for _ in range(6):
            v = _call(f"{base}/api/games/{gid}")
            assert v["moves"] == 1 + len(covered)
            assert all(v["rows"][r][c] == "F" for r, c in covered)
    finally:
        server.terminate()
        server.wait(timeout=20)
