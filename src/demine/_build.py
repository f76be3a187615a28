"""Which build of demine is running: the hot modules that a C compiler turns into extension
modules at install (mypyc, from the same typed source), and whether they are compiled here.

``setup.py`` reads :data:`COMPILED` from this file (without importing demine). Installing with
``DEMINE_PURE=1``, or without a C compiler and Python's headers, keeps every module pure Python;
both builds make the same moves (tests/players/test_builds.py).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
from pathlib import Path

#: The hot modules compiled by mypyc when a compiler is present (the rest stay Python). Not
#: ``analysis.result`` (its ``Pace`` is ``analysis.order``'s, compiled). Not ``engine.game``: compiled, its
#: arguments must match their annotations (callers pass a float seed), and it is not the hot part.
#: Tests replace no name inside a compiled module (compiled code calls what it imported directly):
#: they watch through what the caller passes (``Hooks``, a guess) or replace the ``time`` module's
#: own ``perf_counter``, which compiled code reads too.
COMPILED: tuple[str, ...] = (
    "demine.analysis.certify",
    "demine.analysis.constraints",
    "demine.analysis.exact",
    "demine.analysis.incremental",
    "demine.analysis.local",
    "demine.analysis.order",
    "demine.analysis.parts",
    "demine.analysis.rules",
    "demine.analysis.settle",
    "demine.analysis.totals",
    "demine.engine.grid",
    "demine.engine.position",
    "demine.players.best.endgame",
    "demine.players.best.fifty",
    "demine.players.best.lookahead",
    "demine.players.best.moves",
    "demine.players.best.play",
    "demine.players.best.survive",
    "demine.players.longterm",
)


#: The file, in the package's folder, where the build notes the digest of each compiled module's
#: source (``setup.py``); not in the repository.
SOURCES = "_compiled_sources.json"


def source_digest(path: Path) -> str:
    """The SHA-256 of a source file's bytes, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _extensions(root: Path | None) -> dict[str, Path]:
    """Each module of :data:`COMPILED` that has a compiled extension under ``root`` (the folder
    that holds the ``demine`` package; this one by default), with the extension's path."""
    root = root or Path(__file__).resolve().parent.parent
    out = {}
    for name in COMPILED:
        stem = root.joinpath(*name.split("."))
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            ext = stem.with_name(stem.name + suffix)
            if ext.is_file():
                out[name] = ext
                break
    return out


def compiled_modules(root: Path | None = None) -> list[str]:
    """The modules of :data:`COMPILED` that load from a compiled extension (Python imports an
    extension module before a ``.py`` file of the same name in the same folder); nothing is
    imported to find out."""
    return list(_extensions(root))


def stale_modules(root: Path | None = None) -> list[str]:
    """The compiled modules whose ``.py`` source changed since their extension was built, in a
    checkout (an editable install, ``setup.py`` beside ``src``). Python still runs the old
    compiled code; reinstall (``pip install -e .``), or install pure (``DEMINE_PURE=1``) while
    changing these modules. A source newer than its extension whose content is the one the build
    noted (:data:`SOURCES`: a ``git checkout`` that rewrote it unchanged) is not stale; where the
    build noted none, a newer source is. An installed copy is never stale (its files are written
    in any order)."""
    root = root or Path(__file__).resolve().parent.parent
    if not (root.parent / "setup.py").is_file():
        return []
    try:
        noted = json.loads((root / "demine" / SOURCES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        noted = {}
    out = []
    for name, ext in _extensions(root).items():
        source = ext.parent / (name.rsplit(".", 1)[-1] + ".py")
        if not source.is_file() or source.stat().st_mtime <= ext.stat().st_mtime:
            continue
        if not isinstance(noted, dict) or noted.get(name) != source_digest(source):
            out.append(name)
    return out


def build() -> str:
    """Which build is running, in a few words: ``compiled (mypyc): 10 of 10 hot modules`` or
    ``pure Python``."""
    n = len(compiled_modules())
    if not n:
        return "pure Python"
    stale = stale_modules()
    note = f"; {len(stale)} older than its source, reinstall" if stale else ""
    return f"compiled (mypyc): {n} of {len(COMPILED)} hot modules{note}"
