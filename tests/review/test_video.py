"""Videos of the community's programs: parsed (in a child process), reviewed, and the figures
ms-toollib also computes equal to ours. The six videos and their figures: tests/data/videos/SOURCE.md."""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("ms_toollib")

from demine.cli import main
from demine.errors import FormatError
from demine.review import review_game
from demine.review.video import game_from_video, parse_video, video_game

VIDEOS = Path(__file__).resolve().parent.parent / "data" / "videos"
#: ms-toollib 1.5.20's figures for each video, as SOURCE.md gives them: board, mines, 3BV, IOE, time.
KNOWN = {
    "sweeping_view_test_subject.avf": (8, 8, 10, 28, 0.778, 5.41),
    "sweeping_view_test_subject.evf": (30, 16, 99, 167, 0.500, 69.597),
    "sweeping_view_test_subject.rmv": (8, 8, 10, 10, 0.526, 4.153),
    "sweeping_view_test_subject_2.rmv": (8, 8, 10, 32, 1.032, 6.303),
    "mstl_Zhang_Shen_Jia_Exp_38.82_3bv122.mvf": (30, 16, 99, 122, 0.575, 37.81),
    "mstl_Wang_Jia_Ning_Beg_15.52_3bv24.avf": (8, 8, 10, 24, 0.571, 14.52),
}


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_a_video_is_read_reviewed_and_agrees_with_ms_toollib(name: str) -> None:
    w, h, mines, bbbv, ioe, seconds = KNOWN[name]
    record, times, figures = video_game(VIDEOS / name)
    assert (record.board.width, record.board.height, record.board.mines) == (w, h, mines)
    assert times == sorted(times) and len(times) == len(record.moves)
    r = review_game(record, times=times, clicks=figures["cl"], seconds=figures["rtime"])
    assert r.outcome == "won"  # every one of these is a finished game
    assert r.bbbv == r.solved_bbbv == bbbv == figures["bbbv"]  # ours, from the layout
    assert r.ioe == pytest.approx(ioe, abs=5e-4) and r.ioe == pytest.approx(figures["ioe"])
    assert r.seconds == pytest.approx(seconds)
    # ms-toollib's pluck is -log10 of the chance of surviving the guesses: ours from our engine
    assert r.pluck == pytest.approx(figures["pluck"], abs=1e-9)
    assert r.decisions[0].mark == "first click" and sum(d.mark == "forced" for d in r.decisions) > 5


def test_the_command_reviews_a_folder_of_videos(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(VIDEOS), "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "6 games, 6 won" in out


def test_a_damaged_video_is_named_and_the_process_lives_on(tmp_path: Path) -> None:
    cut = tmp_path / "cut.avf"
    cut.write_bytes((VIDEOS / "sweeping_view_test_subject.avf").read_bytes()[:300])
    junk = tmp_path / "junk.rmv"
    junk.write_bytes(b"garbage" * 10)  # ms-toollib aborts its process on this one
    for bad in (cut, junk):
        with pytest.raises(FormatError, match=bad.name):
            video_game(bad)
    with pytest.raises(FormatError, match="not a video"):
        parse_video(tmp_path / "game.txt")


def test_a_damaged_video_leaves_no_file_and_keeps_the_users_crash_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ms-toollib's panic handler writes crash.log into its working directory: the child's is a
    temporary folder, removed afterwards, so the user's own file of that name is left alone."""
    monkeypatch.chdir(tmp_path)
    temp = tmp_path / "temp"  # where the child's folder is made, to see that it is removed
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    mine = tmp_path / "crash.log"
    mine.write_text("the user's own notes\n")
    junk = tmp_path / "junk.rmv"
    junk.write_bytes(b"garbage" * 10)  # a Rust panic in ms-toollib
    with pytest.raises(FormatError, match="crashed"):
        parse_video("junk.rmv")  # a relative path still names the file the user meant
    assert mine.read_text() == "the user's own notes\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["crash.log", "junk.rmv", "temp"]
    assert list(temp.iterdir()) == []


def test_a_video_whose_board_does_not_match_its_moves_is_refused() -> None:
    path = VIDEOS / "sweeping_view_test_subject.avf"
    data = parse_video(path)
    r, c = data["mines"][0]
    free = next((rr, cc) for rr in range(8) for cc in range(8) if [rr, cc] not in data["mines"])
    data["mines"][0] = list(free)  # one mine moved: the numbers the video shows no longer follow
    with pytest.raises(FormatError, match="does not match its moves"):
        game_from_video(data, str(path))
    assert [r, c] != list(free)


def test_a_video_says_how_long_the_player_took_before_guesses_and_forced_moves() -> None:
    record, times, figures = video_game(VIDEOS / "sweeping_view_test_subject.evf")
    r = review_game(record, times=times, clicks=figures["cl"], seconds=figures["rtime"])
    think = r.thinking()
    gaps = {
        d.index: d.time - before.time  # type: ignore[operator]
        for before, d in zip(r.decisions, r.decisions[1:], strict=False)
    }
    assert think["guess"] == pytest.approx(statistics.median(gaps[d.index] for d in r.guesses))
    assert think["forced"] is not None and 0 < think["forced"] < 5
