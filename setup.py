"""The build: demine's hot modules (``src/demine/_build.py``) compiled by mypyc when a C compiler
and Python's headers are present; otherwise, or with ``DEMINE_PURE=1``, or when the compile fails,
the same modules install as pure Python (a warning says why). Everything else is in pyproject.toml.
"""

from __future__ import annotations

import json
import os
import runpy
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent


def _say(text: str) -> None:
    print(f"demine build: {text}", file=sys.stderr)


def _why_pure() -> str | None:
    """Why the modules stay pure Python here (None: try to compile them)."""
    if os.environ.get("DEMINE_PURE", "") not in ("", "0"):
        return "DEMINE_PURE is set"
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc} not found)"
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").is_file():
        return f"no Python headers ({include}/Python.h not found; e.g. apt-get install python3-dev)"
    return None


class _OptionalBuildExt(build_ext):
    """Builds the compiled modules, or none of them: on a failed compile the modules already
    built are removed and the pure-Python ones are used."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as e:  # a compiler that fails: fall back to pure Python
            for ext in self.extensions:
                for path in (self.get_ext_fullpath(ext.name),):
                    if os.path.exists(path):
                        os.remove(path)
            _say(f"the compile failed ({e}); installing pure Python")
            return
        self._note_sources()

    def _note_sources(self) -> None:
        """Beside the compiled modules, the digest of the source each was compiled from (so a
        checkout that rewrites a file unchanged does not make it look stale: _build.py)."""
        build = runpy.run_path(str(HERE / "src" / "demine" / "_build.py"))
        names = [ext.name for ext in self.extensions if ext.name in build["COMPILED"]]
        if not names:
            return
        digests = {n: build["source_digest"](HERE / "src" / (n.replace(".", "/") + ".py")) for n in names}
        package = Path(self.get_ext_fullpath(names[0])).parents[names[0].count(".") - 1]
        (package / build["SOURCES"]).write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")


#: The setup commands that build code (the metadata ones need no compile).
BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}


def _extensions() -> list[object]:
    if not BUILDS.intersection(sys.argv[1:]):
        return []
    why = _why_pure()
    if why is not None:
        _say(f"pure Python: {why}")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say("pure Python: mypyc is not installed")
        return []
    names = runpy.run_path(str(HERE / "src" / "demine" / "_build.py"))["COMPILED"]
    paths = ["src/" + name.replace(".", "/") + ".py" for name in names]
    old = os.getcwd()
    os.chdir(HERE)
    try:
        exts: list[object] = mypycify(paths, opt_level="3", debug_level="0")
    except BaseException as e:  # mypyc stops on source it cannot compile: stay pure
        _say(f"pure Python: mypyc could not compile the modules ({e!r})")
        return []
    finally:
        os.chdir(old)
    _say(f"compiling {len(names)} modules with mypyc")
    return exts


setup(ext_modules=_extensions(), cmdclass={"build_ext": _OptionalBuildExt})
