"""The web game: ``demine serve`` (FastAPI + uvicorn, the ``web`` extra).

:mod:`demine.web.service` holds the logic and needs nothing beyond the standard library;
:mod:`demine.web.app` is the HTTP layer; ``static/`` is the page (plain HTML, CSS and JS modules).
"""
