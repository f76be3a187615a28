"""Imports run one way: engine -> analysis -> players -> bench / render / review -> screen / web -> cli.

Checked on the source text (every ``import`` statement, at module level or inside a function),
so a new import against the flow fails here before it becomes a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "demine"
#: Each package's rank: a module may import from its own rank or a lower one.
RANKS = {
    "errors": 0, "engine": 1, "analysis": 2, "players": 3, "bench": 4, "render": 4, "review": 4, "puzzles": 4,
    "web": 5, "screen": 5, "cli": 6,
}  # fmt: skip
#: Imports against the flow that are allowed, each for a reason: a position draws itself in
#: Jupyter (``_repr_svg_``) with the renderer, imported from above when it is called.
ALLOWED = {("engine/position.py", "render")}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "demine" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in RANKS else None


def _imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out.extend(a.name for a in node.names)
    return out


def test_every_import_runs_down_the_pipeline() -> None:
    wrong = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        own = rel.split("/")[0].removesuffix(".py")
        if own not in RANKS:
            continue  # demine/__init__.py and __main__.py gather the public names
        for module in _imports(path):
            target = _layer(module)
            if target is None or (rel, target) in ALLOWED:
                continue
            if RANKS[target] > RANKS[own]:
                wrong.append(f"{rel} imports {module}")
    assert wrong == []


def test_the_layers_are_the_packages_there_are() -> None:
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages == set(RANKS) - {"errors"}


def test_no_module_is_over_600_lines() -> None:
    long = {
        p.relative_to(SRC).as_posix(): n
        for p in SRC.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 600
    }
    assert long == {}
