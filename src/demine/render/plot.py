"""Plots of benchmark sweeps (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from demine.bench import Summary
from demine.errors import DemineError


def plot_sweep(
    param: str,
    points: Sequence[tuple[int, Sequence[Summary]]],
    path: str | Path,
    title: str,
) -> None:
    """Win rate with its 95% interval against the swept value, one line per player.

    The file type follows the suffix (``.png``, ``.svg``, ``.pdf``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise DemineError("plots need matplotlib: pip install 'demine[plot]'") from None
    suffix = Path(path).suffix.lower()
    if suffix not in (".png", ".svg", ".pdf"):
        raise DemineError(
            f"--plot writes .png, .svg or .pdf files, not {suffix or 'a file without a suffix'!r}"
        )
    players = [s.player for s in points[0][1]]
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    for i, name in enumerate(players):
        xs = [v for v, _ in points]
        rates = [100 * row[i].win_rate for _, row in points]
        lows = [100 * (row[i].win_rate - row[i].ci95[0]) for _, row in points]
        highs = [100 * (row[i].ci95[1] - row[i].win_rate) for _, row in points]
        ax.errorbar(xs, rates, yerr=[lows, highs], marker="o", capsize=3, label=name)
    ax.set_xlabel(param)
    ax.set_ylabel("win rate (%), 95% CI")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
