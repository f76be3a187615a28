"""Pictures of a review: the graph of a game's chances with its marks (matplotlib, the ``plot``
extra) and the board at a decision with the move played and the better one framed (SVG)."""

from __future__ import annotations

from pathlib import Path

from demine.engine.formats import GameRecord
from demine.errors import DemineError, InputError
from demine.render import render_svg
from demine.review.core import GUESS_MARKS, Review

#: Colours of the marks in the graph (and the page).
MARK_COLOURS = {
    "best guess": "#2e7d32",
    "inaccuracy": "#f9a825",
    "mistake": "#ef6c00",
    "blunder": "#c62828",
    "needless guess": "#6a1b9a",
    "wrong flag": "#1565c0",
}
PLAYED, BETTER = "#c62828", "#2e7d32"


def curves(review: Review) -> tuple[list[float], list[float], list[float]]:
    """Per move: the share of the best chance to win kept so far (the product of the decisions'
    ``kept``), the chance of surviving the guesses so far (the luck), both after the move; and
    the move's x position (its time in a video, else its number)."""
    kept, luck, xs = [], [], []
    k, s = 1.0, 1.0
    for d in review.decisions:
        k *= d.kept
        if d.mark in GUESS_MARKS:
            s *= 1.0 - (d.mine_probability or 0.0)
        kept.append(k)
        luck.append(s)
        xs.append(d.time if d.time is not None else float(d.index + 1))
    return xs, kept, luck


def plot_review(review: Review, path: str | Path, title: str = "") -> None:
    """The graph of one game: the share of the chance to win kept, the luck, the exact chances
    to win at the endgame's decisions, and each guess marked by its judgement. The file type
    follows the suffix (``.png``, ``.svg``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise DemineError("review graphs need matplotlib: pip install 'demine[plot]'") from None
    suffix = Path(path).suffix.lower()
    if suffix not in (".png", ".svg"):
        raise InputError(f"the graph is written as .png or .svg, not {suffix or 'a file without a suffix'!r}")
    xs, kept, luck = curves(review)
    timed = bool(review.decisions) and review.decisions[0].time is not None
    fig, ax = plt.subplots(figsize=(8, 4), dpi=120)
    ax.step(xs, [100 * v for v in kept], where="post", color="#37474f", label="chance to win kept")
    ax.step(xs, [100 * v for v in luck], where="post", color="#90a4ae", linestyle="--", label="luck so far")
    exact = [(x, d) for x, d in zip(xs, review.decisions, strict=True) if d.exact and d.win_best is not None]
    if exact:
        ax.scatter(
            [x for x, _ in exact],
            [100 * (d.win_played or 0.0) for _, d in exact],
            marker="D",
            s=18,
            color="#455a64",
            label="exact chance to win, move played",
            zorder=3,
        )
    for mark, colour in MARK_COLOURS.items():
        pts = [(x, k) for x, k, d in zip(xs, kept, review.decisions, strict=True) if d.mark == mark]
        if pts:
            ax.scatter(
                [x for x, _ in pts], [100 * k for _, k in pts], color=colour, s=36, label=mark, zorder=4
            )
    hits = [(x, k) for x, k, d in zip(xs, kept, review.decisions, strict=True) if d.hit_mine]
    if hits:
        ax.scatter(
            [x for x, _ in hits],
            [100 * k for _, k in hits],
            marker="X",
            s=80,
            color="black",
            label="mine hit",
            zorder=5,
        )
    ax.set_ylim(-3, 103)
    ax.set_ylabel("%")
    ax.set_xlabel("seconds" if timed else "move")
    ax.set_title(title or f"{review.width}x{review.height}/{review.mines}, {review.outcome}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def board_at(record: GameRecord, review: Review, move: int, cell: int = 24) -> str:
    """SVG of the board as the player saw it before move ``move`` (1-based), with each covered
    cell's chance of a mine (flags as the player's claims, not facts), the move played framed in
    red and the engine's better move, if another, in green."""
    if not 1 <= move <= len(review.decisions):
        raise InputError(f"move {move} is not in this game (it has {len(review.decisions)} moves)")
    d = review.decisions[move - 1]
    p = record.replay(move - 1).position()
    outlines = {d.row * p.width + d.col: PLAYED}
    if d.best is not None and d.best != (d.row, d.col):
        outlines[d.best[0] * p.width + d.best[1]] = BETTER
    return render_svg(p, overlay="probabilities", cell=cell, trust_flags=False, outlines=outlines)
