"""``demine screen read`` and ``demine screen hint`` on a real screenshot, and their errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("numpy")
Image = pytest.importorskip("PIL.Image")

from demine.cli import main  # noqa: E402
from demine.engine.position import Position  # noqa: E402
from demine.screen.text import ocr_missing  # noqa: E402
from demine.screen.truth import load_truth  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "data" / "screen"
SHOT = DATA / "tatham-30x16-t32.png"


def test_read_prints_the_position_with_the_mine_count_read_or_given(
    capsys: pytest.CaptureFixture[str],
) -> None:
    meta = load_truth(SHOT)
    assert main(["screen", "read", str(SHOT)]) == 0
    out, err = capsys.readouterr()
    # Tatham's status line says "Marked: 3 / 99", read where Tesseract is installed
    assert out.splitlines()[0] == ("30x16" if ocr_missing() else "30x16x99")
    assert Position.from_text(out).states == Position.from_text(meta["truth"]).states
    assert ("no mine count read" in err) == bool(ocr_missing())
    assert main(["screen", "read", str(SHOT), "--mines", "98"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "30x16x98"  # the count given wins
    lost = DATA / "tatham-9x9-t48-lost.png"  # its status line says "DEAD!" in place of the count
    assert main(["screen", "read", str(lost)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == "9x9"
    assert f"demine: no mine count read in {lost} (--mines N gives it)" in err


def test_read_json_says_where_the_board_is_and_its_skin(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["screen", "read", str(SHOT), "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["skin"] == "tatham" and j["width"] == 30 and j["height"] == 16
    assert j["box"][2] - j["box"][0] == pytest.approx(30 * 32, abs=2)
    assert j["cell_w"] == pytest.approx(32, abs=0.2)


def test_hint_draws_the_analysis_and_says_it_in_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "hint.png"
    assert (
        main(["screen", "hint", str(SHOT), "--mines", "99", "-o", str(out), "--json", "--probabilities"]) == 0
    )
    j = json.loads(capsys.readouterr().out)
    meta = load_truth(SHOT)
    truth = Position.from_text(meta["truth"])
    assert j["safe"] and j["move"] is not None
    w = truth.width
    for r, c in j["safe"]:  # hinted safe cells are covered cells of the screenshot
        assert truth.states[r * w + c] == 9
    with Image.open(out) as im:
        pic = im.convert("RGB")
    with Image.open(SHOT) as im:
        shot = im.convert("RGB")
    assert pic.width == shot.width and pic.height > shot.height  # the reason's bar below
    # a safe cell is painted the web game's green
    r, c = j["safe"][0]
    x0, y0 = j["read"]["box"][:2]
    cx = round(x0 + (c + 0.5) * j["read"]["cell_w"]) - 6
    cy = round(y0 + (r + 0.5) * j["read"]["cell_h"]) - 6
    red, green, blue = pic.getpixel((cx, cy))
    assert green > red + 40 and green > blue + 40


def test_bad_input_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "notes.png"
    text.write_text("not a picture")
    assert main(["screen", "read", str(text)]) == 2
    assert "not an image" in capsys.readouterr().err
    assert main(["screen", "read", str(tmp_path / "none.png")]) == 2
    assert "no such file" in capsys.readouterr().err
    blank = tmp_path / "blank.png"
    Image.new("RGB", (300, 200), (200, 200, 200)).save(blank)
    assert main(["screen", "read", str(blank)]) == 2
    assert "no grid found" in capsys.readouterr().err
    assert main(["screen", "hint", str(SHOT)]) == 2
    assert "-o OUT.png" in capsys.readouterr().err
    assert main(["screen", "hint", str(SHOT), "-o", str(tmp_path / "x.svg")]) == 2
    assert ".png" in capsys.readouterr().err
