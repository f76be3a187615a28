"""No-guess board generation: demine's modes against ms-toollib's, in one run.

Run: python benchmarks/no_guess.py [--boards 200] [--frontier 99,110,120,130,150,200] [--bias 300]

1. **Speed**: for beginner (zero, (2,2)), intermediate (zero, (2,2)) and expert (zero, (3,3)), the
   median, 99th percentile and longest time to one certified board: demine ``uniform`` and
   ``dense`` (complete certificate), ms-toollib ``laymine_solvable`` (its solver, without the mine
   count; uniform over what it accepts) and ``laymine_solvable_adjust`` (mines moved; not uniform).
   The calls alternate board by board, so the machine's noise falls on all alike.
2. **Density frontier** on 30x16 from (3,3), zero rule: each method's median time at each mine
   count (a method is left out of higher counts once its median passes 1 s; ms-toollib's
   ``laymine_solvable`` gives up after ``max_times`` draws and says so).
3. **Bias** of the dense mode, on 16x16 with ``--bias-mines`` (70 by default: dense enough that
   the repair has work to do, sparse enough that uniform sampling runs; zero, (2,2)): the
   per-cell mine frequency of ``--bias`` boards of each mode against the uniform mode's (the mean
   absolute difference, and the same between two uniform samples for scale), and the mean 3BV.
4. **Web**: the first click of a no-guess expert game through ``demine serve``'s app on loopback,
   the board generated in that request.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import ms_toollib as mstl

from demine import Game, Limit, no_guess_layout

Gen = Callable[[int], object]


def _ours(w: int, h: int, m: int, first: int, mode: str, limit: float = 60.0) -> Gen:
    def run(i: int) -> object:
        return no_guess_layout(
            w,
            h,
            m,
            "zero",
            first,
            seed=f"bench/{i}",
            mode=mode,
            limit=Limit(seconds=limit),  # type: ignore[arg-type]
        )

    return run


def _mstl(w: int, h: int, m: int, r0: int, c0: int, adjust: bool) -> Gen:
    def run(i: int) -> object:
        if adjust:
            return mstl.laymine_solvable_adjust(h, w, m, r0, c0)
        board, ok = mstl.laymine_solvable(h, w, m, r0, c0, 100_000)
        if not ok:
            raise TimeoutError("laymine_solvable gave up")
        return board

    return run


def _times(gens: dict[str, Gen], n: int, give_up: float | None = None) -> dict[str, list[float]]:
    """Each generator ``n`` times, alternating; a generator whose total passes ``give_up`` s stops."""
    out: dict[str, list[float]] = {k: [] for k in gens}
    for i in range(n):
        for k, gen in gens.items():
            if give_up is not None and sum(out[k]) > give_up:
                continue
            t0 = time.perf_counter()
            try:
                gen(i)
            except Exception:
                out[k].append(float("inf"))
                continue
            out[k].append(time.perf_counter() - t0)
    return out


def _row(name: str, ts: list[float]) -> str:
    if not ts:
        return f"  {name:>24}: not run"
    s = sorted(ts)
    p99 = s[min(len(s) - 1, int(0.99 * len(s)))]
    return (
        f"  {name:>24}: n={len(s):4} median {1000 * statistics.median(s):8.1f} ms  "
        f"p99 {1000 * p99:8.1f} ms  max {1000 * s[-1]:8.1f} ms"
    )


def speed(n: int) -> None:
    print("1. one certified board, zero rule")
    for name, (w, h, m, r0, c0) in {
        "beginner 9x9/10": (9, 9, 10, 2, 2),
        "intermediate 16x16/40": (16, 16, 40, 2, 2),
        "expert 30x16/99": (30, 16, 99, 3, 3),
    }.items():
        first = r0 * w + c0
        gens = {
            "demine uniform": _ours(w, h, m, first, "uniform"),
            "demine dense": _ours(w, h, m, first, "dense"),
            "ms-toollib solvable": _mstl(w, h, m, r0, c0, False),
            "ms-toollib adjust": _mstl(w, h, m, r0, c0, True),
        }
        print(f" {name}")
        for k, ts in _times(gens, n).items():
            print(_row(k, ts))


def frontier(counts: list[int], n: int) -> None:
    print("2. density frontier, 30x16 from (3,3), zero rule: median time (s)")
    w, h, first = 30, 16, 93
    alive = {"demine uniform", "demine dense", "ms-toollib solvable", "ms-toollib adjust"}
    for m in counts:
        gens = {
            "demine uniform": _ours(w, h, m, first, "uniform", limit=20.0),
            "demine dense": _ours(w, h, m, first, "dense", limit=20.0),
            "ms-toollib solvable": _mstl(w, h, m, 3, 3, False),
            "ms-toollib adjust": _mstl(w, h, m, 3, 3, True),
        }
        gens = {k: g for k, g in gens.items() if k in alive}
        res = _times(gens, n, give_up=20.0)
        cells = []
        for k in ("demine uniform", "demine dense", "ms-toollib solvable", "ms-toollib adjust"):
            if k not in res or not res[k]:
                cells.append(f"{k} -")
                continue
            med = statistics.median(res[k])
            cells.append(f"{k} {med:.3f}" if med != float("inf") else f"{k} failed")
            if med > 1.0:
                alive.discard(k)
        print(f"  {m:4} mines: " + "; ".join(cells), flush=True)


def bias(n: int, m: int, mixes: list[int]) -> None:
    print(f"3. bias of the dense mode: 16x16/{m}, zero rule, from (2,2)")
    w, h, first = 16, 16, 34
    cells = w * h

    def stats(mode: str, mix: int, tag: str) -> tuple[list[float], float]:
        freq = [0] * cells
        bbbv = []
        for i in range(n):
            b = no_guess_layout(w, h, m, "zero", first, seed=f"{tag}/{i}", mode=mode, mix=mix)  # type: ignore[arg-type]
            for c in b.mine_cells:
                freq[c] += 1
            bbbv.append(Game.from_layout(w, h, list(b.mine_cells)).bbbv())
        return [f / n for f in freq], statistics.mean(bbbv)

    base, base_3bv = stats("uniform", 0, "u1")
    other, other_3bv = stats("uniform", 0, "u2")

    def gap(a: list[float]) -> float:
        return statistics.mean(abs(x - y) for x, y in zip(a, base, strict=True))

    print(
        f"  uniform (second sample): mean |frequency difference| {gap(other):.4f}, mean 3BV {other_3bv:.1f}"
    )
    print(f"  uniform (reference):     mean 3BV {base_3bv:.1f}")
    for mix in mixes:
        f, b3 = stats("dense", mix, f"d{mix}")
        print(f"  dense, mix {mix:3}:          mean |frequency difference| {gap(f):.4f}, mean 3BV {b3:.1f}")


def web(n: int) -> None:
    """The first click of a no-guess expert game through the web server on loopback."""
    import socket
    import threading

    import httpx
    import uvicorn

    from demine.web.app import create_app
    from demine.web.limits import ServeLimits

    print("4. web: first click of a no-guess expert game (zero rule), loopback")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # one client creating games as fast as it can: the per-client limits are lifted
    limits = ServeLimits(games=None, moves=None, hints=None, games_per_client=n + 1)
    app = create_app(limits=limits)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    times = []
    with httpx.Client() as client:
        for _ in range(n):
            made = client.post(
                f"{base}/api/games", json={"preset": "expert", "rule": "zero", "no_guess": "complete"}
            )
            assert made.status_code == 200, made.text
            v = made.json()
            r0, c0 = v["start"]
            t0 = time.perf_counter()
            r = client.post(
                f"{base}/api/games/{v['id']}/moves?hints=1", json={"kind": "reveal", "row": r0, "col": c0}
            )
            times.append(time.perf_counter() - t0)
            assert r.status_code == 200, r.text
    server.should_exit = True
    thread.join(timeout=10)
    s = sorted(times)
    print(
        f"  n={n} median {1000 * statistics.median(s):.1f} ms  p95 {1000 * s[int(0.95 * n)]:.1f} ms  "
        f"max {1000 * s[-1]:.1f} ms (click + hints in one request)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", type=int, default=200, help="boards per method and size (speed)")
    ap.add_argument("--frontier", default="99,110,120,130,150,200", help="mine counts on 30x16")
    ap.add_argument("--frontier-boards", type=int, default=9)
    ap.add_argument("--bias", type=int, default=300, help="boards per mode for the bias")
    ap.add_argument(
        "--bias-mines", type=int, default=70, help="mines on 16x16 for the bias (dense enough to repair)"
    )
    ap.add_argument("--mixes", default="0,50,200,500,1000", help="swap steps of the dense mode to compare")
    ap.add_argument("--web", type=int, default=100, help="no-guess first clicks through the web server")
    ap.add_argument("--only", choices=("speed", "frontier", "bias", "web"))
    ns = ap.parse_args()
    if ns.only in (None, "speed"):
        speed(ns.boards)
    if ns.only in (None, "frontier"):
        frontier([int(x) for x in ns.frontier.split(",")], ns.frontier_boards)
    if ns.only in (None, "bias"):
        bias(ns.bias, ns.bias_mines, [int(x) for x in ns.mixes.split(",")])
    if ns.only in (None, "web"):
        web(ns.web)


if __name__ == "__main__":
    main()
