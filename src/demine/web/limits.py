"""What one client may ask of the server: requests per minute by kind, with the ``limits`` library.

Each client (by its address; by the first address of ``X-Forwarded-For`` only when the server is
told it sits behind a proxy it trusts) has a moving window per kind of request. Past it the answer
is 429 with ``Retry-After``. The defaults are far above what a fast human does (a speedrunner
clicks about 10 times a second at most) and far below what a script can send.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Literal

from limits import RateLimitItem, parse, storage, strategies

from demine.errors import DemineError, InputError

Kind = Literal["games", "moves", "hints", "analyses"]


class TooManyRequests(DemineError):
    """A client went past its rate for a kind of request."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        """Seconds until the client may ask again."""


class Busy(DemineError):
    """The server's queue of heavy work is full: ask again in a moment."""


@dataclass(frozen=True, slots=True)
class ServeLimits:
    """What the server allows each client, and how much heavy work it queues. Rates are written
    as the ``limits`` library reads them (``"600/minute"``, ``"20/second"``); ``None`` turns one
    off."""

    games: str | None = "60/minute"
    """New games."""
    moves: str | None = "1200/minute"
    """Moves (reveal, flag, chord)."""
    hints: str | None = "600/minute"
    """Hint requests (hints, one hint, the best guess)."""
    analyses: str | None = "120/minute"
    """Analysis-board requests."""
    trust_proxy: bool = False
    """Take the client's address from ``X-Forwarded-For`` (only behind a proxy that sets it)."""
    max_moves: int = 20_000
    """Moves one game may hold (an expert game takes a few hundred)."""
    heavy_running: int = 4
    """Heavy computations (hints, analyses, no-guess boards) run at once..."""
    heavy_queue: int = 64
    """...and at most this many wait; past that a request gets 503 at once."""
    games_per_client: int = 200
    """Unfinished games one address may keep."""
    idle_expiry: float = 7 * 86400.0
    """Seconds after its last move an unfinished game is deleted."""
    finished_expiry: float = 30 * 86400.0
    """Seconds after its end a finished game is deleted."""
    max_db_bytes: int | None = 2 << 30
    """The games file is kept under this size (the oldest finished games go first)."""
    cache_bytes: int = 64 << 20
    """Memory for the games kept in memory (the least recently used leave first)."""

    def __post_init__(self) -> None:
        for kind in ("games", "moves", "hints", "analyses"):
            text = getattr(self, kind)
            if text is not None:
                try:
                    parse(text)
                except ValueError:
                    raise InputError(f"rate for {kind}: {text!r} is not like '600/minute'") from None
        if min(self.max_moves, self.heavy_running, self.games_per_client, self.cache_bytes) < 1:
            raise InputError("max_moves, heavy_running, games_per_client and cache_bytes must be at least 1")
        if self.heavy_queue < 0 or self.idle_expiry <= 0 or self.finished_expiry <= 0:
            raise InputError("heavy_queue must be at least 0 and the expiry times positive")


class RateLimiter:
    """Counts each client's requests by kind (in this process's memory)."""

    def __init__(self, settings: ServeLimits) -> None:
        self.settings = settings
        self._limiter = strategies.MovingWindowRateLimiter(storage.MemoryStorage())
        self._items: dict[str, RateLimitItem] = {
            kind: parse(text)
            for kind in ("games", "moves", "hints", "analyses")
            if (text := getattr(settings, kind)) is not None
        }

    def client(self, host: str | None, forwarded: str | None) -> str:
        """The client's key: its address (the proxy's word for it only when trusted)."""
        if self.settings.trust_proxy and forwarded:
            return forwarded.split(",")[0].strip()
        return host or "unknown"

    def hit(self, kind: Kind, client: str) -> None:
        """Count one request; :class:`TooManyRequests` past the client's rate."""
        item = self._items.get(kind)
        if item is None or self._limiter.hit(item, kind, client):
            return
        reset = self._limiter.get_window_stats(item, kind, client).reset_time
        wait = max(1, math.ceil(reset - time.time()))
        raise TooManyRequests(
            f"too many {kind} requests from this address ({item}); try again in {wait} s", wait
        )
