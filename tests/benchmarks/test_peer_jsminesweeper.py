"""benchmarks/peer_jsminesweeper.py and its oracle: JSMinesweeper (run from its own folder under
Node; none of its code is here) plays our boards under our rules, its records resume, a record of
another run is refused, a game past its time is a counted loss, and the oracle's moves and
probabilities agree with demine's exact analysis. Skipped where node or the peer's folder is
missing."""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from demine.analysis import analyze
from demine.bench import generated_specs
from demine.engine.game import Game
from demine.engine.position import FLAG, Position
from demine.players import find_solver
from tests.helpers import benchmark_script


@pytest.fixture(scope="module")
def peer() -> Iterator[ModuleType]:
    with benchmark_script("peer_jsminesweeper") as module:
        yield module


@pytest.fixture(scope="module")
def jsm(peer: ModuleType) -> ModuleType:
    """The jsm_peer module, where node and the peer's folder are here."""
    import jsm_peer

    if jsm_peer.find_node() is None:
        pytest.skip("no node on PATH (JSMinesweeper runs under Node)")
    if not (jsm_peer.DEFAULT_SOURCE / jsm_peer.SOLVER_FILE).is_file():
        pytest.skip(f"no JSMinesweeper at {jsm_peer.DEFAULT_SOURCE}")
    return jsm_peer


@pytest.fixture(scope="module")
def solver(jsm: ModuleType) -> Iterator[object]:
    with jsm.NodeSolver() as s:
        yield s


def test_without_node_or_the_peer_it_says_what_is_missing(
    peer: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import jsm_peer

    with pytest.raises(SystemExit, match=r"no JSMinesweeper at .*pass --source"):
        peer.main(["--games", "1", "--source", str(tmp_path), "--node", "node"])
    monkeypatch.setattr(peer, "find_node", lambda: None)
    with pytest.raises(SystemExit, match="no `node` on PATH"):
        peer.main(["--games", "1"])
    monkeypatch.setattr(jsm_peer, "find_node", lambda: None)
    with pytest.raises(jsm_peer.PeerError, match="no `node` on PATH"):
        jsm_peer.JSMOracle()
    # bad options: a message naming the option, before anything is played
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    for args, message in (
        (["--boards", str(tmp_path / "none.jsonl")], r"--boards .*none\.jsonl: No such file"),
        (["--boards", str(tmp_path / "bad.jsonl")], r"bad\.jsonl: line 1: not valid JSON"),
        (["--start", "99,99"], r"--start 99,99: cell \(99, 99\) is off the 30x16 board"),
        (["--size", "3x3x20"], r"--size 3x3x20: 20 mines do not fit"),
        (["--players", "bogus"], r"--players: unknown player 'bogus'"),
        (["--games", "0"], r"--games: at least 1 board"),
        (["--game-seconds", "0"], r"--game-seconds: a time above 0"),
    ):
        with pytest.raises(SystemExit, match=message):
            peer.main(args)


def test_it_plays_our_boards_under_our_rules(peer: ModuleType, jsm: ModuleType, solver: object) -> None:
    specs = generated_specs(30, 16, 99, "safe", 0, 3, "jsm-rules")
    rules = peer.check_rules(solver, specs, 60.0)
    assert rules["first_click"] == rules["start"] == 0
    # every click's opened cells and numbers are demine's for the same layout
    assert rules["clicks_compared"] > 6 and rules["cells_compared"] > rules["clicks_compared"]
    assert rules["number_differences"] == 0, rules["differences"]
    # its probabilities are demine's exact ones, divided down to 8 decimals as it divides them
    assert rules["probabilities_compared"] > 100
    assert rules["max_probability_difference"] < 1e-8
    assert rules["probabilities_equal_exact_rounded_down"] >= 0.99 * rules["probabilities_compared"]
    assert sum(rules["outcomes_replayed"].values()) == 3
    # games to the end on other sizes and rules: outcomes are demine's replay, checked by play()
    for sp in generated_specs(9, 9, 10, "safe", None, 4, "jsm-b") + generated_specs(
        16, 16, 40, "zero", None, 2, "jsm-i"
    ):
        g = jsm.play(solver, sp, 60.0)
        assert g.status in ("won", "lost")
        assert g.clicks[0] == sp.start and g.result.moves == len(g.clicks)
        assert g.result.guesses == len(g.guesses) and set(g.guesses) <= set(g.clicks[1:])
        assert g.result.ms >= g.result.decide_ms > 0 and g.wall_ms >= g.result.ms
        replay = sp.game()
        for c in g.clicks:
            replay.reveal(c)
        assert replay.won == g.result.won and replay.over


def _run_args(tmp_path: Path, *more: str) -> list[str]:
    args = ["--preset", "beginner", "--games", "4", "--players", "fast", "--round", "2", "--quiet"]
    args += ["--seed", "jsm-test", "--record", str(tmp_path / "rec"), "--json", str(tmp_path / "out.json")]
    return [*args, *more]


def test_a_run_pairs_records_and_resumes(
    peer: ModuleType, jsm: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    peer.main(_run_args(tmp_path))
    first = json.loads((tmp_path / "out.json").read_text())
    lines = (tmp_path / "rec" / "jsminesweeper.jsonl").read_text().splitlines()
    assert len(lines) == 4 and len((tmp_path / "rec" / "fast.jsonl").read_text().splitlines()) == 4
    (pair,) = first["pairs"]
    assert (pair["a"], pair["b"], pair["games"]) == ("fast", "jsminesweeper", 4)
    assert pair["only_a"] - pair["only_b"] == pair["wins_a"] - pair["wins_b"]
    assert pair["mean_ms_ratio"] > 0 and pair["median_decide_ratio"] > 0 and 0 <= pair["p_value"] <= 1
    row = next(p for p in first["players"] if p["player"] == "jsminesweeper")
    assert row["ms_median"] <= row["ms_p95"] <= row["ms_p99"] <= row["ms_max"]
    assert row["games_timeout"] == 0 and row["lost_on_safe"] == 0
    assert first["load_before"] and first["load_after"] and first["peer"]["startup_ms"]
    # a second run plays nothing again (the peer is not even started) and reports the same games
    peer.main(_run_args(tmp_path))
    assert (tmp_path / "rec" / "jsminesweeper.jsonl").read_text().splitlines() == lines
    again = json.loads((tmp_path / "out.json").read_text())
    assert again["players"] == first["players"] and again["peer"]["startup_ms"] == []
    # more games: only the missing ones are played
    peer.main(_run_args(tmp_path, "--games", "6"))
    assert len((tmp_path / "rec" / "jsminesweeper.jsonl").read_text().splitlines()) == 6
    assert "jsminesweeper" in capsys.readouterr().out


def test_a_record_of_another_run_is_refused(peer: ModuleType, jsm: ModuleType, tmp_path: Path) -> None:
    peer.main(_run_args(tmp_path, "--games", "2", "--players", ""))
    rec = tmp_path / "rec" / "jsminesweeper.jsonl"
    kept = rec.read_text()
    for other, what in (
        (["--seed", "another"], "seed: 'jsm-test' (this run: 'another')"),
        (["--rule", "zero"], "rule: 'safe' (this run: 'zero')"),
        (["--start", "4,4"], "start: 0,0 (this run: 4,4)"),
        (["--preset", "expert"], "board: 9x9/10 (this run: 30x16/99)"),
    ):
        message = re.escape(f"jsminesweeper.jsonl: line 1: a game of another run: {what}")
        with pytest.raises(SystemExit, match=message):
            peer.main(_run_args(tmp_path, "--games", "2", "--players", "", *other))
    assert rec.read_text() == kept  # (nothing was added to it)
    first, second = (json.loads(x) for x in kept.splitlines())
    for lines, message in (
        (
            [{**first, "peer": "0123456789ab"}],
            "line 1: played by JSMinesweeper scripts of digest '0123456789ab'",
        ),
        ([{**first, "player": "best"}], "line 1: a game of best, which this run does not play"),
        ([first, second, first], "line 3: game 0 again .first at line 1.: two runs wrote to this record"),
    ):
        rec.write_text("".join(json.dumps(x) + "\n" for x in lines))
        with pytest.raises(SystemExit, match=message):
            peer.main(_run_args(tmp_path, "--games", "2", "--players", ""))


def test_a_game_past_its_time_is_a_counted_loss(peer: ModuleType, jsm: ModuleType, tmp_path: Path) -> None:
    with jsm.NodeSolver() as s:
        sp = generated_specs(30, 16, 99, "safe", 0, 1, "jsm-limit")[0]
        g = jsm.play(s, sp, 0.001)
        assert (g.status, g.result.won, g.result.moves) == ("timeout", False, 0)
        if Path("/proc/self/stat").is_file():  # (the limit is on the child's CPU time)
            assert g.cpu_ms is not None and g.cpu_ms > 1
        assert s.kills == 1
        # the next game starts a new process and plays to the end
        again = jsm.play(s, sp, 60.0)
        assert again.status in ("won", "lost") and len(s.startup_ms) == 2
    args = _run_args(
        tmp_path, "--preset", "expert", "--games", "1", "--players", "", "--game-seconds", "0.001"
    )
    peer.main(args)
    out = json.loads((tmp_path / "out.json").read_text())
    (row,) = out["players"]
    assert (row["games_timeout"], row["wins"], out["peer"]["killed_at_limit"]) == (1, 0, 1)
    (line,) = (tmp_path / "rec" / "jsminesweeper.jsonl").read_text().splitlines()
    assert json.loads(line)["status"] == "timeout"


def test_the_time_limit_is_cpu_time_with_a_wall_backstop(peer: ModuleType) -> None:
    import subprocess
    import time

    import jsm_peer

    if jsm_peer.cpu_seconds(os.getpid()) is None:
        pytest.skip("no /proc here: the limit is on wall time")
    # a process that waits spends no CPU time: its limit holds until the wall-time backstop
    sleeper = subprocess.Popen(["sleep", "5"])
    try:
        budget = jsm_peer.Budget(sleeper.pid, 0.05)
        time.sleep(0.2)
        assert not budget.passed() and "CPU time" in str(budget)
        time.sleep(1.4)
        assert budget.passed()  # (past 10 x 0.05 s of wall time and a second)
    finally:
        sleeper.kill()
        sleeper.wait()
    # a process that works passes it on CPU time
    busy = jsm_peer.Budget(os.getpid(), 0.05)
    while not busy.passed():
        sum(range(10_000))
    wall, cpu = busy.used()
    assert cpu is not None and cpu > 0.05 and wall > 0
    # without a process to watch, wall time
    assert str(jsm_peer.Budget(None, 1.0)) == "1 s of wall time"


def _positions(seed: str, each: int) -> list[Position]:
    """Positions of expert games played by ``fast``: ``each`` decision points (where it guesses
    or opens its proven safe cells) and ``each`` after the first of several safe moves (where
    proven safe cells are left), from the game's fifth turn on."""
    rng = random.Random(seed)
    player = find_solver("fast")
    decisions: list[Position] = []
    midway: list[Position] = []
    k = 0
    while len(decisions) < each or len(midway) < each:
        game = Game(30, 16, 99, rule="safe", seed=f"{seed}/{k}")
        game.reveal(0)
        turn = 0
        while not game.over:
            if turn >= 5 and len(decisions) < each:
                decisions.append(game.position())
            moves = player.decide(game.position(), rng).moves
            for i, mv in enumerate(moves):
                game.play(mv)
                if game.over:
                    break
                if i == 0 and len(moves) > 1 and turn >= 5 and len(midway) < each:
                    midway.append(game.position())
            turn += 1
        k += 1
    return decisions + midway


def test_the_oracle_plays_safe_cells_and_gives_the_exact_probabilities(jsm: ModuleType) -> None:
    positions = _positions("jsm-oracle", 8)
    with jsm.JSMOracle(seconds=60) as oracle:
        safe_seen = guesses = early = 0
        for p in positions:
            a = analyze(p)
            d = oracle.decide(p)
            assert d.move is not None and d.move.kind == "reveal" and p.states[d.move.cell] == 9
            # a cell it calls safe is one demine proves safe (never a mine called safe)
            assert all(m.cell in a.safe for m in d.moves if m.safety == 1)
            if a.safe:  # where demine proves cells safe, its move is one of them ...
                safe_seen += 1
                if d.move.cell not in a.safe:  # ... or a guess it cannot avoid, taken first
                    assert "unavoidable" in d.message and d.move.safety < 1, d.message
                    early += 1
            else:
                assert d.move.safety < 1
                guesses += 1
            assert d.move.safety == pytest.approx(1 - float(a.probability(d.move.cell)), abs=1e-8)
            assert set(d.mine_probability) == {c for c in range(p.width * p.height) if p.states[c] == 9}
            for c, q in d.mine_probability.items():
                assert abs(q - float(a.probability(c))) < 1e-8, (p, c)
        assert safe_seen - early >= 3 and guesses >= 1
        # a flag is trusted as a mine (it is no covered cell), or left out as a covered one
        p = next(p for p in positions if analyze(p).mines)
        mine = min(analyze(p).mines)
        flagged = Position(p.width, p.height, p.states[:mine] + bytes([FLAG]) + p.states[mine + 1 :], p.mines)
        trusted = oracle.decide(flagged)
        assert mine not in trusted.mine_probability
        assert oracle.decide(flagged, trust_flags=False).mine_probability[mine] == 1.0
        # bad input: a clear error, and the process serves the next call
        with pytest.raises(jsm.PeerError, match="total mine count"):
            oracle.decide(Position(p.width, p.height, p.states, None))
        with pytest.raises(jsm.PeerError, match="no layout of the mines fits"):
            oracle.decide(Position.from_text("4x1x1\n1HH1"))
        assert oracle.decide(Position.from_text("3x1x1\n1H1")).moves == ()
