"""Where games are lost: the losing guess of every lost game in a record, by the player's reason and
by where the cell lay.

Run: python benchmarks/losses.py RECORD.jsonl   (from ``demine bench ... --record FILE --record-moves``)
     python benchmarks/losses.py --pockets RECORD.jsonl

Where the cell lay, in the position just before the losing move:

- ``off-frontier``: next to no revealed number;
- ``frontier``: in a group of constrained cells (one component of the constraint system) that still
  touches other covered cells, so later numbers may yet tell about it;
- ``pocket``: in a component enclosed by revealed cells and known mines, which no later number can
  reach: its fate is decided by its own cells alone. With its count of local layouts and whether
  they all hold the same number of mines (then the total mine count cannot help either: with 2
  layouts that is a coin toss no play avoids).

With ``--pockets`` the script looks at every guess of every game instead (each move whose reason
is not ``safe``): how many were made while the position held a pocket of at least 3 layouts, all
with the same number of mines (a game of its own, which D. N. Hill's solver solves apart from the
rest of the board), and whether the guess was played inside one, by the player's reason.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterator

from demine.analysis import Analysis, analyze
from demine.analysis.constraints import Component, components, position_system
from demine.analysis.exact import layouts_by_mines
from demine.bench.records import read_records
from demine.engine.formats import FormatError, GameRecord
from demine.engine.position import COVERED, Position


def _enclosed(position: Position, a: Analysis, comp: Component) -> tuple[set[int], list[int]] | None:
    """A component's cells and its local layouts by mine count when no later number can reach it
    (it touches no covered cell outside it but known mines), else None."""
    cells = {x for b in comp.boxes for x in b}
    st = position.states
    nb = position.geometry.neighbours
    if any(st[d] == COVERED and d not in cells and d not in a.mines for x in cells for d in nb(x)):
        return None
    return cells, layouts_by_mines(comp)


def _where(record: GameRecord, k: int) -> str:
    position = record.replay(k).position()
    cell = record.moves[k].cell
    a = analyze(position)
    comps = components(position_system(position).constraints)
    comp = next((c for c in comps if any(cell in b for b in c.boxes)), None)
    if comp is None:
        return "off-frontier"
    pocket = _enclosed(position, a, comp)
    if pocket is None:
        return "frontier"
    W = pocket[1]
    layouts = sum(W)
    fixed = "same mine count" if sum(1 for w in W if w) == 1 else "mine counts differ"
    return f"pocket, {layouts if layouts <= 4 else 'more than 4'} layouts, {fixed}"


def _guesses(record: GameRecord) -> Iterator[tuple[int, str]]:
    """Each guess of a game: the index of every reveal whose reason is not ``safe`` (nor the first
    click), with that reason."""
    for k, m in enumerate(record.moves):
        note = record.note(k)
        if m.kind == "reveal" and note and note[0] not in ("safe", "start"):
            yield k, note[0]


def _pocket_census(records: list[GameRecord]) -> None:
    """Print how often a guess had a solvable-apart pocket (3+ layouts, one mine count) beside it."""
    guesses = with_pocket = 0
    inside: dict[tuple[str, bool], int] = defaultdict(int)
    sizes: dict[str, int] = defaultdict(int)
    for record in records:
        for k, reason in _guesses(record):
            m = record.moves[k]
            guesses += 1
            position = record.replay(k).position()
            a = analyze(position)
            pockets = []
            for comp in components(position_system(position).constraints):
                p = _enclosed(position, a, comp)
                if p is not None and sum(p[1]) >= 3 and sum(1 for w in p[1] if w) == 1:
                    pockets.append(p)
            if not pockets:
                continue
            with_pocket += 1
            inside[(reason, any(m.cell in cells for cells, _ in pockets))] += 1
            for _, W in pockets:
                n = sum(W)
                sizes["3" if n == 3 else "4-10" if n <= 10 else "11-100" if n <= 100 else "over 100"] += 1
    print(f"{guesses} guesses; {with_pocket} with a pocket of 3+ layouts and one mine count beside them")
    print("guesses  reason / played inside such a pocket")
    for (reason, inp), n in sorted(inside.items(), key=lambda kv: -kv[1]):
        print(f"{n:7}  {reason} / {'inside' if inp else 'elsewhere'}")
    print("pockets by layouts: " + ", ".join(f"{k}: {sizes[k]}" for k in ("3", "4-10", "11-100", "over 100")))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("record")
    ap.add_argument("--pockets", action="store_true", help="count the guesses made beside a pocket")
    ns = ap.parse_args()
    try:
        records = [(line.game(ns.record), line.result.won) for line in read_records(ns.record)]
    except FormatError as e:
        raise SystemExit(str(e)) from None
    if ns.pockets:
        _pocket_census([r for r, _ in records])
        return
    risks: dict[tuple[str, str], list[float]] = defaultdict(list)
    lost = 0
    for record, won in records:
        if won:
            continue
        lost += 1
        k = max(i for i, m in enumerate(record.moves) if m.kind == "reveal")
        note = record.note(k)
        reason, risk = (note[0], note[1]) if note else ("?", None)
        risks[(reason, _where(record, k))].append(risk if risk is not None else float("nan"))
    print(f"{len(records)} games, {lost} lost")
    by_reason = Counter(reason for record, _ in records for _, reason in _guesses(record))
    print(f"{sum(by_reason.values())} guesses: " + ", ".join(f"{r} {n}" for r, n in by_reason.most_common()))
    print("losses  share  median risk  reason / where")
    for (reason, where), rs in sorted(risks.items(), key=lambda kv: -len(kv[1])):
        share = 100 * len(rs) / max(lost, 1)
        print(f"{len(rs):6}  {share:4.1f}%  {statistics.median(rs):11.2f}  {reason} / {where}")


if __name__ == "__main__":
    main()
