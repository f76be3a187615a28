"""What a command needs, checked before it starts working: an optional library (an extra), a
place it can write its output, a file type it can write. A command that would play or review for
minutes and then fail on one of these fails at once instead, and says what to do."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from demine.errors import InputError

#: The extras a command may need: the module to find, and what to install.
EXTRAS = {
    "plot": ("matplotlib", "matplotlib"),
    "video": ("ms_toollib", "ms-toollib"),
    "png": ("cairosvg", "CairoSVG"),
    "tui": ("textual", "Textual"),
    "cli": ("rich", "Rich"),
    "screen": ("PIL", "Pillow and numpy"),
    "dask": ("distributed", "Dask distributed"),
}


def has_extra(extra: str) -> bool:
    """Whether the library of ``extra`` can be imported (without importing it)."""
    module, _ = EXTRAS[extra]
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def need_extra(extra: str, what: str) -> None:
    """Raise :class:`InputError` saying that ``what`` needs the extra, and how to install it."""
    if not has_extra(extra):
        _, library = EXTRAS[extra]
        raise InputError(f"{what} needs {library}: pip install 'demine[{extra}]'")


def writable_file(path: str | Path, option: str) -> None:
    """Raise :class:`InputError` unless a file can be written at ``path``: its folder exists and
    is writable, and the path is not a folder or a read-only file."""
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise InputError(f"{option} {p}: is a folder, not a file")
    if not folder.is_dir():
        raise InputError(f"{option} {p}: no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{option} {p}: the folder {folder} is not writable")
    if p.exists() and not os.access(p, os.W_OK):
        raise InputError(f"{option} {p}: the file is not writable")


def writable_folder(path: str | Path, option: str) -> None:
    """Raise :class:`InputError` unless ``path`` is a writable folder or one can be made there."""
    p = Path(path)
    if p.exists():
        if not p.is_dir():
            raise InputError(f"{option} {p}: is a file, not a folder")
        if not os.access(p, os.W_OK | os.X_OK):
            raise InputError(f"{option} {p}: the folder is not writable")
        return
    parent = p.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{option} {p}: cannot make it ({parent} is not a writable folder)")


def suffix_of(path: str | Path, allowed: tuple[str, ...], option: str) -> str:
    """The file's suffix, lower case; :class:`InputError` unless it is one of ``allowed``."""
    suffix = Path(path).suffix.lower()
    if suffix not in allowed:
        names = ", ".join(allowed[:-1]) + " or " + allowed[-1] if len(allowed) > 1 else allowed[0]
        raise InputError(f"{option} writes {names} files, not {suffix or 'a file without a suffix'!r}")
    return suffix


#: The picture files the commands write, by suffix.
PICTURE_SUFFIXES = (".svg", ".png")


def check_picture(path: str | Path, option: str) -> None:
    """Before the work: ``path`` is an .svg or .png file that can be written (a PNG needs
    CairoSVG, the ``png`` extra)."""
    if suffix_of(path, PICTURE_SUFFIXES, option) == ".png":
        need_extra("png", f"{option} {path} (a PNG)")
    writable_file(path, option)


def write_picture(path: str | Path, svg: str) -> None:
    """Write an SVG picture to ``path`` as SVG, or as PNG when the name ends in .png (converted
    by CairoSVG), atomically and with the mode a plain ``open()`` gives."""
    from demine.engine.formats import atomic_write

    if Path(path).suffix.lower() == ".png":
        try:
            import cairosvg  # type: ignore[import-untyped,unused-ignore]
        except ImportError:
            raise InputError(f"{path}: a PNG needs CairoSVG: pip install 'demine[png]'") from None
        atomic_write(path, cairosvg.svg2png(bytestring=svg.encode("utf-8")))
    else:
        atomic_write(path, svg if svg.endswith("\n") else svg + "\n")


def bench_outputs(plot: str | None, record: str | None, resume: str | None) -> None:
    """What ``bench`` will write, checked before any game is played."""
    if plot:
        need_extra("plot", "--plot")
        suffix_of(plot, (".png", ".svg", ".pdf"), "--plot")
        writable_file(plot, "--plot")
    if record:
        writable_file(record, "--record")
    if resume:
        writable_file(resume, "--resume")
