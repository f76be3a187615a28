"""A hook of the API reference's build (mkdocs.yml): the docstrings' Sphinx roles, written for
readers of the source (``:class:`Game```), are shown as plain code (``Game``); ``~a.b.C`` shows
``C``, as Sphinx would."""

from __future__ import annotations

import re
from typing import Any

ROLE = re.compile(r":(?:class|func|meth|data|mod|attr|exc|obj):<code>(~?)([^<]*)</code>")


def plain_role(match: re.Match[str]) -> str:
    short, name = match.groups()
    return f"<code>{name.rsplit('.', 1)[-1] if short else name}</code>"


def on_page_content(html: str, **kwargs: Any) -> str:
    return ROLE.sub(plain_role, html)
