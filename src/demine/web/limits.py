"""What one client may ask of the server: requests per minute by kind, with the ``limits`` library.

Each client (by its connection's address; only when the server is told it sits behind a proxy it
trusts, by the ``X-Forwarded-For`` entry that proxy appended: :meth:`RateLimiter.client`) has moving
windows per kind of request: a burst rate per second and a rate per minute. Past one the answer is
429 with ``Retry-After``, sent after a pause (``penalty``): a client that ignores Retry-After and
asks again at once gets at most one answer per pause per connection, so a flood of refused requests
cannot take the server's time from the players. The defaults are far above what a fast human does (a
speedrunner clicks about 10 times a second at most) and far below what a script can send.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar

from limits import RateLimitItem, parse_many

from demine.analysis import Limit
from demine.errors import DemineError, InputError
from demine.web.hints import GUESS_LIMIT

K = TypeVar("K")

Kind = Literal["games", "moves", "hints", "analyses", "records", "views", "exports"]
#: The kinds of request with a rate, in the order the server lists them.
KINDS: tuple[Kind, ...] = ("games", "moves", "hints", "analyses", "records", "views", "exports")


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
    as the ``limits`` library reads them (``"600/minute"``, ``"20/second;1200/minute"`` for
    several at once); ``None`` turns one off."""

    games: str | None = "5/second;60/minute"
    """New games."""
    moves: str | None = "30/second;1200/minute"
    """Moves (reveal, flag, chord)."""
    hints: str | None = "20/second;600/minute"
    """Hint requests (hints, one hint, the best guess)."""
    analyses: str | None = "5/second;120/minute"
    """Analysis-board requests and reviews of finished games."""
    records: str | None = "10/second;300/minute"
    """Requests about a player's own record (``/api/players``)."""
    views: str | None = "30/second;1800/minute"
    """Reads of a game: its view and its replay frames (a replay's slider asks for many)."""
    exports: str | None = "2/second;60/minute"
    """Exports of a finished game (its whole record)."""
    penalty: float = 1.0
    """Seconds a refused request (429) waits before its answer is sent."""
    trust_proxy: bool = False
    """Take the client's address from ``X-Forwarded-For`` (only behind a proxy that appends to it);
    without it the header is ignored, whoever sends it."""
    proxy_hops: int = 1
    """With ``trust_proxy``: the proxies in a row that append to ``X-Forwarded-For``; the client is
    the entry this many from the right (the one the outermost trusted proxy appended)."""
    max_moves: int = 20_000
    """Moves one game may hold (an expert game takes a few hundred)."""
    max_records: int = 10_000
    """Games one player's record on the server holds (the oldest leave first)."""
    heavy_running: int = 16
    """Hints on the players' games handed to the workers at once (the others wait in the lane)...
    More than the workers compute at once: on a loaded server a call's way out and back took
    100-300 ms for a few milliseconds of work (it crossed two helper threads then), so with 4 in
    flight the workers idled while the lane's queue filled (docs/research/web-abuse.md, part e).
    The calls past the workers' count wait in the pool, in order (:mod:`demine.web.pool`)."""
    heavy_queue: int = 64
    """...and at most this many wait in each lane; past that a request gets 503 at once."""
    slow_running: int = 2
    """Slow work (analyses, guess-free boards, hints on boards over ``quick_cells``) at once."""
    heavy_per_client: int = 2
    """Slow requests one client may have running or waiting at once (429 past that)."""
    idle_background: bool = True
    """The slow lane's and the reviews' worker processes run only when nothing else wants the CPU
    (Linux's ``SCHED_IDLE``; elsewhere only their ``nice``), so the players' requests do not wait
    for a core behind them. At nice 10 and 19 they still took a core for milliseconds at a time
    from the server processes, which under the abuse benchmark waited for one 3.3-5.0 ms a
    player's turn (docs/research/web-abuse.md, part p). On a machine always busy with other normal work they
    get little CPU, the big boards' players' hints included (``serve --niced-background`` turns
    it off: with two nice-19 processes spinning, a 100x100 game's hints took 24-343 ms idle
    against 29-49 niced, docs/research/web-abuse.md, part p)."""
    review_wait: float = 1.0
    """Seconds a request for a review waits for it; past that the review goes on in the background
    and the answer says it is being prepared."""
    quick_cells: int = 1024
    """Boards up to this many cells get their hints in the quick lane."""
    guess_limit: Limit = GUESS_LIMIT
    """The time budget of the best guess in a hint and on the analysis board."""
    games_per_client: int = 200
    """Unfinished games one address may keep."""
    idle_expiry: float = 7 * 86400.0
    """Seconds after its last move an unfinished game is deleted."""
    finished_expiry: float = 30 * 86400.0
    """Seconds after its end a finished game is deleted."""
    max_db_bytes: int | None = 2 << 30
    """The games file is kept under this size (the oldest finished games go first)."""
    request_timeout: float = 10.0
    """Seconds a request may take to arrive, from its first byte (or the connection's opening) to its
    last; past that it is answered 408 and its connection closed (a slowloris holds no more)."""
    max_connections: int | None = None
    """Connections one server process keeps open at most (None: as many as the open-file limit
    allows, less a reserve); past that a new one gets 503 and is closed."""
    connections_per_client: int = 32
    """Connections one address may hold open at once (not counted with ``trust_proxy``)."""
    refusal_delay: float = 5.0
    """Seconds a connection refused for its address's cap is held, unread, before its 503: a client
    that waits for the answer before it reconnects (a slowloris's sockets) comes back that much
    less often, and each refusal costs the server's event loop an accept, a write and a close. At
    most a quarter of the connection cap is held so; past that, and past the process's cap, the
    refusal is at once. 0: always at once."""
    running_per_client: int = 2
    """API requests of one client handled at once in a server process; its others wait their
    turn, holding only their connection (:class:`ClientGate`)."""
    pace: float = 20.0
    """API requests one client starts per second at most, evenly, after a first
    :data:`PACE_BURST` at once: a request that comes sooner after the client's previous ones
    waits for its time in its place (:class:`ClientGate`). A person never waits (a speedrunner
    clicks about 10 times a second, a page asks a few things at once); a script's 30 moves in a
    quarter of a second (its whole second's rate, then 429s) come a twentieth of a second apart,
    so its work is spread instead of taking the server's CPU in bursts (docs/research/web-abuse.md, part n).
    Under the per-second rates of moves and views (30): paced at theirs, a window's 31st request
    came a hair early and was refused, and the refusals' pauses made bursts again. 0: not paced
    (only the rates' windows)."""
    shared_by: int = 1
    """Server processes that share each client (``serve --processes N`` sets N; a client's
    connections land on any of them): each allows a client 1/N of every rate and of
    ``running_per_client``, rounded up, so together they allow what one process does. (Counted
    in full in each, N processes gave an abuser N times its share of the same CPU.)"""
    cache_bytes: int = 64 << 20
    """Memory for the games kept in memory (the least recently used leave first)."""
    full_collection_every: int = 100
    """Each server process's cyclic garbage collector makes a full collection at most once every
    this many collections of its middle generation (Python's third threshold; Python's own is
    10, and it also waits until what survived since the last one is a quarter of what that one
    walked). A full collection walks everything the process holds (its games, sessions and
    connections: about 39,000 objects under the abuse benchmark, 18-45 ms of CPU, up to 91 ms
    of wall time on its two busy cores) and every request waits for it. Under that load one came
    every 30 s or so at 10; at 100 about every 5 minutes, each walking the cyclic garbage piled
    up since as well (docs/research/web-abuse.md, part q)."""

    def per_process(self) -> int:
        """A client's places in one server process (``running_per_client`` over ``shared_by``)."""
        return math.ceil(self.running_per_client / self.shared_by)

    def pace_per_process(self) -> float:
        """A client's ``pace`` in one server process (over ``shared_by``; 0: not paced)."""
        return self.pace / self.shared_by

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> ServeLimits:
        """The settings from ``dataclasses.asdict`` of them, as sent through JSON to the server
        processes of ``--processes N`` (the nested ``guess_limit`` made a :class:`Limit` again:
        a plain dict there made every best guess fail with 500)."""
        values = dict(values)
        if isinstance(values.get("guess_limit"), dict):
            values["guess_limit"] = Limit(**values["guess_limit"])
        return cls(**values)

    def __post_init__(self) -> None:
        for kind in KINDS:
            text = getattr(self, kind)
            if text is not None:
                try:
                    parse_many(text)
                except ValueError:
                    raise InputError(f"rate for {kind}: {text!r} is not like '600/minute'") from None
        if not 0 <= self.penalty <= 60:
            raise InputError(f"penalty must be between 0 and 60 seconds, got {self.penalty}")
        counts = ("max_moves", "proxy_hops", "heavy_running", "slow_running", "heavy_per_client")
        counts2 = ("games_per_client", "max_records", "cache_bytes", "quick_cells", "connections_per_client")
        for name in (*counts, *counts2, "running_per_client", "shared_by", "full_collection_every"):
            if getattr(self, name) < 1:
                raise InputError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.max_connections is not None and self.max_connections < 1:
            raise InputError(f"max_connections must be at least 1, got {self.max_connections}")
        if not 0 < self.request_timeout <= 3600:
            raise InputError(
                f"request_timeout must be between 0 and 3600 seconds, got {self.request_timeout}"
            )
        if not 0 <= self.refusal_delay <= 60:
            raise InputError(f"refusal_delay must be between 0 and 60 seconds, got {self.refusal_delay}")
        if not 0 <= self.pace <= 10_000:
            raise InputError(f"pace must be between 0 and 10000 requests a second, got {self.pace}")
        if not 0 <= self.review_wait <= 60:
            raise InputError(f"review_wait must be between 0 and 60 seconds, got {self.review_wait}")
        if self.heavy_queue < 0 or self.idle_expiry <= 0 or self.finished_expiry <= 0:
            raise InputError("heavy_queue must be at least 0 and the expiry times positive")


def fair_cuts(totals: Mapping[K, int], room: int) -> dict[K, int]:
    """How much each holder of ``totals`` gives up so that together they fit in ``room``, the
    largest first: every holder over a level is cut down to it, the highest level at which all
    fits, and a holder under it keeps all it has (max-min fairness, "water filling"), so the
    holders of much lose before the holders of little. Only the holders cut are named. O(n log n).

    >>> fair_cuts({"flood": 900, "a": 50, "b": 50}, 500)
    {'flood': 500}
    >>> fair_cuts({"x": 300, "y": 300, "small": 10}, 410)
    {'x': 100, 'y': 100}
    >>> fair_cuts({"a": 5}, 10)
    {}
    """
    excess = sum(totals.values()) - room
    if excess <= 0:
        return {}
    sizes = sorted(totals.values(), reverse=True)
    held, level = 0, 0
    for k, size in enumerate(sizes, 1):
        held += size
        below = sizes[k] if k < len(sizes) else 0
        if held - k * below >= excess:  # the k largest, cut to one level, free enough
            level = max(0, (held - excess) // k)
            break
    return {h: t - level for h, t in totals.items() if t > level}


class RateLimiter:
    """Counts each client's requests by kind, in this process's memory: moving windows (at most
    N requests in any ``window`` seconds), the rates written as the ``limits`` library reads them.

    The counting is done here rather than by ``limits``' in-memory storage: that one starts a new
    thread (a 10 ms timer) whenever its last has run out, and the timer scans every key held, so
    under load the server started a thread every few requests and its event loop waited for each
    (8% of the loop's time in the abuse benchmark, docs/research/web-abuse.md). Here a hit costs a few deque
    operations under one lock, and the windows of clients gone quiet are dropped by a sweep every
    :attr:`SWEEP` seconds, made by the request that finds it due (O(windows held))."""

    SWEEP: ClassVar[float] = 10.0
    """Seconds between sweeps of the windows of clients gone quiet."""

    def __init__(self, settings: ServeLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self._clock = clock
        self._items: dict[str, list[tuple[RateLimitItem, int, float]]] = {
            kind: [
                (item, math.ceil(item.amount / settings.shared_by), float(item.get_expiry()))
                for item in parse_many(text)
            ]
            for kind in KINDS
            if (text := getattr(settings, kind)) is not None
        }
        self._hits: dict[tuple[str, str, int], deque[float]] = {}
        """Each (kind, client, rate)'s times of the requests counted within its window, oldest first."""
        self._lock = threading.Lock()
        self._swept = clock()

    def client(self, host: str | None, forwarded: Sequence[str] = ()) -> str:
        """The client's key: the connection's address, or with ``trust_proxy`` the address the
        trusted proxy appended to ``X-Forwarded-For`` (``forwarded``: the header's values in the
        order received). Entries to the left of it are whatever the client wrote, so the one
        taken is ``proxy_hops`` from the right (the leftmost when there are fewer)."""
        if self.settings.trust_proxy:
            entries = [e.strip() for value in forwarded for e in value.split(",") if e.strip()]
            if entries:
                return entries[max(0, len(entries) - self.settings.proxy_hops)]
        return host or "unknown"

    def hit(self, kind: Kind, client: str) -> None:
        """Count one request; :class:`TooManyRequests` past one of the client's rates (a refused
        request is not counted)."""
        items = self._items.get(kind)
        if not items:
            return
        now = self._clock()
        with self._lock:
            if now - self._swept >= self.SWEEP:
                self._sweep(now)
            for k, (item, amount, window) in enumerate(items):
                hits = self._hits.get((kind, client, k))
                if hits is None:
                    continue
                while hits and hits[0] <= now - window:
                    hits.popleft()
                if len(hits) >= amount:
                    wait = max(1, math.ceil(hits[0] + window - now))
                    raise TooManyRequests(
                        f"too many {kind} requests from this address ({item}); try again in {wait} s", wait
                    )
            for k in range(len(items)):
                self._hits.setdefault((kind, client, k), deque()).append(now)

    def _sweep(self, now: float) -> None:
        """(Under the lock.) Drop the windows whose last request is out of them."""
        self._swept = now
        for key in [
            key for key, hits in self._hits.items() if not hits or hits[-1] <= now - self._window(key)
        ]:
            del self._hits[key]

    def _window(self, key: tuple[str, str, int]) -> float:
        return self._items[key[0]][key[2]][2]

    def windows(self) -> int:
        """The (kind, client, rate) windows held (for tests and the memory bound)."""
        with self._lock:
            return len(self._hits)


#: Requests a client starts at once before :attr:`ServeLimits.pace` spaces the next ones.
PACE_BURST = 5


class ClientGate:
    """At most ``running`` requests of one client handled at once; the client's others wait
    their turn in the order they came, holding only their connection (no thread, no place in a
    lane of workers). A client's share of the server is so its own few places, however many
    connections it opens: a flood of moves, views or replays from one address queues behind
    itself, not in front of the other players. A request refused with 429 spends its pause
    (``ServeLimits.penalty``) in its place, so a client past its rate gets at most ``running``
    answers per pause.

    With ``pace`` (requests a second), a client's requests start at most that often, evenly,
    after ``burst`` at once (the generic cell rate algorithm: each client's next due time): one
    that comes sooner waits in its place for its time. Clients with nothing here hold no memory
    here but their due time, until it has passed (swept every second). (Safe across threads and
    event loops: a test client may run each request in a loop of its own.)"""

    def __init__(
        self,
        running: int,
        pace: float = 0.0,
        burst: int = PACE_BURST,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.running = running
        self.spacing = 1.0 / pace if pace > 0 else 0.0
        """Seconds between two of a client's requests past its burst (0: not paced)."""
        self._ahead = (max(1, burst) - 1) * self.spacing
        self._due: dict[str, float] = {}
        """Each client's due time: its requests start no sooner than this less ``_ahead``."""
        self._clock = clock
        self._swept = clock()
        self._busy: Counter[str] = Counter()
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}
        self._lock = threading.Lock()

    def paced(self) -> int:
        """Clients with a due time held (for tests and the memory bound)."""
        with self._lock:
            return len(self._due)

    def wait(self, client: str) -> float:
        """Seconds ``client``'s request, given a place now, waits for its time (0 when not
        paced); its time is taken."""
        if not self.spacing:
            return 0.0
        now = self._clock()
        with self._lock:
            if now - self._swept >= 1.0:
                self._swept = now
                for gone in [c for c, due in self._due.items() if due <= now]:
                    del self._due[gone]
            due = self._due.get(client, now)
            start = max(now, due - self._ahead)
            self._due[client] = max(due, start) + self.spacing
        return start - now

    def clients(self) -> int:
        """Clients with a request here, handled or waiting."""
        with self._lock:
            return len(self._busy)

    def waiting(self, client: str) -> int:
        """The client's requests waiting for a place."""
        with self._lock:
            return len(self._waiting.get(client, ()))

    @asynccontextmanager
    async def turn(self, client: str) -> AsyncIterator[None]:
        """Wait for one of ``client``'s places; held until the block ends."""
        with self._lock:
            free = self._busy[client] < self.running
            if free:
                self._busy[client] += 1
            else:
                turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                self._waiting.setdefault(client, deque()).append(turn)
        if not free:
            try:
                await turn
            except BaseException:
                with self._lock:
                    queue = self._waiting.get(client)
                    given = not (queue and turn in queue)
                    if not given:
                        queue.remove(turn)  # type: ignore[union-attr]
                        if not queue:
                            del self._waiting[client]
                if given and turn.done() and not turn.cancelled():
                    self._release(client)  # given a place, then cancelled: pass it on
                raise  # (given but not yet woken: _grant passes it on)
        try:
            wait = self.wait(client)
            if wait > 0:
                await asyncio.sleep(wait)
            yield
        finally:
            self._release(client)

    def _release(self, client: str) -> None:
        with self._lock:
            queue = self._waiting.get(client)
            if queue:
                turn = queue.popleft()  # the place goes to the client's next request
                if not queue:
                    del self._waiting[client]
            else:
                self._busy[client] -= 1
                if not self._busy[client]:
                    del self._busy[client]
                return
        turn.get_loop().call_soon_threadsafe(self._grant, client, turn)

    def _grant(self, client: str, turn: asyncio.Future[None]) -> None:
        if turn.done():  # its request went away meanwhile: the place goes on
            self._release(client)
        else:
            turn.set_result(None)
