"""The web game's server processes under uvicorn: what a connection may hold, and processes that
die with their parent. Requests are parsed by httptools (in C) when it is installed, else by h11
(``serve --http``); the guards below are the same on both (:class:`GuardedHttpTools`,
:class:`GuardedH11`), and h11 refuses the ambiguous framings httptools refuses
(:class:`~demine.web.framing.StrictH11Connection`).

- **A deadline per request**: from a request's first byte (or the connection's opening) to its
  last, at most ``ServeLimits.request_timeout`` seconds; past it the answer is 408 and the
  connection is closed. A client that sends its headers or body a byte at a time (slowloris), or
  opens a connection and says nothing, holds it that long at most. (uvicorn times out only the
  pause between two requests.)
- **A cap on connections**: at most ``ServeLimits.max_connections`` open at once in a process (by
  default the open-file limit less a reserve for the games file, the workers' pipes and the
  logs), and at most ``ServeLimits.connections_per_client`` from one address (not counted behind a
  trusted proxy, whose address they all share). A connection past either is answered 503 with
  ``Retry-After`` and closed at once, so the server never reaches the open-file limit by its
  clients' doing. At the process's cap a newcomer first makes room: the connection that has been
  reading one request the longest, past :data:`EVICT_AFTER`, is answered 408 and closed (a
  slowloris from many addresses held every place, and players were refused while it lasted). If
  the server reaches the open-file limit all the same, the event loop's "out of system resource" report is
  logged once a minute, in one line, not as a traceback per refused connection.
- **A slow refusal for an address over its cap**: the connection is held unread for
  ``ServeLimits.refusal_delay`` seconds before its 503 (at most a quarter of the process's cap
  held so at once; past that, or past the process's cap, the refusal is at once). A slowloris
  reconnects as soon as it is refused: refused at once, its 268 sockets over the cap came back
  about 240 times a second, and accepting and refusing them took about a tenth of the event loop.
- **Processes**: with ``--processes N`` each server process asks the kernel for SIGKILL when its
  parent (uvicorn's supervisor) dies, even by SIGKILL (``PR_SET_PDEATHSIG``), and its hint workers
  follow it (:mod:`demine.web.workers`), so nothing holds the port after the parent is gone. (Not
  SIGTERM: a graceful shutdown waits for open connections, and a killed parent is no time to
  wait; every move answered is on disk already, and one in flight is written whole or not at all.)
"""

from __future__ import annotations

import asyncio
import ctypes
import errno
import json
import logging
import os
import resource
import signal
import time
import weakref
from collections import Counter
from typing import Any, ClassVar

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from demine.web.framing import MAX_H11_EVENT, StrictH11Connection
from demine.web.limits import ServeLimits

#: Connections accepted in one go (the listening socket's backlog): the event loop accepts up to
#: this many before the first of them is counted, and a refused one holds its file until the
#: loop's next turn, so the cap keeps twice this many files back.
BACKLOG = 128
#: The most bytes a request's line and headers may take (h11 refuses a head over 16 KB; httptools
#: has no limit of its own); past it the answer is 431 and the connection is closed.
MAX_HEAD = 64 * 1024
#: The most bytes one request may take on the wire, head, body and chunk framing (the app takes
#: bodies of 64 KB at most); past it the answer is 413 and the connection is closed.
MAX_REQUEST = 1 << 20
#: Open files kept back from the connections besides those: the games file and its journal, the
#: workers' pipes, the logs, the listening socket.
FILES_RESERVE = 64 + 2 * BACKLOG
#: At the process's cap, a connection that has been reading one request (or waiting for its
#: first) this many seconds gives its place to a newcomer: a real client's request arrives in
#: milliseconds, a slowloris's never does.
EVICT_AFTER = 1.0

log = logging.getLogger("demine.web")


def max_connections(limits: ServeLimits) -> int:
    """The connections one server process keeps open at most: ``limits.max_connections``, never
    more than the open-file limit allows with :data:`FILES_RESERVE` kept back (at the common limit
    of 1,024 files: 704)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    room = max(1, soft - FILES_RESERVE) if soft != resource.RLIM_INFINITY else 1 << 20
    return min(room, limits.max_connections) if limits.max_connections else room


def _max_open(config: uvicorn.Config, limits: ServeLimits) -> int:
    """:func:`max_connections`, computed once per server process (it asks the kernel)."""
    known: int | None = getattr(config, "_max_open", None)
    if known is None:
        known = max_connections(limits)
        config._max_open = known  # type: ignore[attr-defined]
    return known


class ServeConfig(uvicorn.Config):
    """uvicorn's settings with the app's :class:`ServeLimits` beside them (pickled to each server
    process of ``--processes N``, where the guarded protocol reads them)."""

    def __init__(self, app: Any, limits: ServeLimits, http: str = "auto", **kwargs: Any) -> None:
        super().__init__(app, http=protocol(http), proxy_headers=False, **kwargs)
        self.limits = limits


def _raw_answer(status: int, reason: str, error: str, extra: list[tuple[bytes, bytes]]) -> bytes:
    from demine.web.app import _Guard

    body = json.dumps({"error": error}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        (b"cache-control", b"no-store"),
        *extra,
        *_Guard.HEADERS,
    ]
    head = b"HTTP/1.1 %d %s\r\n" % (status, reason.encode())
    return head + b"".join(k + b": " + v + b"\r\n" for k, v in headers) + b"\r\n" + body


#: Each running server's open connections by address (a server's state is its key, so the
#: count goes with it).
_OPEN_BY_HOST: weakref.WeakKeyDictionary[Any, Counter[str]] = weakref.WeakKeyDictionary()
#: Each running server's refused connections held before their answer (see ``refusal_delay``).
_HELD: weakref.WeakKeyDictionary[Any, set[_Guards]] = weakref.WeakKeyDictionary()


class _ClientNoise(logging.Filter):
    """Drops uvicorn's warnings that any client can cause once a request, in a stream, at no
    cost: a request h11 cannot parse (answered 400 all the same), and an Upgrade request (no
    WebSocket here: it is served as plain HTTP). Four connections sending Upgrade requests wrote
    1 MB of these to the log in 5 s; garbage requests on h11, 263 KB."""

    NOISE = (
        "Invalid HTTP request received.",
        "Unsupported upgrade request.",
        "No supported WebSocket library",
    )

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and record.msg.startswith(self.NOISE))


_NOISE = _ClientNoise()


def _quiet_client_noise() -> None:
    """Put :class:`_ClientNoise` on uvicorn's error log (once; in each server process)."""
    logger = logging.getLogger("uvicorn.error")
    if _NOISE not in logger.filters:
        logger.addFilter(_NOISE)


class _Guards:
    """A deadline per request and caps on connections (see the module's docstring), for one of
    uvicorn's HTTP/1.1 protocols (:class:`GuardedH11`, :class:`GuardedHttpTools`): put first
    among the bases, so that its methods wrap the protocol's."""

    cycle: Any
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop

    REFUSED: ClassVar[bytes] = _raw_answer(
        503,
        "Service Unavailable",
        "too many connections open: try again in a moment",
        [(b"retry-after", b"1")],
    )
    TOO_SLOW: ClassVar[bytes] = _raw_answer(408, "Request Timeout", "the request took too long to arrive", [])
    TOO_MUCH: ClassVar[bytes] = _raw_answer(
        413, "Content Too Large", f"the request is over {MAX_REQUEST} bytes on the wire", []
    )
    _read = 0
    """The bytes read of the request being read (see :data:`MAX_REQUEST`)."""

    def __init__(
        self, config: uvicorn.Config, server_state: Any, app_state: dict[str, Any], _loop: Any = None
    ) -> None:
        # uvicorn's own state (an h11 connection, loggers) is made in connection_made, once the
        # connection is let in: a refused one (a slowloris reconnecting as fast as it is closed)
        # costs an accept, a write and a close
        self._made = (config, server_state, app_state, _loop)
        limits = getattr(config, "limits", None) or ServeLimits()
        self.limits: ServeLimits = limits
        self.max_open = _max_open(config, limits)
        self._deadline: asyncio.TimerHandle | None = None
        self._reading_since: float | None = None
        """When the request being read began (None: none is being read, or it came in whole)."""
        self._host: str | None = None
        """The address this connection is counted under in :attr:`_by_host` (None: not counted)."""
        self._by_host = _OPEN_BY_HOST.setdefault(server_state, Counter())
        """This server's open connections by address."""
        self._open = server_state.connections
        self._held = _HELD.setdefault(server_state, set())
        """This server's refused connections held before their answer."""
        self._let_in = False

    def connection_made(self, transport: asyncio.Transport) -> None:
        peer = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple) and peer else None
        per_client = None if self.limits.trust_proxy else self.limits.connections_per_client
        if len(self._open) + len(self._held) >= self.max_open and not self._evict_slowest():
            self._refuse(transport)  # (files are scarce: at once)
            return
        if per_client is not None and host is not None and self._by_host[host] >= per_client:
            if self.limits.refusal_delay > 0 and len(self._held) < self.max_open // 4:
                # held unread, then refused: the client waits before it can reconnect
                transport.pause_reading()
                self._held.add(self)
                self._deadline = asyncio.get_running_loop().call_later(
                    self.limits.refusal_delay, self._refuse, transport
                )
            else:
                self._refuse(transport)
            return
        self._let_in = True
        _quiet_client_noise()
        self._start_protocol()
        super().connection_made(transport)  # type: ignore[misc]
        if host is not None:
            self._host = host
            self._by_host[host] += 1
        self._arm()

    def _start_protocol(self) -> None:
        """Make uvicorn's own state for this connection (its ``__init__``, put off until the
        connection is let in)."""
        super().__init__(*self._made)  # type: ignore[call-arg]

    def _evict_slowest(self) -> bool:
        """Close the open connection that has been reading one request the longest, if that is
        over :data:`EVICT_AFTER` seconds (its answer 408); whether one was closed. (Its file is
        given back on the loop's next turn: the cap's reserve covers the overlap.)"""
        slowest, since = None, asyncio.get_running_loop().time() - EVICT_AFTER
        for conn in self._open:
            began = getattr(conn, "_reading_since", None)
            if began is not None and began <= since:
                slowest, since = conn, began
        if slowest is None:
            return False
        slowest._too_slow()
        return True

    def _refuse(self, transport: asyncio.BaseTransport) -> None:
        self._deadline = None
        self._held.discard(self)
        if not transport.is_closing():
            transport.write(self.REFUSED)  # type: ignore[attr-defined]
            transport.close()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.limits.request_timeout, self._too_slow)
        self._reading_since = self.loop.time()

    def _disarm(self) -> None:
        self._reading_since = None
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def eof_received(self) -> None:
        if self._let_in:
            super().eof_received()  # type: ignore[misc]

    def pause_writing(self) -> None:
        if self._let_in:
            super().pause_writing()  # type: ignore[misc]

    def resume_writing(self) -> None:
        if self._let_in:
            super().resume_writing()  # type: ignore[misc]

    def data_received(self, data: bytes) -> None:
        if not self._let_in:
            return  # (refused and closed: nothing more is read)
        if self._deadline is None:
            self._read = 0  # (no request being read: these bytes begin one)
            if self.cycle is None or self.cycle.response_complete:
                self._arm()  # the first bytes of the next request on this connection
        self._read += len(data)
        if self._read > MAX_REQUEST:
            self._too_much()
            return
        self._parse(data)
        if self._whole():
            self._disarm()  # the whole request is in: the app's time is not the client's

    def _too_much(self) -> None:
        # a body the app refused (413) and the client sends on, or a chunked body of endless
        # chunk extensions (httptools reads them at 600 MB/s: one connection held the event loop
        # for its 10 s), is not read to its end
        self._disarm()
        if not self._answering():
            self.transport.write(self.TOO_MUCH)
        self.transport.close()

    def _whole(self) -> bool:
        """Whether the request being read has come in whole (its deadline no longer runs)."""
        return False

    def _answering(self) -> bool:
        """Whether an answer is being sent on this connection (begun, not ended): an error
        answer of the guards cannot be put in its middle, only the connection closed. (After a
        whole answer the next request's refusal is sent: a pipelined request h11 refused was
        closed without its 400.)"""
        cycle = self.cycle
        return cycle is not None and cycle.response_started and not cycle.response_complete

    def _parse(self, data: bytes) -> None:
        """The protocol's own reading of ``data``."""
        super().data_received(data)  # type: ignore[misc]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._let_in:
            self._disarm()  # (a held refusal whose client went away first)
            self._held.discard(self)
            return  # refused: nothing of uvicorn's was made
        self._disarm()
        if self._host is not None:
            self._by_host[self._host] -= 1
            if not self._by_host[self._host]:
                del self._by_host[self._host]
            self._host = None
        super().connection_lost(exc)  # type: ignore[misc]

    def send_400_response(self, msg: str) -> None:
        """uvicorn's own 400 (a request h11 cannot parse: a bad Content-Length or chunk size, no
        Host header, raw bytes outside ASCII in the path), in the API's error shape with the
        security headers instead of plain text; the connection is closed, as uvicorn does."""
        self._disarm()
        if not self._answering():
            error = f"the request is not valid HTTP/1.1 ({msg.rstrip('.').lower()})"
            self.transport.write(_raw_answer(400, "Bad Request", error, []))
        self.transport.close()

    def _too_slow(self) -> None:
        self._disarm()
        if self.transport.is_closing():
            return
        if not self._answering():
            self.transport.write(self.TOO_SLOW)
        self.transport.close()


class GuardedH11(_Guards, H11Protocol):  # type: ignore[misc]
    """uvicorn's h11 protocol (pure Python), guarded, on :class:`StrictH11Connection`."""

    def _start_protocol(self) -> None:
        super()._start_protocol()
        # (uvicorn's own, made with the same settings; no byte has been read yet)
        most = self.config.h11_max_incomplete_event_size
        self.conn = StrictH11Connection(h11.SERVER, most if most is not None else MAX_H11_EVENT)

    def _whole(self) -> bool:
        return self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR)


try:  # (the parser in C, when installed: serve --http httptools)
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _HttpTools

    HAVE_HTTPTOOLS = True
except ImportError:  # pragma: no cover
    _HttpTools = H11Protocol  # type: ignore[misc, assignment]  # (a stand-in: never served)
    HAVE_HTTPTOOLS = False


class GuardedHttpTools(_Guards, _HttpTools):  # type: ignore[misc]
    """uvicorn's httptools protocol (its parser in C), guarded, and refusing what h11 refuses and
    httptools lets through (an HTTP/1.1 request without a Host header). Defined at the module's
    level: ``--processes N`` pickles the settings, this class with them."""

    TOO_LARGE: ClassVar[bytes] = _raw_answer(
        431,
        "Request Header Fields Too Large",
        f"the request's line and headers are over {MAX_HEAD} bytes",
        [],
    )

    #: The bytes of the request's head (line and headers) read so far: the parsed pieces, and
    #: the reads that began and ended inside the head (a header still being read is kept whole by
    #: httptools); None between requests.
    _head: int | None = None
    _head_reads = 0
    _why: str | None = None
    """Why a callback stopped the parse (the 400's reason)."""

    def _parse(self, data: bytes) -> None:
        # uvicorn's, less its warning in the log for each request it cannot parse: httptools
        # parses a line at a time, so a slowloris's garbage lines came at once, and each logged
        import httptools  # type: ignore[import-not-found, unused-ignore]

        self._unset_keepalive_if_required()
        in_head = self._head is not None
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._unsupported_upgrade_warning()  # (no WebSocket here: served as plain HTTP)
        except httptools.HttpParserError as e:
            if self._head is not None and self._head > MAX_HEAD:
                self._too_large()
            else:
                self.send_400_response(self._why or str(e) or "invalid request")
            return
        if in_head and self._head is not None:
            self._head_reads += len(data)
            if self._head_reads > MAX_HEAD:
                self._too_large()

    def _too_large(self) -> None:
        # (h11 refuses a head over 16 KB; httptools has no such limit: 100 MB of header lines
        # sent in 10 s took the server to 2 GB)
        self._disarm()
        if self.cycle is None or self.cycle.response_complete:
            self.transport.write(self.TOO_LARGE)
        self.transport.close()

    def _count(self, n: int) -> None:
        self._head = (self._head or 0) + n
        if self._head > MAX_HEAD:
            raise ValueError("the request's head is too large")  # (the parse stops)

    def on_message_begin(self) -> None:
        self._head, self._head_reads = 0, 0
        super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value) + 4)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._head = None
        if self.parser.get_http_version() == "1.1" and not any(k == b"host" for k, _ in self.headers):
            # (raised in the parser's callback: the parse stops, and the protocol answers 400
            # with this reason; httptools's own says only "user callback error")
            self._why = "missing required Host header"
            raise ValueError(self._why)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()  # the whole request is in
        super().on_message_complete()


#: The HTTP/1.1 parsers ``serve --http`` offers.
HTTP_PARSERS = ("auto", "h11", "httptools")


def protocol(http: str) -> type[asyncio.Protocol]:
    """The guarded protocol of ``http``: ``h11``, ``httptools`` (an error if it is not installed),
    or ``auto`` (httptools when installed)."""
    if http not in HTTP_PARSERS:
        raise ValueError(f"--http: {http!r} is not one of {', '.join(HTTP_PARSERS)}")
    if http == "httptools" and not HAVE_HTTPTOOLS:
        from demine.errors import DemineError

        raise DemineError("--http httptools needs the httptools package: pip install httptools")
    return GuardedHttpTools if http != "h11" and HAVE_HTTPTOOLS else GuardedH11


class _QuietAcceptErrors:
    """The event loop's exception handler: "out of system resource" on accept (the open-file
    limit reached), and the retry of accepting that follows it, are logged once a minute in one
    line; anything else as before."""

    def __init__(self, every: float = 60.0) -> None:
        self.every, self.last, self.missed = every, -float("inf"), 0

    @staticmethod
    def about_files(context: dict[str, Any]) -> bool:
        message, e = str(context.get("message", "")), context.get("exception")
        if "out of system resource" in message or "_start_serving" in message:
            return True
        return isinstance(e, OSError) and e.errno in (errno.EMFILE, errno.ENFILE)

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if not self.about_files(context):
            loop.default_exception_handler(context)
            return
        now = time.monotonic()
        if now - self.last < self.every:
            self.missed += 1
            return
        self.last = now
        log.warning(
            "the open-file limit is reached; new connections wait (%s; %d more since the last report)",
            context.get("exception"),
            self.missed,
        )
        self.missed = 0


def quiet_accept_errors() -> None:
    """Install :class:`_QuietAcceptErrors` on the running event loop."""
    asyncio.get_running_loop().set_exception_handler(_QuietAcceptErrors())


PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int, sig: int = signal.SIGKILL) -> None:
    """Ask the kernel to send ``sig`` to this process when its parent dies (Linux; elsewhere
    nothing is done), and exit now if ``parent`` is gone already. Called from the main thread: the
    kernel ties the request to the thread that made it."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os.kill(os.getpid(), sig)


def run(
    app: Any, limits: ServeLimits, host: str, port: int, processes: int = 1, http: str = "auto", **kwargs: Any
) -> None:
    """Serve ``app`` (with ``processes`` > 1: an import string of a factory) with uvicorn, under
    the guarded protocol of ``http`` (:func:`protocol`); blocks until stopped."""
    config = ServeConfig(
        app,
        limits,
        http,
        host=host,
        port=port,
        workers=processes,
        factory=processes > 1,
        log_level="warning",
        timeout_graceful_shutdown=10,
        backlog=BACKLOG,
        **kwargs,
    )
    server = uvicorn.Server(config)
    if processes > 1:
        from uvicorn.supervisors import Multiprocess

        sock = config.bind_socket()
        Multiprocess(config, sockets=[sock]).run()
    else:
        server.run()
