"""The server under attack, in a real ``demine serve`` process (issue 34): a full disk (a file-size
limit on the server process) leaks no layout; uvicorn's own 400s come in the API's error shape; a
damaged games file, or a ``--db`` under a file, is refused at start with a clear message; the
expiry, size and memory options are printed at start."""

from __future__ import annotations

import json
import random
import resource
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from demine.engine.game import Game, Move
from tests.serving import free_port, raw, running

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="file-size limits and /proc are Linux's")

SCRIPT = [
    "--workers",
    "0",
    *(a for k in ("games", "moves", "hints", "views", "exports") for a in ("--rate", f"{k}=off")),
    *("--pace", "0"),
]


def _serve_cmd(port: int, db: Path | str, *more: str) -> list[str]:
    return [sys.executable, "-m", "demine", "serve", "--port", str(port), "--db", str(db), *SCRIPT, *more]


@contextmanager
def _server(
    db: Path, *more: str, preexec: Callable[[], None] | None = None, tmpfs: str | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A ``demine serve`` process; with ``tmpfs`` (a size), its games file's folder is a tmpfs of
    that size mounted in a mount namespace of its own (``unshare``)."""
    port = free_port()
    cmd = _serve_cmd(port, db, *more)
    if tmpfs is not None:
        mount = f"mount -t tmpfs -o size={tmpfs} tmpfs {shlex.quote(str(db.parent))}"
        cmd = ["unshare", "-rm", "sh", "-c", f"{mount} && exec {shlex.join(cmd)}"]
    with running(cmd, port, stdout=subprocess.PIPE, preexec_fn=preexec) as served:
        yield served


def _call(url: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any], Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read()), r.headers
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read()), e.headers


# ---------------------------------------------------------------------- a full disk
def _tmpfs_missing(where: Path) -> str | None:
    """Why a tmpfs cannot be mounted in a namespace of its own here, or None."""
    if shutil.which("unshare") is None:
        return "no unshare"
    r = subprocess.run(
        ["unshare", "-rm", "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs {shlex.quote(str(where))}"],
        capture_output=True,
    )
    return None if r.returncode == 0 else f"cannot mount a tmpfs: {r.stderr.decode().strip()}"


def _small_files() -> None:  # the server may write no file past 192 KiB: a full disk for it
    resource.setrlimit(resource.RLIMIT_FSIZE, (192 * 1024, 192 * 1024))


@pytest.mark.parametrize("disk", ["file-size limit", "small tmpfs"])
def test_on_a_full_disk_a_move_answers_503_and_the_layout_stays_hidden(tmp_path: Path, disk: str) -> None:
    folder = tmp_path / "disk"
    folder.mkdir()
    if disk == "small tmpfs" and (why := _tmpfs_missing(folder)) is not None:
        pytest.skip(why)
    how: dict[str, Any] = {"preexec": _small_files} if disk == "file-size limit" else {"tmpfs": "256k"}
    seed = "full disk"
    with _server(folder / "games.db", **how) as (url, proc):
        status, v, _ = _call(url + "/api/games", {"preset": "expert", "seed": seed})
        assert status == 200
        gid = v["id"]
        game = Game(30, 16, 99, rule="safe", seed=seed)
        game.play(Move("reveal", 8 * 30 + 15))
        mines = set(game.mine_cells())
        status, v, _ = _call(f"{url}/api/games/{gid}/moves", {"kind": "reveal", "row": 8, "col": 15})
        assert status == 200
        covered = [r * 30 + c for r, row in enumerate(v["rows"]) for c, ch in enumerate(row) if ch in "H"]
        mine = next(c for c in covered if c in mines)
        safe = next(c for c in covered if c not in mines)
        # flags until the file cannot grow: each move appends to the write-ahead log
        refused = None
        for _ in range(2000):
            status, body, headers = _call(
                f"{url}/api/games/{gid}/moves", {"kind": "flag", "row": safe // 30, "col": safe % 30}
            )
            if status != 200:
                refused = status, body, headers
                break
        assert refused is not None, "the file-size limit was never reached"
        status, body, headers = refused
        assert status == 503 and set(body) == {"error"} and int(headers["retry-after"]) >= 1
        assert headers["x-content-type-options"] == "nosniff"
        _, before, _ = _call(f"{url}/api/games/{gid}")
        # the attacker's move: a mine, refused; nothing of the layout leaves, now or after
        status, body, _ = _call(
            f"{url}/api/games/{gid}/moves", {"kind": "reveal", "row": mine // 30, "col": mine % 30}
        )
        assert status == 503, body
        for path in ("", "/replay?move=0", "/export", "/review"):
            status, body, _ = _call(f"{url}/api/games/{gid}{path}")
            text = json.dumps(body)
            assert "mine_cells" not in text and '"record"' not in text, (path, text[:200])
            if path:
                assert status == 409, (path, status, text[:200])
        _, after, _ = _call(f"{url}/api/games/{gid}")
        assert after["outcome"] == "playing" and after["moves"] == before["moves"]
        assert after["rows"] == before["rows"]
        assert proc.poll() is None  # still serving


# ---------------------------------------------------------------------- uvicorn's own 400s
BAD_REQUESTS = {
    "bad content-length": b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}",
    "bad chunk size": b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    "no host": b"GET /api/games/abc HTTP/1.1\r\n\r\n",
    "raw non-ascii path": "GET /api/games/\u00e9t\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n".encode("latin-1"),
    "not http": b"HELLO THERE\r\n\r\n",
}


def test_protocol_errors_come_in_the_error_shape_and_serve_prints_its_options(tmp_path: Path) -> None:
    options = ["--idle-expiry", "2", "--finished-expiry", "0.5", "--max-db-size", "100M", "--memory", "32M"]
    with _server(tmp_path / "games.db", *options) as (url, proc):
        port = int(url.rsplit(":", 1)[1])
        for what, request in BAD_REQUESTS.items():
            answer = raw(port, request)
            head, _, body = answer.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            assert lines[0].startswith("HTTP/1.1 400"), (what, answer[:200])
            headers = {k.lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
            assert headers["content-type"] == "application/json", what
            assert headers["x-content-type-options"] == "nosniff", what
            assert "frame-ancestors 'none'" in headers["content-security-policy"], what
            error = json.loads(body)
            assert set(error) == {"error"} and "HTTP" in error["error"], what
        assert _call(url + "/api/games", {"preset": "beginner"})[0] == 200  # still serving
        proc.terminate()
        # (serve wraps its notes at 80 columns, where the folder's path falls: words, not lines)
        out = " ".join(proc.communicate(timeout=15)[0].decode().split())
    assert "unfinished games expire after 2 days without a move, finished ones after 0.5 days" in out
    assert "kept under 100 MiB" in out and "memory for games 32 MiB" in out


# ---------------------------------------------------------------------- refused at start
def _start_fails(db: Path | str) -> str:
    r = subprocess.run(_serve_cmd(free_port(), db), capture_output=True, timeout=60)
    assert r.returncode == 2, r
    err = r.stderr.decode()
    assert "Traceback" not in err
    return err


def test_a_damaged_games_file_is_refused_at_start(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    from demine.web.service import Service
    from demine.web.store import Store

    store = Store(db)
    service = Service(store)
    for i in range(300):
        service.new_game(preset="expert", seed=i)
    store.compact()
    store.close()
    data = bytearray(db.read_bytes())
    rng = random.Random(1)
    page = 4096
    for p in range(2, len(data) // page):  # every page but the first two: the schema survives
        for _ in range(64):
            data[p * page + rng.randrange(page)] = rng.randrange(256)
    db.write_bytes(bytes(data))
    err = _start_fails(db)
    assert str(db) in err and "damaged" in err and "backup" in err, err


def test_a_db_under_a_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("not a folder")
    err = _start_fails(tmp_path / "afile" / "sub" / "games.db")
    assert f"{tmp_path / 'afile'} is a file, not a folder" in err, err


def test_serve_options_are_checked(tmp_path: Path) -> None:
    for bad in (["--memory", "lots"], ["--max-db-size", "-1G"], ["--idle-expiry", "0"]):
        r = subprocess.run(
            [sys.executable, "-m", "demine", "serve", "--db", str(tmp_path / "g.db"), *bad],
            capture_output=True,
            timeout=60,
        )
        assert r.returncode == 2 and bad[0] in r.stderr.decode() and "Traceback" not in r.stderr.decode()


# ---------------------------------------------------------------------- the httptools parser
def test_the_parser_is_chosen_by_name() -> None:
    from demine.errors import DemineError
    from demine.web.server import HAVE_HTTPTOOLS, GuardedH11, GuardedHttpTools, protocol

    assert protocol("h11") is GuardedH11
    assert protocol("auto") is (GuardedHttpTools if HAVE_HTTPTOOLS else GuardedH11)
    with pytest.raises(ValueError, match="not one of"):
        protocol("h2")
    if not HAVE_HTTPTOOLS:
        with pytest.raises(DemineError, match="pip install httptools"):
            protocol("httptools")


@pytest.mark.parametrize("http", ["h11", "httptools"])
def test_on_either_parser_bad_requests_slow_ones_and_garbage_meet_the_same_guards(
    tmp_path: Path, http: str
) -> None:
    # httptools parses a line at a time (h11 waits for the whole head): a bad line is answered at
    # once, in the error shape, without a warning in the log for each (a flood of garbage would
    # flood the log); a slow request meets its deadline on both
    pytest.importorskip(http)
    options = ("--http", http, "--request-timeout", "2")
    with _server(tmp_path / "games.db", *options) as (url, proc):
        port = int(url.rsplit(":", 1)[1])
        for what, request in BAD_REQUESTS.items():
            head, _, body = raw(port, request).partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 400"), (what, head[:200])
            assert b"x-content-type-options: nosniff" in head, what
            assert set(json.loads(body)) == {"error"}, what
        if http == "httptools":
            for _ in range(50):
                assert raw(port, b"x-slow: 1\r\n").startswith(b"HTTP/1.1 400")
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"GET / HTTP/1.1\r\nhost: x\r\n")
            t0 = time.monotonic()
            assert s.recv(64).startswith(b"HTTP/1.1 408") and 1.5 < time.monotonic() - t0 < 5
        assert _call(url + "/api/games", {"preset": "beginner"})[0] == 200
        proc.terminate()
        err = proc.communicate(timeout=15)[1].decode()
    if http == "httptools":
        assert "Invalid HTTP request" not in err and len(err) < 2000, err[-2000:]
