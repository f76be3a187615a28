"""A real ``demine serve`` process on a free loopback port, for the tests whose behaviour depends on
uvicorn or the operating system (shared by tests/web's process tests), and raw requests to it."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(cmd: Sequence[str], port: int, *, timeout: float = 60, **popen: Any) -> subprocess.Popen[bytes]:
    """Start ``cmd`` and wait until ``http://127.0.0.1:PORT/`` answers.

    A process that exits first, or is not up within ``timeout`` seconds, is killed and raises
    ``RuntimeError`` with what it wrote to stderr (when stderr is a pipe)."""
    popen.setdefault("stdout", subprocess.DEVNULL)
    popen.setdefault("stderr", subprocess.PIPE)
    proc: subprocess.Popen[bytes] = subprocess.Popen(list(cmd), **popen)
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1):
                return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                if proc.poll() is None:
                    proc.kill()
                err = proc.communicate()[1] or b""
                raise RuntimeError("the server did not start: " + err.decode(errors="replace")) from None
            time.sleep(0.1)


def stop(proc: subprocess.Popen[bytes], timeout: float = 20) -> None:
    """Terminate ``proc`` if it still runs; kill it when it has not ended after ``timeout`` s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def running(cmd: Sequence[str], port: int, **popen: Any) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """:func:`start`, yield the base URL and the process, then :func:`stop`."""
    proc = start(cmd, port, **popen)
    try:
        yield f"http://127.0.0.1:{port}", proc
    finally:
        stop(proc)


def answer(s: socket.socket, timeout: float) -> bytes:
    """What the server sent on ``s`` until it closed it or ``timeout`` seconds passed."""
    s.settimeout(timeout)
    out = b""
    try:
        while chunk := s.recv(65536):
            out += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return out


def raw(port: int, request: bytes, timeout: float = 10) -> bytes:
    """Send ``request``'s bytes as they are to the server on ``port``; what it answered (see
    :func:`answer`)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        return answer(s, timeout)
