"""Big runs (docs/big-runs.md): a bench on a Dask cluster plays the games ``--jobs`` plays, is the
same run to ``--resume`` both ways, plays again the chunk of a worker lost, and says what is wrong
when the scheduler is lost or a chunk kills its workers. A run stopped by Ctrl-C or by a signal
leaves no process behind and a record that resumes to the figures of an unbroken run."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from demine.bench import generated_specs, run_games
from demine.bench.cluster import Cluster, run_chunks
from demine.bench.play import _play_chunk
from demine.cli import main
from demine.errors import DemineError

ROOT = Path(__file__).resolve().parents[2]
#: An expert run of ``fast`` (about 20 ms a game, pure Python): long enough to be stopped midway.
BASE = ["bench", "--preset", "expert", "--player", "fast", "--seed", "big", "--json"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def rows(path: Path) -> list[tuple[int, bool, int, int]]:
    """A record's games as sorted (index, won, moves, guesses), each line checked whole."""
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    return sorted((x["index"], x["won"], x["moves"], x["guesses"]) for x in lines)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A local cluster of 2 worker processes with a thread each (as the docs' demonstration),
    giving up on a chunk after it killed 2 workers (Dask's default is 4)."""
    distributed = pytest.importorskip("dask.distributed")
    import dask

    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 1}),
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
        ) as c,
    ):
        yield c


def address(cluster: Any) -> str:
    """The ``--executor`` of ``cluster``, once both its workers are up (a test may kill one)."""
    with cluster.get_client() as client:
        client.wait_for_workers(2, timeout=60)
    return str(cluster.scheduler_address).replace("tcp://", "dask://")


def tasks_of(games: int, per: int = 8) -> list[tuple[list[Any], str, bool, bool]]:
    specs = generated_specs(30, 16, 99, "safe", None, games, "big")
    return [(specs[i : i + per], "fast", False, False) for i in range(0, games, per)]


def test_a_dask_run_is_the_jobs_run_and_each_resumes_the_other(
    cluster: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dask = address(cluster)
    full, a, b = tmp_path / "full.jsonl", tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _, whole, _ = run(capsys, *BASE, "--games", "64", "--jobs", "2", "--record", str(full))
    run(capsys, *BASE, "--games", "32", "--jobs", "2", "--record", str(a))
    code, on_dask, err = run(capsys, *BASE, "--games", "64", "--executor", dask, "--resume", str(a))
    assert code == 0, err
    assert json.loads(on_dask)["resumed"] == {"record": str(a), "read": 32, "played": 32, "beyond": 0}
    run(capsys, *BASE, "--games", "32", "--executor", dask, "--record", str(b))
    code, on_jobs, err = run(capsys, *BASE, "--games", "64", "--jobs", "2", "--resume", str(b))
    assert code == 0, err
    assert rows(a) == rows(b) == rows(full) and len(rows(full)) == 64
    assert json.loads(whole)["wins"] == json.loads(on_dask)["wins"] == json.loads(on_jobs)["wins"]


def test_a_worker_lost_mid_run_has_its_chunk_played_again(cluster: Any, tmp_path: Path) -> None:
    marker = tmp_path / "crashed"

    def crash_once(task: tuple[list[Any], str, bool, bool]) -> list[Any]:
        if task[0][0].index == 24 and not marker.exists():
            marker.touch()
            os._exit(1)  # (the worker dies; its nanny starts another)
        return _play_chunk(task)

    tasks = tasks_of(64)
    notices: list[str] = []
    host, port = address(cluster).removeprefix("dask://").split(":")
    here = Cluster(host, int(port), check_seconds=0.1)
    got = list(run_chunks(here, crash_once, tasks, [f"chunk {i}" for i in range(8)], notices.append))
    assert marker.exists()
    played = [
        (r.index, r.won, r.moves, r.guesses) for r in run_games([s for t in tasks for s in t[0]], "fast")
    ]
    assert sorted((r.index, r.won, r.moves, r.guesses) for r in got) == played
    assert any("left; the chunks it held are played again" in n for n in notices), notices


def test_a_finished_chunk_is_let_go_on_the_cluster(cluster: Any) -> None:
    def held() -> int:
        """How many chunks' results the cluster holds."""
        return [ts.state for ts in list(cluster.scheduler.tasks.values())].count("memory")

    host, port = address(cluster).removeprefix("dask://").split(":")
    games = run_chunks(Cluster(host, int(port)), _play_chunk, tasks_of(64), [str(i) for i in range(8)])
    for got, _ in enumerate(games, start=1):
        if got == 64:
            break  # (the run waits at its last game, its client open)
    deadline = time.monotonic() + 20
    while held() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert held() == 0  # (all 8 were held until the run ended, before)
    games.close()


def test_a_worker_of_another_version_is_refused(cluster: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from demine.bench import cluster as module

    host, port = address(cluster).removeprefix("dask://").split(":")
    monkeypatch.setattr(module, "played_by", lambda: ("9.9.9", "pure Python"))  # (here, not there)
    with pytest.raises(DemineError, match=r"runs demine \S+, this client 9\.9\.9: install the same"):
        list(run_chunks(Cluster(host, int(port)), _play_chunk, tasks_of(8), ["games 0-7"]))


def test_a_lost_scheduler_is_a_clear_error(tmp_path: Path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    local = distributed.LocalCluster(
        n_workers=1, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address="127.0.0.1:0"
    )
    host, port = local.scheduler_address.removeprefix("tcp://").split(":")
    got = 0
    with pytest.raises(DemineError, match=r"lost the Dask scheduler at tcp://127\.0\.0\.1:\d+ \(scheduler-connection-lost\)"):  # fmt: skip
        for _ in run_chunks(Cluster(host, int(port)), _play_chunk, tasks_of(64), [str(i) for i in range(8)]):
            got += 1
            if got == 8:
                local.close()
    assert 8 <= got < 64


def test_a_run_without_workers_says_so_and_waits_for_one() -> None:
    distributed = pytest.importorskip("dask.distributed")
    notices: list[str] = []
    with distributed.LocalCluster(
        n_workers=0, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address="127.0.0.1:0"
    ) as local:
        host, port = local.scheduler_address.removeprefix("tcp://").split(":")

        def notice(text: str) -> None:
            notices.append(text)
            local.scale(1)  # (a worker started after the notice)

        here = Cluster(host, int(port), check_seconds=0.1)
        got = list(run_chunks(here, _play_chunk, tasks_of(16), ["a", "b"], notice))
    assert len(got) == 16
    assert notices == [
        f"no Dask workers on the scheduler at tcp://{host}:{port}: the run waits for one (dask worker "
        f"tcp://{host}:{port}); Ctrl-C stops it, and --resume goes on later"
    ]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_scheduler_is_told_at_once_and_the_record_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("dask.distributed")
    rec = tmp_path / "r.jsonl"
    rec.write_text("what the user had\n")
    port = _free_port()
    t0 = time.monotonic()
    code, _, err = run(capsys, *BASE, "--executor", f"dask://127.0.0.1:{port}", "--record", str(rec))
    assert (
        code == 2 and f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}: Connection refused" in err
    )
    assert time.monotonic() - t0 < 4 and rec.read_text() == "what the user had\n"
    for executor, message in [
        ("dask://127.0.0.1:x", "the port is not a number from 1 to 65535"),
        ("dask://:8786", "no host"),
        ("tcp://127.0.0.1:8786", "--executor takes dask://HOST:PORT"),
    ]:
        code, _, err = run(capsys, *BASE, "--executor", executor)
        assert code == 2 and message in err and "Traceback" not in err
    code, _, err = run(capsys, *BASE, "--executor", "dask://127.0.0.1:1", "--jobs", "2")
    assert code == 2 and "give one of them" in err


def _alive(group: int) -> list[int]:
    """The processes of a process group that are alive (not zombies)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive


def _gone(group: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while _alive(group):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


class Bench:
    """``demine ARGS`` in its own process group with Ctrl-C's default action (as a terminal runs
    it), its output in files (a worker left behind would hold a pipe open)."""

    def __init__(self, args: list[str], folder: Path) -> None:
        def own_group() -> None:
            os.setpgrp()
            signal.signal(signal.SIGINT, signal.SIG_DFL)

        self.err_file = folder / "stderr"
        with self.err_file.open("w") as err:
            self.child = subprocess.Popen(
                [sys.executable, "-m", "demine", *args],
                stdout=subprocess.DEVNULL,
                stderr=err,
                preexec_fn=own_group,
                env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
            )
        self.group = self.child.pid

    def wait_for(self, rec: Path, lines: int) -> None:
        """Until ``rec`` holds ``lines`` games (the run still going)."""
        deadline = time.monotonic() + 60
        while not (rec.exists() and len(rec.read_bytes().splitlines()) >= lines):
            assert self.child.poll() is None and time.monotonic() < deadline, self.err_file.read_text()
            time.sleep(0.05)

    def stopped(self) -> tuple[int, str]:
        """Its exit code and stderr, once it has ended."""
        return self.child.wait(timeout=60), self.err_file.read_text()

    def __enter__(self) -> Bench:
        return self

    def __exit__(self, *exc: object) -> None:
        left = _alive(self.group)  # (a failed test leaves nothing running either)
        if left:
            os.killpg(self.group, signal.SIGKILL)
        self.child.wait(timeout=60)


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[int, bool, int, int]]:
    """The games of the runs stopped below, played in one go."""
    rec = tmp_path_factory.mktemp("unbroken") / "r.jsonl"
    assert main([*BASE, "--games", "200", "--jobs", "2", "--record", str(rec)]) == 0
    return rows(rec)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc (Linux)")
@pytest.mark.parametrize("where", ["jobs", "dask"])
def test_ctrl_c_stops_a_run_whole_and_resume_finishes_it(
    where: str,
    cluster: Any,
    unbroken: list[tuple[int, bool, int, int]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    how = ["--jobs", "2"] if where == "jobs" else ["--executor", address(cluster)]
    rec = tmp_path / "r.jsonl"
    with Bench([*BASE, "--games", "200", *how, "--record", str(rec)], tmp_path) as bench:
        bench.wait_for(rec, 16)
        os.killpg(bench.group, signal.SIGINT)  # (a terminal sends Ctrl-C to the whole group)
        code, err = bench.stopped()
        assert code == 130 and "Traceback" not in err
        kept = len(rec.read_text().splitlines())
        assert f"demine: interrupted; {rec} keeps {kept} games; the same command with --resume" in err
        assert 16 <= kept < 200 and _gone(bench.group), _alive(bench.group)
    if where == "dask":  # the stopped client's chunks are let go on the cluster
        deadline = time.monotonic() + 20
        while cluster.scheduler.tasks and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not cluster.scheduler.tasks
    code, out, err = run(capsys, *BASE, "--games", "200", *how, "--resume", str(rec))
    assert code == 0, err
    assert rows(rec) == unbroken and json.loads(out)["wins"] == sum(r[1] for r in unbroken)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc (Linux)")
def test_a_pools_workers_leave_ctrl_c_to_the_bench(
    unbroken: list[tuple[int, bool, int, int]], tmp_path: Path
) -> None:
    """A Ctrl-C reaches the whole group; the bench stops its pool itself. A worker that took
    it as an interrupt could be caught inside the pool's queues and leave the bench waiting on
    them for ever (the test above hung 1 stop in 12 so): a worker ignores it, and the run goes on
    when only the workers get one."""
    rec = tmp_path / "r.jsonl"
    with Bench([*BASE, "--games", "200", "--jobs", "2", "--record", str(rec)], tmp_path) as bench:
        bench.wait_for(rec, 16)
        workers = [pid for pid in _alive(bench.group) if pid != bench.group]
        assert len(workers) == 2
        for pid in workers:
            os.kill(pid, signal.SIGINT)
        code, err = bench.stopped()
        assert code == 0 and "Traceback" not in err, err
    assert rows(rec) == unbroken


def test_a_stop_says_the_games_the_record_holds_even_between_a_write_and_its_count(tmp_path: Path) -> None:
    """A Ctrl-C can come after a game's line is written and before it is counted (a Dask run
    once said 39 games of a record of 40), or in the middle of a line: the message counts the
    whole lines on disk, as --resume will read them."""
    from demine.bench.records import record_line
    from demine.cli.longrun import RecordOut

    results = list(run_games(generated_specs(9, 9, 10, "safe", None, 3, "stop"), "fast"))
    path = tmp_path / "r.jsonl"
    cut = RecordOut(str(tmp_path / "cut.jsonl"))
    cut.out.write(record_line("fast", results[0])[:20])  # only a line cut off: nothing kept
    assert cut.kept() is None
    cut.close()
    record = RecordOut(str(path))
    record.add("fast", results[0])
    record.out.write(record_line("fast", results[1]))  # written and flushed, not yet counted
    record.out.flush()
    assert "keeps 2 games;" in (record.kept() or "")
    record.out.write(record_line("fast", results[2])[:20])  # cut off mid-write
    assert "keeps 2 games;" in (record.kept() or "")
    record.close()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc (Linux)")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: s.name)
def test_a_bench_killed_alone_leaves_no_worker_behind(sig: signal.Signals, tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    with Bench([*BASE, "--games", "200", "--jobs", "2", "--record", str(rec)], tmp_path) as bench:
        bench.wait_for(rec, 16)
        os.kill(bench.group, sig)  # (the bench alone, not its group: kill PID, a timeout, a closed ssh)
        code, err = bench.stopped()
        assert _gone(bench.group), _alive(bench.group)
    if sig == signal.SIGKILL:
        assert code == -sig
    else:
        assert code == 128 + sig and "Traceback" not in err
        assert f"demine bench: stopped by {sig.name}; {rec} keeps" in err
    assert all(line.endswith("}") for line in rec.read_text().splitlines())


PLAY_IN_POOL = """
import sys
from demine.bench import generated_specs, run_games
specs = generated_specs(30, 16, 99, "safe", None, 400, "pool")
for n, r in enumerate(run_games(specs, "fast", jobs=2, start_method=sys.argv[1]), start=1):
    if n == 16:
        print("playing", flush=True)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc (Linux)")
@pytest.mark.parametrize("method", ["forkserver", "spawn"])
def test_a_pool_started_any_way_dies_with_its_bench(method: str) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", PLAY_IN_POOL, method],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "playing\n"
        assert len(_alive(child.pid)) >= 3  # the bench and its two workers (and a forkserver)
        child.kill()
        child.wait(timeout=60)
        assert _gone(child.pid), _alive(child.pid)
    finally:
        if _alive(child.pid):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=60)


def test_nohup_s_ignored_hangup_stays_ignored() -> None:
    from demine.cli.longrun import Stopped, stops_on_signals

    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with stops_on_signals():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            with pytest.raises(Stopped) as stop:
                signal.raise_signal(signal.SIGTERM)
        assert stop.value.name == "SIGTERM"
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGHUP, before)


def test_progress_into_a_log_is_a_line_every_few_minutes_at_this_run_s_pace() -> None:
    import io

    from demine.cli.longrun import LogProgress

    now = [0.0]
    out = io.StringIO()
    log = LogProgress(10, "best", done=4, every=300.0, clock=lambda: now[0], out=out)
    for t in (100.0, 200.0, 299.0):
        now[0] = t
        log.tick()
    assert out.getvalue() == ""  # (under 5 minutes)
    now[0] = 400.0
    log.tick()  # 8 of 10 done, 4 of them in 400 s: 2 more take 200 s
    assert out.getvalue() == "progress: best: 8 of 10 (80.0%), 0:06:40 so far, about 0:03:20 left\n"


def test_a_resumed_run_s_progress_starts_at_the_games_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from demine.cli import longrun

    rec = tmp_path / "r.jsonl"
    base = ["bench", "--preset", "beginner", "--player", "fast", "--seed", "p"]
    run(capsys, *base, "--games", "6", "--record", str(rec))
    calls: list[str] = []

    def fake(total: int, label: str, done: int = 0) -> tuple[object, object]:
        calls.append(f"{label}: {done} of {total}")
        return (lambda r: calls.append("tick")), (lambda: calls.append("stop"))

    monkeypatch.setattr(longrun, "progress", fake)
    code, _, _ = run(capsys, *base, "--games", "10", "--resume", str(rec))
    assert code == 0 and calls == ["fast: 6 of 10", "tick", "tick", "tick", "tick", "stop"]


def test_a_chunk_that_kills_every_worker_is_a_clear_error(cluster: Any) -> None:
    """(Last: its workers are started again after it.)"""

    def crash(task: tuple[list[Any], str, bool, bool]) -> list[Any]:
        os._exit(1)

    host, port = address(cluster).removeprefix("dask://").split(":")
    with pytest.raises(DemineError, match=r"^games 0-7 killed one Dask worker after another"):
        list(run_chunks(Cluster(host, int(port)), crash, tasks_of(8), ["games 0-7"]))
