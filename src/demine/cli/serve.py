"""``demine serve``: the web game (the web extra)."""

from __future__ import annotations

import argparse
from typing import Any

from demine.cli import non_negative_float, positive_float, positive_int
from demine.errors import DemineError

_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def byte_size(text: str) -> int:
    """An argparse type: a size in bytes, with an optional K, M, G or T (powers of 1024; a
    trailing B or iB is allowed): ``64M``, ``2G``, ``1.5GiB``, ``500000``."""
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = t[-1:] if t[-1:] in _UNITS else ""
    try:
        value = float(t[: len(t) - len(unit)] if unit else t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size like 64M or 2G") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"a size must be positive, got {text!r}")
    return max(1, round(value * _UNITS[unit]))


def days(text: str) -> float:
    """An argparse type: a positive number of days (fractions allowed), returned in seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days") from None
    if not 0 < value < 1e6:
        raise argparse.ArgumentTypeError(f"days must be positive, got {text!r}")
    return value * 86400.0


def add_serve(sub: Any) -> None:
    p = sub.add_parser("serve", help="play in the browser with hints, and analyse positions (the web extra)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=positive_int, default=8000, help="port (default: 8000)")
    p.add_argument(
        "--db",
        help="where the games are kept: a SQLite file (default: ~/.local/share/demine/games.db) or "
        "a PostgreSQL address postgresql://user:password@host:port/database (the postgres extra)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes that compute hints (default: one per CPU when there are several; 0: none)",
    )
    p.add_argument(
        "--rate",
        action="append",
        metavar="KIND=RATE",
        help="requests one client may make, KIND one of games, moves, hints, analyses (and "
        "reviews), records, views (and replay frames), exports, RATE like 600/minute, "
        "20/second;1200/minute (both at once) or off (defaults: games 5/second;60/minute, moves "
        "30/second;1200/minute, hints 20/second;600/minute, analyses 5/second;120/minute, records "
        "10/second;300/minute, views 30/second;1800/minute, exports 2/second;60/minute); repeat for several",
    )
    p.add_argument(
        "--trust-proxy",
        action="store_true",
        help="take each client's address from X-Forwarded-For, as the proxy in front appended it "
        "(only behind a proxy that appends it; without this option the header is ignored from everyone)",
    )
    p.add_argument(
        "--proxy-hops",
        type=positive_int,
        default=1,
        help="with --trust-proxy: how many proxies in a row append to X-Forwarded-For; the client is "
        "the entry that many from the right (default 1: the rightmost)",
    )
    p.add_argument(
        "--request-timeout",
        type=positive_float,
        default=10.0,
        help="seconds a request may take to arrive, headers and body (default 10; past it: 408, closed)",
    )
    p.add_argument(
        "--max-connections",
        type=positive_int,
        help="connections open at once in each server process (default: what the open-file limit "
        "allows, less 320); past it a new one gets 503",
    )
    p.add_argument(
        "--connections-per-client",
        type=positive_int,
        default=32,
        help="connections one address may hold open at once (default 32; not counted with --trust-proxy)",
    )
    p.add_argument(
        "--http",
        choices=("auto", "h11", "httptools"),
        default="auto",
        help="the HTTP/1.1 parser: httptools (in C, part of the web extra), h11 (pure Python) or "
        "auto (the default: httptools when installed, else h11); the same guards on each",
    )
    p.add_argument(
        "--refusal-delay",
        type=non_negative_float,
        default=5.0,
        metavar="SECONDS",
        help="a connection over its address's cap is held this long, unread, before its 503, so a "
        "client that reconnects when refused comes back less often (default 5; 0: at once)",
    )
    p.add_argument(
        "--running-per-client",
        type=positive_int,
        default=2,
        help="API requests of one client handled at once in a server process (default 2); its others "
        "wait their turn, holding only their connection",
    )
    p.add_argument(
        "--pace",
        type=non_negative_float,
        default=20.0,
        metavar="PER_SECOND",
        help="API requests one client starts a second at most, evenly, after 5 at once (default 20); "
        "one that comes sooner waits for its time, so a script's bursts are spread (0: not paced)",
    )
    p.add_argument(
        "--niced-background",
        action="store_true",
        help="run the slow lane's and the reviews' workers only niced (10 and 19), not at Linux's "
        "SCHED_IDLE (the default, where they run only when nothing else wants the CPU): on a machine "
        "busy with other low-priority work they then still get their share",
    )
    p.add_argument(
        "--full-collection-every",
        type=positive_int,
        default=100,
        metavar="N",
        help="each server process's garbage collector makes a full collection (which stops every "
        "request while it walks all the games and connections held) at most once every N "
        "collections of its middle generation (default 100; Python's own: 10)",
    )
    p.add_argument("--max-moves", type=positive_int, default=20_000, help="moves one game may hold")
    p.add_argument(
        "--idle-expiry",
        type=days,
        default=7 * 86400.0,
        metavar="DAYS",
        help="days after its last move an unfinished game is deleted (default 7)",
    )
    p.add_argument(
        "--finished-expiry",
        type=days,
        default=30 * 86400.0,
        metavar="DAYS",
        help="days after its end a finished game is deleted (default 30)",
    )
    p.add_argument(
        "--max-db-size",
        type=byte_size,
        default=2 << 30,
        metavar="SIZE",
        help="the games file is kept under this size, the oldest finished games deleted first "
        "(default 2G; K, M, G as powers of 1024)",
    )
    p.add_argument(
        "--memory",
        type=byte_size,
        default=64 << 20,
        metavar="SIZE",
        help="memory for the games kept in memory in each server process, their cached hints, "
        "reviews and replays included; the least recently used leave first (default 64M)",
    )
    p.add_argument(
        "--processes",
        type=positive_int,
        default=1,
        help="server processes sharing the port and the games file (default 1; named apart from "
        "--workers, the hint processes of each)",
    )
    p.set_defaults(func=cmd_serve)


def cmd_serve(ns: argparse.Namespace) -> int:
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise DemineError("the web game needs FastAPI and uvicorn: pip install 'demine[web]'") from None
    from demine.web.app import serve
    from demine.web.limits import KINDS, ServeLimits

    rates: dict[str, str | None] = {}
    for item in ns.rate or []:
        kind, sep, rate = item.partition("=")
        if not sep or kind not in KINDS:
            raise DemineError(f"--rate {item!r}: expected KIND=RATE with KIND one of {', '.join(KINDS)}")
        rates[kind] = None if rate.strip().lower() == "off" else rate.strip()
    limits = ServeLimits(
        **rates,  # type: ignore[arg-type]
        trust_proxy=ns.trust_proxy,
        proxy_hops=ns.proxy_hops,
        max_moves=ns.max_moves,
        idle_expiry=ns.idle_expiry,
        finished_expiry=ns.finished_expiry,
        max_db_bytes=ns.max_db_size,
        cache_bytes=ns.memory,
        request_timeout=ns.request_timeout,
        max_connections=ns.max_connections,
        connections_per_client=ns.connections_per_client,
        refusal_delay=ns.refusal_delay,
        running_per_client=ns.running_per_client,
        pace=ns.pace,
        idle_background=not ns.niced_background,
        full_collection_every=ns.full_collection_every,
    )

    if ns.workers is not None and ns.workers < 0:
        raise DemineError(f"--workers must be 0 or more, got {ns.workers}")
    serve(ns.host, ns.port, ns.db, ns.workers, limits, ns.processes, ns.http)
    return 0
