"""``demine serve`` as a real server process (uvicorn, the operating system): whose address a
request is counted under, connections held open by a slow client, and the processes of
``--processes N`` when their parent is killed. Loopback only; every loop is bounded."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(
    tmp: Path, *args: str, port: int | None = None, **popen: Any
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``demine serve ARGS`` on a free loopback port with a fresh games file, stopped after."""
    port = port or _free_port()
    cmd = [sys.executable, "-m", "demine", "serve", "--port", str(port), "--db", str(tmp / "games.db"), *args]
    popen.setdefault("stdout", subprocess.DEVNULL)
    popen.setdefault("stderr", subprocess.PIPE)
    proc = subprocess.Popen(cmd, **popen)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.1)
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _status(url: str, path: str, body: Any = None, headers: Sequence[tuple[str, str]] = ()) -> int:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, headers={"content-type": "application/json"})
    for k, v in headers:
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def _new_games(url: str, forwarded: Sequence[str]) -> list[int]:
    """One new game per X-Forwarded-For value, from 127.0.0.1; the answers' statuses."""
    return [_status(url, "/api/games", {"preset": "beginner"}, [("x-forwarded-for", f)]) for f in forwarded]


def test_without_trust_proxy_forwarded_headers_are_ignored_from_loopback_too(tmp_path: Path) -> None:
    # uvicorn by default believes X-Forwarded-For from 127.0.0.1: a local client could reset its
    # rates with a new value per request
    with serving(tmp_path, "--workers", "0", "--rate", "games=3/minute") as (url, _):
        codes = _new_games(url, [f"10.0.0.{i}" for i in range(4)])
    assert codes[:3] == [200, 200, 200]
    assert codes[3] == 429


def test_with_trust_proxy_the_client_is_the_entry_the_proxy_appended(tmp_path: Path) -> None:
    with serving(tmp_path, "--workers", "0", "--rate", "games=3/minute", "--trust-proxy") as (url, _):
        # the entries left of the proxy's are the client's own words: changing them changes nothing
        spoofed = _new_games(url, [f"10.9.9.{i}, 203.0.113.7" for i in range(4)])
        # distinct clients behind the proxy are counted apart
        distinct = _new_games(url, [f"203.0.113.7, 198.51.100.{i}" for i in range(4)])
    assert spoofed == [200, 200, 200, 429]
    assert distinct == [200, 200, 200, 200]


def test_proxy_hops_take_the_entry_that_many_from_the_right(tmp_path: Path) -> None:
    args = ("--workers", "0", "--rate", "games=3/minute", "--trust-proxy", "--proxy-hops", "2")
    with serving(tmp_path, *args) as (url, _):
        # client, the first proxy's view of it, the second proxy (its own address appended last)
        spoofed = _new_games(url, [f"10.9.9.{i}, 198.51.100.5, 10.0.0.{i}" for i in range(4)])
        # the header may come in several lines: they are read as one list, in order
        other = _raw_status(url, "192.0.2.1", "198.51.100.9, 10.0.0.1")
    assert spoofed == [200, 200, 200, 429]
    assert other == 200


def _raw_status(url: str, *forwarded: str) -> int:
    """POST a new game with one X-Forwarded-For line per value (urllib merges them)."""
    port = int(url.rsplit(":", 1)[1])
    body = b'{"preset": "beginner"}'
    lines = [b"POST /api/games HTTP/1.1", b"host: 127.0.0.1", b"content-type: application/json"]
    lines += [b"x-forwarded-for: " + f.encode() for f in forwarded]
    lines += [b"content-length: %d" % len(body), b"connection: close", b"", body]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"\r\n".join(lines))
        answer = s.recv(64)
    return int(answer.split()[1])
