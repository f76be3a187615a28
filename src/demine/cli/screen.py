"""``demine screen``: boards from other programs' screens (the subcommands' group)."""

from __future__ import annotations

from typing import Any


def add_screen(sub: Any) -> None:
    """Add the ``screen`` group and its subcommands."""
    p = sub.add_parser("screen", help="other programs' boards: play or watch a live window (screen extra)")
    screen = p.add_subparsers(dest="screen_command", metavar="SUBCOMMAND", required=True)
    from demine.cli.screen_live import add_live

    add_live(screen)
