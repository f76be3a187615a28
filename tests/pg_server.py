"""A PostgreSQL server of Debian's ``postgresql`` package started in a temporary folder, listening
only on a Unix socket there: for the store's tests (``tests/web/conftest.py``) and the web load
benchmark (``benchmarks/web_load.py --postgres``). It runs as the ``postgres`` user when started
by root (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.serving import free_port


def bin_dir() -> Path | None:
    """The folder of the newest installed server's programs, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def missing() -> str | None:
    """Why a server cannot be started here, or None."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[test]')"
    if bin_dir() is None:
        return "no PostgreSQL server (apt-get install postgresql)"
    return None


class PostgresServer:
    """A running server (:meth:`start`), a way to make databases on it, and :meth:`stop`."""

    def __init__(self) -> None:
        found = bin_dir()
        if found is None:
            raise RuntimeError("no PostgreSQL server (apt-get install postgresql)")
        self._bin = found
        self._as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        self.socket_dir = Path(tempfile.mkdtemp(prefix="demine-pg-"))
        self.port = free_port()
        self._names = itertools.count()

    def start(self) -> PostgresServer:
        root, data = self.socket_dir, self.socket_dir / "data"
        if self._as_user:
            shutil.chown(root, "postgres")
            root.chmod(0o755)
        opts = f"-p {self.port} -k {root} -c listen_addresses='' -c fsync=off -c max_connections=300"
        try:
            self._run("initdb", "-D", str(data), "-A", "trust", "-U", "demine", "--no-sync")
            self._run("pg_ctl", "-D", str(data), "-o", opts, "-l", str(root / "log"), "-w", "start")
        except subprocess.CalledProcessError as e:
            shutil.rmtree(root, ignore_errors=True)
            raise RuntimeError(
                f"could not start PostgreSQL: {e.stderr.decode(errors='replace')[-2000:]}"
            ) from e
        return self

    def _run(self, program: str, *args: str) -> None:
        subprocess.run(
            [*self._as_user, str(self._bin / program), *args],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://demine@/{database}?host={self.socket_dir}&port={self.port}"

    def new_database(self) -> str:
        """The address of a new, empty database."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")  # type: ignore[call-overload]
        return self.url(name)

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run("pg_ctl", "-D", str(self.socket_dir / "data"), "-m", "immediate", "stop")
        shutil.rmtree(self.socket_dir, ignore_errors=True)
