"""benchmarks/peer_minesolve.py: the C peer builds outside the repository, plays our boards under
our rules, and its records resume. Skipped where the peer's source or cmake/a C compiler is missing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from demine.bench import generated_specs
from tests.helpers import benchmark_script, board_file


@pytest.fixture(scope="module")
def peer() -> Iterator[ModuleType]:
    with benchmark_script("peer_minesolve") as module:
        yield module


@pytest.fixture(scope="module")
def library(peer: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (peer.DEFAULT_SOURCE / "include" / "minesolve.h").is_file():
        pytest.skip(f"no minesolve source at {peer.DEFAULT_SOURCE}")
    missing = peer.tools_missing()
    if missing:
        pytest.skip(f"cannot build minesolve here: {', '.join(missing)} missing")
    lib: Path = peer.build(peer.DEFAULT_SOURCE, tmp_path_factory.mktemp("minesolve-build"))
    return lib


def test_without_build_tools_it_says_what_is_missing(
    peer: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(peer.shutil, "which", lambda name: None)
    assert peer.tools_missing() == ["cmake", "make", "a C compiler (gcc or clang)"]
    source = tmp_path / "src"
    (source / "include").mkdir(parents=True)
    (source / "include" / "minesolve.h").write_text("")
    (source / "CMakeLists.txt").write_text("")
    with pytest.raises(peer.PeerError, match="cmake, make, a C compiler"):
        peer.build(source, tmp_path / "build")
    with pytest.raises(peer.PeerError, match="outside the repository"):
        peer.build(source, peer.ROOT / "build-here")


def test_it_plays_under_our_rules(peer: ModuleType, library: Path) -> None:
    ms = peer.MineSolve(library)
    specs = generated_specs(30, 16, 99, "safe", 0, 8, "peer-rules")
    rules = peer.check_rules(ms, specs)
    assert rules["first_click"] == rules["start"] == 0
    assert rules["positions_compared"] > 8
    # its probabilities are demine's exact ones: the same total count, the same layouts
    assert rules["max_probability_difference"] < 1e-9
    assert rules["boards_same_guesses"] > 0
    assert rules["same_outcome_there"] == rules["boards_same_guesses"]
    # every game ends, on the layout demine drew, with each guess counted
    for sp in specs[:3]:
        g = peer.play_peer(ms, sp, 2)
        assert g.result.guesses == len(g.guesses)
        assert g.wall_ms >= g.result.ms > 0


def test_a_run_pairs_records_and_resumes(
    peer: ModuleType, library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--games", "6", "--depths", "1", "--players", "fast", "--round", "4", "--quiet"]
    args += ["--seed", "peer-test", "--record", str(tmp_path / "rec"), "--json", str(tmp_path / "out.json")]
    args += ["--build", str(library.parent)]
    peer.main(args)
    first = json.loads((tmp_path / "out.json").read_text())
    lines = (tmp_path / "rec" / "minesolve-d1.jsonl").read_text().splitlines()
    assert len(lines) == 6
    (pair,) = first["pairs"]
    assert (pair["a"], pair["b"], pair["games"]) == ("fast", "minesolve-d1", 6)
    assert pair["only_a"] - pair["only_b"] == pair["wins_a"] - pair["wins_b"]
    # each side's own time too (minesolve's is its ms_solve, demine's its decisions)
    fast = next(p for p in first["players"] if p["player"] == "fast")
    assert 0 < fast["decide_ms_median"] <= fast["ms_median"]
    assert pair["median_decide_ratio"] > 0
    # a second run plays nothing again and reports the same games
    peer.main(args)
    assert (tmp_path / "rec" / "minesolve-d1.jsonl").read_text().splitlines() == lines
    again = json.loads((tmp_path / "out.json").read_text())
    assert again["players"] == first["players"]
    assert "minesolve-d1" in capsys.readouterr().out


def test_repeated_runs_keep_each_boards_fastest_times(
    peer: ModuleType, library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--games", "4", "--depths", "1", "--players", "fast", "--round", "2", "--repeat", "3"]
    args += ["--seed", "peer-rep", "--record", str(tmp_path / "rec"), "--json", str(tmp_path / "out.json")]
    args += ["--build", str(library.parent), "--quiet"]
    peer.main(args)
    out = json.loads((tmp_path / "out.json").read_text())
    (pair,) = out["pairs"]
    assert (
        pair["runs"] == 3 and len(pair["run_median_ms_ratios"]) == len(pair["run_median_decide_ratios"]) == 3
    )
    for label in ("fast", "minesolve-d1"):
        lines = [json.loads(x) for x in (tmp_path / "rec" / f"{label}.jsonl").read_text().splitlines()]
        assert sorted(x.get("repeat", 0) for x in lines) == [0] * 4 + [1] * 4 + [2] * 4
        row = next(p for p in out["players"] if p["player"] == label)
        assert (row["runs"], row["boards_played_otherwise"]) == (3, 0)
        # the reported times are each board's least over the three runs, not the first run's
        least = [min(x["ms"] for x in lines if x["index"] == i) for i in range(4)]
        assert row["ms_mean"] == pytest.approx(sum(least) / 4)
        assert row["cpu_ms_mean"] == pytest.approx(
            sum(min(x["cpu_ms"] for x in lines if x["index"] == i) for i in range(4)) / 4
        )
    assert "each board's fastest of 3 runs" in capsys.readouterr().out
    # a second run resumes: nothing is played again
    before = (tmp_path / "rec" / "fast.jsonl").read_text()
    peer.main(args)
    assert (tmp_path / "rec" / "fast.jsonl").read_text() == before
    with pytest.raises(SystemExit, match="--repeat"):
        peer.main([*args, "--repeat", "0"])
    with pytest.raises(SystemExit, match="--round"):
        peer.main([*args, "--round", "0"])
    # a record whose run number is not one: a clear error naming the file, not a traceback
    first = json.loads(before.splitlines()[0])
    with (tmp_path / "rec" / "fast.jsonl").open("a") as f:
        f.write(json.dumps({**first, "repeat": "two"}) + "\n")
    with pytest.raises(SystemExit, match=r"fast\.jsonl: game 0: repeat 'two'"):
        peer.main(args)


def test_fastest_counts_boards_played_otherwise(peer: ModuleType) -> None:
    """(peers.fastest, which peer_minesolve and peer_jsminesweeper share.)"""
    from demine.bench import GameResult

    def game(ms: float, won: bool) -> tuple[GameResult, dict[str, object]]:
        return GameResult(0, won, 10, 1, ms, decide_ms=ms / 2), {"cpu_ms": ms}

    merged, differ = peer.peers.fastest([[game(5.0, True)], [game(3.0, True)], [game(4.0, False)]])
    ((r, extra),) = merged
    assert (r.won, r.ms, r.decide_ms, extra["cpu_ms"], differ) == (True, 3.0, 1.5, 3.0, 1)
    # a run that played another game lends no time (a quick loss is not the game's time)
    merged, differ = peer.peers.fastest([[game(5.0, True)], [game(1.0, False)], [game(4.0, True)]])
    ((r, extra),) = merged
    assert (r.won, r.ms, extra["cpu_ms"], differ) == (True, 4.0, 4.0, 1)


def test_the_plot_keeps_labels_of_close_points_apart(peer: ModuleType, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.set_xscale("log")
    ax.set_xlim(1, 100)
    ax.set_ylim(35, 45)
    placed: list[object] = []
    # four players at nearly the same point: each label must find its own place
    for i, name in enumerate(["minesolve-d1", "fast", "fast(two_step=False)", "minesolve-d2"]):
        at = (3.0 + 0.1 * i, 39.0 + 0.05 * i)
        placed.append(peer._label(fig, ax, f"{name} (8,000)", at, name.startswith("minesolve"), placed))
    assert all(not a.overlaps(b) for i, a in enumerate(placed) for b in placed[i + 1 :])  # type: ignore[attr-defined]
    # a point at the left edge: its long label goes to the right, not off the figure
    edge = peer._label(fig, ax, "fast(two_step=False) (8,000)", (1.05, 42.0), False, placed)
    assert edge.x0 >= ax.bbox.x0
    plt.close(fig)
    rows = [
        {
            "player": "fast",
            "games": 10,
            "win_rate": 0.4,
            "ci95": (0.3, 0.5),
            "ms_mean": 8.0,
            "ms_median": 6.0,
            "ms_p99": 30.0,
        },
        {
            "player": "minesolve-d1",
            "games": 10,
            "win_rate": 0.39,
            "ci95": (0.3, 0.5),
            "ms_mean": 3.0,
            "ms_median": 2.0,
            "ms_p99": 19.0,
        },
    ]
    peer.plot(rows, tmp_path / "frontier.png", "test")
    assert (tmp_path / "frontier.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_record_of_other_boards_or_another_player_is_refused(
    peer: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def play(rec: Path, *more: str) -> None:
        out = str(tmp_path / "out.json")
        peer.main(
            ["--depths", "", "--players", "fast", "--record", str(rec), "--quiet", "--json", out, *more]
        )

    def strip_runs(path: Path) -> None:  # as lines were written before they named their run
        old = [json.loads(x) for x in path.read_text().splitlines()]
        path.write_text("".join(json.dumps({k: v for k, v in x.items() if k != "run"}) + "\n" for x in old))

    one = board_file(tmp_path / "a" / "held.jsonl", 30, 16, 99, ["one/0", "one/1", "one/2"])
    other = board_file(tmp_path / "b" / "held.jsonl", 30, 16, 99, ["two/0", "two/1", "two/2"])
    rec = tmp_path / "rec"
    play(rec, "--boards", str(one))
    lines = (rec / "fast.jsonl").read_text()
    play(rec, "--boards", str(one))  # the same run resumes
    assert (rec / "fast.jsonl").read_text() == lines
    # a board file of the same name with other boards (its label, file:held.jsonl, is the same)
    with pytest.raises(SystemExit, match=r"fast\.jsonl: line 1: a game of another run: layout: "):
        play(rec, "--boards", str(other))
    with pytest.raises(SystemExit, match=r"seed: 'peer' \(this run: 'x'\)"):
        play(rec, "--boards", str(one), "--seed", "x")
    # another player's games in this player's file
    (rec / peer.peers.file_name("fast(two_step=False)")).write_text(lines)
    with pytest.raises(SystemExit, match=r"a game of fast, which this run does not play \(fast\(two_step"):
        play(rec, "--boards", str(one), "--players", "fast(two_step=False)")
    (rec / peer.peers.file_name("fast(two_step=False)")).unlink()
    # lines from before they named their run: a board file's cannot be checked; a seed's still
    # is, by its label (the seed's boards are expert, safe, from the usual start)
    strip_runs(rec / "fast.jsonl")
    with pytest.raises(SystemExit, match="written before record lines named their run"):
        play(rec, "--boards", str(one))
    seeded = tmp_path / "seeded"
    play(seeded, "--games", "2")
    strip_runs(seeded / "fast.jsonl")
    play(seeded, "--games", "3")
    assert len((seeded / "fast.jsonl").read_text().splitlines()) == 3
    with pytest.raises(SystemExit, match="its games are of 'seed:peer', not 'seed:x'"):
        play(seeded, "--games", "3", "--seed", "x")
    capsys.readouterr()
