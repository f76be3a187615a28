import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from demine import Position
from demine.cli import main
from demine.render import MINE_COLOUR, NUMBER_COLOURS, SAFE_COLOUR, render_svg

SVG = "{http://www.w3.org/2000/svg}"
P = Position.from_text("4x2x1\n12HH\nHF1H")


def _groups(svg: str) -> dict[str, int]:
    root = ET.fromstring(svg)
    out: dict[str, int] = {}
    for g in root.iter(f"{SVG}g"):
        out[g.get("class", "")] = out.get(g.get("class", ""), 0) + 1
    return out


def test_one_group_per_cell_with_its_kind() -> None:
    counts = _groups(render_svg(P))
    assert sum(counts.values()) == 8
    assert counts == {"open": 3, "covered": 4, "flag": 1}


def test_numbers_use_the_classic_colours() -> None:
    svg = render_svg(P)
    assert NUMBER_COLOURS[1] in svg and NUMBER_COLOURS[2] in svg and NUMBER_COLOURS[3] not in svg


def test_hints_mark_proven_cells_with_colour_and_glyph() -> None:
    p = Position.from_text("3x2\n121\nHHH")
    svg = render_svg(p, overlay="hints")
    counts = _groups(svg)
    assert counts["safe"] == 1 and counts["mine"] == 2
    assert SAFE_COLOUR in svg and MINE_COLOUR in svg and "\u2713" in svg


def test_probability_overlay_writes_percentages() -> None:
    p = Position.from_text("4x1x1\nHHHH")
    root = ET.fromstring(render_svg(p, overlay="probabilities"))
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert texts.count("25") == 4


def test_an_inconsistent_position_is_drawn_with_a_note() -> None:
    svg = render_svg(Position.from_text("2x1x1\n0F"), overlay="hints")
    assert "inconsistent" in svg


def test_repr_svg_for_jupyter() -> None:
    assert P._repr_svg_().startswith("<svg")


def test_render_command_writes_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "p.mine"
    src.write_text(P.to_text())
    out = tmp_path / "p.svg"
    assert main(["render", str(src), "--overlay", "hints", "-o", str(out)]) == 0
    ET.fromstring(out.read_text())
    bad = tmp_path / "bad.mine"
    bad.write_text("3x1\nHXH\n")
    assert main(["render", str(bad)]) == 2
    assert "line 2, column 2" in capsys.readouterr().err
