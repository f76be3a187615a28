"""The HTTP layer (FastAPI): a static page and a JSON API over :class:`~demine.web.service.Service`.

API (cells are ``[row, col]``; errors are ``{"error": message}`` with a 4xx status):

- ``POST /api/games`` ``{preset | width, height, mines; rule; seed; no_guess}`` → the game's view
- ``GET /api/games/{id}`` → its view; ``POST /api/games/{id}/moves`` ``{kind, row, col}`` → the new view
  (``?hints=1`` adds the new position's hints, so a click with hints on is one request; they leave
  the best guess out, marked ``guess_pending``, for ``/hint`` or ``/hints`` to give)
- ``GET /api/games/{id}/hints?probabilities=1`` → safe cells, mines, reasons, probabilities, best guess
- ``GET /api/games/{id}/hint`` → one move to show (a safe cell, else the best guess)
- ``GET /api/games/{id}/replay?move=K`` and ``GET /api/games/{id}/export`` once the game is over
- ``POST /api/analyze`` ``{text, mines, trust_flags}`` → the analysis board's result
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, ClassVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from demine.errors import DemineError
from demine.web.service import MAX_PASTE, Conflict, NotFound, Service, analysis_board
from demine.web.store import Store

STATIC = Path(__file__).parent / "static"
MAX_BODY = 64 * 1024
"""The largest request body accepted (bytes)."""


class NewGame(BaseModel):
    """The body of ``POST /api/games``."""

    preset: str | None = None
    width: int | None = None
    height: int | None = None
    mines: int | None = None
    rule: str = "safe"
    seed: str | int | None = None
    no_guess: str | None = None
    """``complete`` or ``local``: a board that never needs a guess from the first click."""


class MoveIn(BaseModel):
    """The body of ``POST /api/games/{id}/moves``."""

    kind: str
    row: int
    col: int


class AnalyzeIn(BaseModel):
    """The body of ``POST /api/analyze``."""

    text: str = Field(max_length=MAX_PASTE)
    mines: int | None = None
    trust_flags: bool = False


class _Guard:
    """Refuses bodies over :data:`MAX_BODY` and sets headers that keep the page to itself.
    A plain ASGI middleware (Starlette's ``BaseHTTPMiddleware`` costs about a millisecond a request)."""

    HEADERS: ClassVar[list[tuple[bytes, bytes]]] = [
        (b"x-content-type-options", b"nosniff"),
        (b"content-security-policy", b"default-src 'self'; img-src 'self' data:"),
        (b"referrer-policy", b"no-referrer"),
    ]

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name == b"content-length" and (not value.isdigit() or int(value) > MAX_BODY):
                error = JSONResponse({"error": f"the request body is over {MAX_BODY} bytes"}, status_code=413)
                await error(scope, receive, send)
                return
        api = scope["path"].startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", [])) + self.HEADERS
                if api:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _json(obj: Any) -> Response:
    """A JSON response written directly (the API's objects are plain dicts and lists already)."""
    return Response(json.dumps(obj, separators=(",", ":")), media_type="application/json")


def _status(e: DemineError) -> int:
    if isinstance(e, NotFound):
        return 404
    if isinstance(e, Conflict):
        return 409
    return 400


def create_app(db: str | Path = ":memory:", workers: int = 0) -> FastAPI:
    """The app, with its games stored in the SQLite file ``db`` (in memory by default) and hints
    computed in ``workers`` processes (0: in the server's own process)."""
    service = Service(Store(db), workers)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        service.close()

    app = FastAPI(
        title="demine",
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=lifespan,
    )
    app.state.service = service
    app.add_middleware(_Guard)

    @app.exception_handler(DemineError)
    async def _demine_error(_: Request, e: DemineError) -> JSONResponse:
        return JSONResponse({"error": str(e)}, status_code=_status(e))

    @app.exception_handler(RequestValidationError)
    async def _bad_request(_: Request, e: RequestValidationError) -> JSONResponse:
        parts = []
        for err in e.errors():
            where = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
            parts.append(f"{where}: {err.get('msg', 'invalid')}" if where else str(err.get("msg", "invalid")))
        return JSONResponse({"error": "; ".join(parts) or "invalid request"}, status_code=422)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.post("/api/games")
    async def new_game(body: NewGame) -> Response:
        return _json(service.new_game(**body.model_dump()))

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str) -> Response:
        return _json(service.view(game_id))

    @app.post("/api/games/{game_id}/moves")
    async def move(game_id: str, body: MoveIn, hints: bool = False, probabilities: bool = True) -> Response:
        return _json(await service.move(game_id, body.kind, body.row, body.col, hints, probabilities))

    @app.get("/api/games/{game_id}/hints")
    async def hints(game_id: str, probabilities: bool = True, guess: bool = True) -> Response:
        return _json(await service.hints(game_id, probabilities, guess))

    @app.get("/api/games/{game_id}/hint")
    async def hint(game_id: str) -> Response:
        return _json(await service.hint(game_id))

    @app.get("/api/games/{game_id}/replay")
    def replay(game_id: str, move: int = 0) -> Response:
        return _json(service.replay(game_id, move))

    @app.get("/api/games/{game_id}/export")
    def export(game_id: str) -> Response:
        return _json(service.export(game_id))

    @app.post("/api/analyze")
    async def analyze(body: AnalyzeIn) -> Response:
        return _json(await service.compute(analysis_board, body.text, body.mines, body.trust_flags))

    return app


def default_db() -> Path:
    """Where ``demine serve`` keeps games unless told: ``$XDG_DATA_HOME/demine/games.db``
    (``~/.local/share/demine/games.db``)."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "demine" / "games.db"


def serve(
    host: str = "127.0.0.1", port: int = 8000, db: str | Path | None = None, workers: int | None = None
) -> None:
    """Run the app with uvicorn (blocks until stopped). ``workers``: hint processes (default:
    one per CPU when there are several, else none)."""
    import uvicorn

    path = Path(db) if db is not None else default_db()
    path.parent.mkdir(parents=True, exist_ok=True)
    if workers is None:
        cpus = os.cpu_count() or 1
        workers = cpus if cpus > 1 else 0
    if workers:
        # results from the hint workers arrive on a helper thread: hand it the GIL sooner than the
        # default 5 ms, or each request waits for the event loop's time slice to run out
        sys.setswitchinterval(0.0005)
    print(f"demine: games in {path}, {workers} hint workers; open http://{host}:{port}/", flush=True)
    uvicorn.run(create_app(path, workers), host=host, port=port, log_level="warning")
