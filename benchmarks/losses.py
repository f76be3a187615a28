"""Where games are lost: the losing guess of every lost game in a record, by the player's reason and
by where the cell lay.

Run: python benchmarks/losses.py RECORD.jsonl   (from ``demine bench ... --record FILE --record-moves``)

Where the cell lay, in the position just before the losing move:

- ``off-frontier``: next to no revealed number;
- ``frontier``: in a group of constrained cells (one component of the constraint system) that still
  touches other covered cells, so later numbers may yet tell about it;
- ``pocket``: in a component enclosed by revealed cells and known mines, which no later number can
  reach: its fate is decided by its own cells alone. With its count of local layouts and whether
  they all hold the same number of mines (then the total mine count cannot help either: with 2
  layouts that is a coin toss no play avoids).
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict

from demine.formats import FormatError, GameRecord
from demine.position import COVERED
from demine.solve import analyze
from demine.solve.constraints import components, position_system
from demine.solve.exact import _count


def _where(record: GameRecord, k: int) -> str:
    position = record.replay(k).position()
    cell = record.moves[k].cell
    a = analyze(position)
    comps = components(position_system(position).constraints)
    comp = next((c for c in comps if any(cell in b for b in c.boxes)), None)
    if comp is None:
        return "off-frontier"
    cells = {x for b in comp.boxes for x in b}
    st = position.states
    nb = position.geometry.neighbours
    if any(st[d] == COVERED and d not in cells and d not in a.mines for x in cells for d in nb(x)):
        return "frontier"
    W = _count(comp, comp.cells, None, 1 << 62).W
    layouts = sum(W)
    fixed = "same mine count" if sum(1 for w in W if w) == 1 else "mine counts differ"
    return f"pocket, {layouts if layouts <= 4 else 'more than 4'} layouts, {fixed}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("record")
    ns = ap.parse_args()
    risks: dict[tuple[str, str], list[float]] = defaultdict(list)
    games = lost = 0
    try:
        with open(ns.record, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise SystemExit(f"{ns.record}: {e.strerror}") from None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            record = GameRecord.from_json(d["game"])
        except (json.JSONDecodeError, KeyError, TypeError, FormatError) as e:
            raise SystemExit(f"{ns.record}, line {lineno}: not a game record with its moves ({e})") from None
        games += 1
        if d.get("won"):
            continue
        lost += 1
        k = max(i for i, m in enumerate(record.moves) if m.kind == "reveal")
        note = record.note(k)
        reason, risk = (note[0], note[1]) if note else ("?", None)
        risks[(reason, _where(record, k))].append(risk if risk is not None else float("nan"))
    print(f"{games} games, {lost} lost")
    print("losses  share  median risk  reason / where")
    for (reason, where), rs in sorted(risks.items(), key=lambda kv: -len(kv[1])):
        share = 100 * len(rs) / max(lost, 1)
        print(f"{len(rs):6}  {share:4.1f}%  {statistics.median(rs):11.2f}  {reason} / {where}")


if __name__ == "__main__":
    main()
