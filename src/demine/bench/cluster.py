"""A bench's chunks of games played on a Dask cluster (``demine bench --executor dask://HOST:PORT``).

The client sends every chunk to the scheduler at once; the workers play them and the results come
back as chunks finish, not in index order (each game depends only on its seed, so they are the same
results as in one process). A chunk is released on the cluster as soon as its results are here, so
the cluster's memory does not grow with the run. A chunk lost with its worker is played again by
Dask on another; one that kills worker after worker (Dask's ``allowed-failures``) ends the run with
an error naming its games. Every chunk says which version and build of demine played it: a worker
of another version is refused, as a record names the player (``best``), not the code that played.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar
from urllib.parse import urlsplit

from demine.errors import DemineError, InputError

#: Dask's own default port for a scheduler (``dask scheduler`` listens there unless told).
DEFAULT_PORT = 8786

Task = TypeVar("Task")
Result = TypeVar("Result")


@dataclass(frozen=True, slots=True)
class Cluster:
    """Where a Dask scheduler listens, and how long to wait on it."""

    host: str
    """The scheduler's host name or address."""
    port: int = DEFAULT_PORT
    """Its port."""
    connect_seconds: float = 10.0
    """How long to try to connect before giving up."""
    check_seconds: float = 5.0
    """How often, while no chunk finishes, to ask the scheduler which workers it has (a worker
    gone and no worker at all are reported)."""

    @classmethod
    def parse(cls, text: str) -> Cluster:
        """``dask://HOST[:PORT]`` (the port defaults to Dask's, 8786), or :class:`InputError`.

        >>> Cluster.parse("dask://sched.lan")
        Cluster(host='sched.lan', port=8786, connect_seconds=10.0, check_seconds=5.0)
        >>> Cluster.parse("dask://[::1]:9000").address
        'tcp://[::1]:9000'
        """
        usage = f"--executor takes dask://HOST:PORT (the scheduler's address), got {text!r}"
        parts = urlsplit(text)
        if parts.scheme != "dask" or parts.path not in ("", "/") or parts.query or parts.fragment:
            raise InputError(usage)
        try:
            port = parts.port
        except ValueError:
            raise InputError(f"{usage}: the port is not a number from 1 to 65535") from None
        if not parts.hostname:
            raise InputError(f"{usage}: no host")
        if port == 0:
            raise InputError(f"{usage}: the port is not a number from 1 to 65535")
        return cls(parts.hostname, DEFAULT_PORT if port is None else port)

    @property
    def address(self) -> str:
        """The scheduler's address as Dask writes it (``tcp://HOST:PORT``)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"tcp://{host}:{self.port}"

    def probe(self) -> None:
        """Raise :class:`DemineError` saying why, unless something listens at the address (a
        refused connection is told at once, not after the connect timeout)."""
        try:
            with socket.create_connection((self.host, self.port), timeout=self.connect_seconds):
                pass
        except socket.gaierror as e:
            raise DemineError(f"cannot reach the Dask scheduler at {self.address}: {e.strerror}") from None
        except OSError as e:
            why = e.strerror or ("timed out" if isinstance(e, TimeoutError) else str(e))
            raise DemineError(
                f"cannot reach the Dask scheduler at {self.address}: {why} (is `dask scheduler` "
                f"running there, and its port {self.port} open to this machine?)"
            ) from None


def played_by() -> tuple[str, str]:
    """The version and the build of demine in this process, as a chunk reports them."""
    from demine import __version__
    from demine._build import build

    return __version__, build()


def _versioned(play: Callable[[Task], list[Result]], task: Task) -> tuple[tuple[str, str], str, list[Result]]:
    """Run on a worker: the chunk's results, with the demine that played them and the host."""
    return played_by(), socket.gethostname(), play(task)


def run_chunks(
    cluster: Cluster,
    play: Callable[[Task], list[Result]],
    tasks: Sequence[Task],
    names: Sequence[str],
    notice: Callable[[str], None] | None = None,
) -> Iterator[Result]:
    """``play`` each task on the cluster; yields each chunk's results as the chunk finishes.

    ``names`` says which games each task holds (``games 32-47``), for the errors; ``notice`` is
    told what the run cannot fix but a person can (a worker gone, no worker at all, workers of
    mixed builds). Raises :class:`DemineError` when the scheduler cannot be reached or is lost,
    when a chunk kills worker after worker, and when a worker runs another version of demine."""
    try:
        from distributed import Client, KilledWorker, as_completed
    except ImportError:
        raise DemineError("the dask executor needs Dask: pip install 'demine[dask]'") from None
    cluster.probe()
    try:
        client = Client(  # type: ignore[no-untyped-call]
            cluster.address, timeout=f"{cluster.connect_seconds}s", set_as_default=False
        )
    except (OSError, TimeoutError) as e:
        raise DemineError(f"cannot reach the Dask scheduler at {cluster.address}: {e}") from None
    version, _ = played_by()
    tell = notice or (lambda text: None)
    with client:
        futures = client.map(partial(_versioned, play), list(tasks), pure=False)
        name_of = {f.key: n for f, n in zip(futures, names, strict=True)}
        pending = as_completed(futures, loop=client.loop)  # type: ignore[no-untyped-call]
        del futures  # (a finished chunk is released once its results are read)
        watch = _Workers(client, cluster, tell)
        builds: dict[str, str] = {}
        while not pending.is_empty():  # type: ignore[no-untyped-call]
            batch = pending.next_batch(block=False)  # type: ignore[no-untyped-call]
            watch.look()
            if not batch:
                time.sleep(0.05)
                continue
            while batch:
                future = batch.pop(0)
                try:
                    (theirs, build), host, results = future.result()
                except KilledWorker:
                    raise DemineError(
                        f"{name_of[future.key]} killed one Dask worker after another (Dask's "
                        "distributed.scheduler.allowed-failures): a worker ran out of memory or "
                        "crashed playing them; the workers' logs say which"
                    ) from None
                except CancelledError as e:
                    why = getattr(e, "reason", None) or "cancelled"
                    raise DemineError(
                        f"lost the Dask scheduler at {cluster.address} ({why}); start it again, "
                        "with its workers, to go on"
                    ) from None
                if theirs != version:
                    raise DemineError(
                        f"a Dask worker on {host} runs demine {theirs}, this client {version}: "
                        "install the same version on every worker (a record names the player, "
                        "not the code that played it)"
                    )
                builds.setdefault(build, host)
                if len(builds) == 2 and build not in watch.told_builds:
                    watch.told_builds.add(build)
                    tell(
                        "the workers run different builds ("
                        + ", ".join(f"{b} on {h}" for b, h in builds.items())
                        + "): the same moves, but ms/game mixes their speeds"
                    )
                del name_of[future.key], future  # (let go on the cluster before the caller's turn)
                yield from results


class _Workers:
    """The workers the scheduler has, asked every :attr:`Cluster.check_seconds`: a worker gone
    is told, and a stretch with no worker at all is told once."""

    def __init__(self, client: Any, cluster: Cluster, tell: Callable[[str], None]) -> None:
        self.client, self.cluster, self.tell = client, cluster, tell
        self.seen: dict[str, str] = self._workers() or {}
        self.asked = time.monotonic()
        self.told_none = False
        self.told_builds: set[str] = set()

    def _workers(self) -> dict[str, str] | None:
        """Each worker's address and name (None when the scheduler does not answer)."""
        try:
            info = self.client.scheduler_info(n_workers=-1)["workers"]
        except (OSError, TimeoutError):
            return None
        return {addr: str(w.get("name", addr)) for addr, w in info.items()}

    def look(self) -> None:
        now = time.monotonic()
        if now - self.asked < self.cluster.check_seconds:
            return
        self.asked = now
        workers = self._workers()
        if workers is None:
            return
        for addr in sorted(self.seen.keys() - workers.keys()):
            name = addr if self.seen[addr] == addr else f"{self.seen[addr]} ({addr})"
            self.tell(f"Dask worker {name} left; the chunks it held are played again by another worker")
        self.seen = workers
        if workers:
            self.told_none = False
        elif not self.told_none:
            self.told_none = True
            self.tell(
                f"no Dask workers on the scheduler at {self.cluster.address}: the run waits for "
                f"one (dask worker {self.cluster.address}); Ctrl-C stops it, and --resume goes on later"
            )
