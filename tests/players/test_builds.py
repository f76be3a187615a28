"""The two builds of demine make the same moves: the compiled one (mypyc, made at install when a C
compiler is present) and the pure-Python one.

The digests of tests/players/test_same_moves.py were recorded by the pure build and are checked
in whatever build this run imports. When that build is compiled, this test also plays the players
that run compiled code in a pure copy of the installed package (its ``.py`` files alone, in a
subprocess) and checks the same digests there: both builds, one run. ``.ci/run`` installs a
compiler and sets ``DEMINE_REQUIRE_COMPILED=1``, so in CI a build that did not compile fails here
instead of skipping.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import demine
from demine._build import COMPILED, build, compiled_modules
from demine.cli import main
from tests.players.test_same_moves import DIGESTS, GAMES, RULES

ROOT = Path(__file__).resolve().parents[2]
#: The players whose moves go through the compiled modules (every analysis, guess and follower).
PLAYERS = ("fast", "best", "exact")
REQUIRED = os.environ.get("DEMINE_REQUIRE_COMPILED", "") not in ("", "0")


def test_the_running_build_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    n = len(compiled_modules())
    assert build() == ("pure Python" if n == 0 else f"compiled (mypyc): {n} of {len(COMPILED)} hot modules")
    with pytest.raises(SystemExit):
        main(["--version"])
    assert f"({build()})" in capsys.readouterr().out


def test_the_compiled_modules_are_loaded_from_extensions() -> None:
    """What ``build()`` reports is what Python imported."""
    import importlib

    for name in COMPILED:
        loaded = importlib.import_module(name).__file__ or ""
        assert loaded.endswith(".py") == (name not in compiled_modules()), (name, loaded)


def test_ci_runs_the_compiled_build() -> None:
    if not REQUIRED:
        pytest.skip("DEMINE_REQUIRE_COMPILED is not set (a pure install is allowed here)")
    assert compiled_modules() == list(COMPILED), build()


def test_the_pure_build_makes_the_same_moves(tmp_path: Path) -> None:
    if not compiled_modules():
        pytest.skip("this run imports the pure build: test_same_moves.py checks it")
    package = Path(demine.__file__).resolve().parent
    shutil.copytree(
        package, tmp_path / "demine", ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__")
    )
    cases = [f"{n}/{p}/{r}" for n in PLAYERS for p in GAMES for r in RULES]
    script = (
        "import json, sys\n"
        "from demine._build import build\n"
        "from tests.players.test_same_moves import digest\n"
        "out = {c: digest(*c.split('/')) for c in json.loads(sys.argv[1])}\n"
        "print(json.dumps({'build': build(), 'digests': out}))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(cases)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout)
    assert got["build"] == "pure Python"
    recorded = json.loads(DIGESTS.read_text())
    assert got["digests"] == {c: recorded[c] for c in cases}


def test_a_compiled_module_older_than_its_source_is_named(tmp_path: Path) -> None:
    import importlib.machinery

    from demine._build import SOURCES, source_digest, stale_modules

    folder = tmp_path / "src" / "demine" / "analysis"
    folder.mkdir(parents=True)
    ext = folder / ("exact" + importlib.machinery.EXTENSION_SUFFIXES[0])
    ext.write_bytes(b"")
    source = folder / "exact.py"
    source.write_text("")
    os.utime(ext, (1_000, 1_000))
    os.utime(source, (2_000, 2_000))
    root = tmp_path / "src"
    assert compiled_modules(root) == ["demine.analysis.exact"]
    assert stale_modules(root) == []  # an installed copy (no checkout around it) is never stale
    (tmp_path / "setup.py").write_text("")
    assert stale_modules(root) == ["demine.analysis.exact"]  # (no digest noted: newer is stale)
    os.utime(ext, (3_000, 3_000))
    assert stale_modules(root) == []
    # a checkout that rewrites the source unchanged: newer, but the content the build noted
    noted = root / "demine" / SOURCES
    noted.write_text(json.dumps({"demine.analysis.exact": source_digest(source)}))
    os.utime(source, (4_000, 4_000))
    assert stale_modules(root) == []
    source.write_text("x = 1\n")  # changed since the build
    os.utime(source, (5_000, 5_000))
    assert stale_modules(root) == ["demine.analysis.exact"]
    noted.write_text("{not json")  # a damaged note: judged by the times alone
    assert stale_modules(root) == ["demine.analysis.exact"]


@pytest.mark.parametrize("name", COMPILED)
def test_the_examples_of_a_compiled_module_hold(name: str) -> None:
    """The docstring examples of a compiled module (skipped by pytest's doctest collection in
    that build: see conftest.py), run from its source loaded under another name; in the pure
    build pytest runs them itself."""
    import doctest
    import importlib.util

    if name not in compiled_modules():
        pytest.skip("pure here: pytest's doctest collection runs its examples")
    source = Path(demine.__file__).resolve().parent.parent.joinpath(*name.split(".")).with_suffix(".py")
    spec = importlib.util.spec_from_file_location(f"_source_of_{name.replace('.', '_')}", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    try:
        spec.loader.exec_module(module)
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    finally:
        del sys.modules[spec.name]
    assert result.failed == 0
