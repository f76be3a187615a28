"""The HTTP layer (FastAPI): a static page and a JSON API over :class:`~demine.web.service.Service`.

API (cells are ``[row, col]``; errors are ``{"error": message}`` with a 4xx status):

- ``POST /api/games`` ``{preset | width, height, mines; rule; seed; no_guess}`` → the game's view
- ``GET /api/games/{id}`` → its view; ``POST /api/games/{id}/moves`` ``{kind, row, col}`` → the new view
  (``?hints=1`` adds the new position's hints, so a click with hints on is one request; they leave
  the best guess out, marked ``guess_pending``, for ``/hint`` or ``/hints`` to give)
- ``GET /api/games/{id}/hints?probabilities=1`` → safe cells, mines, reasons, probabilities, best guess
  (hints asked for while a game is played mark it: its view, record and export say
  ``hints_used``)
- ``GET /api/games/{id}/hint`` → one move to show (a safe cell, else the best guess)
- ``GET /api/games/{id}/replay?move=K`` and ``GET /api/games/{id}/export`` once the game is over
- ``POST /api/analyze`` ``{text, mines, trust_flags}`` → the analysis board's result
- ``/api/players/...``: a player's own record on the server (:mod:`demine.web.records`)
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import importlib
import importlib.util
import json
import logging
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
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from demine.errors import DemineError
from demine.text import fold
from demine.web.fastpaths import FastPaths, FastRoutes
from demine.web.fastpaths import json_response as _json
from demine.web.finished import analysis_json
from demine.web.limits import KINDS, PACE_BURST, Busy, ClientGate, RateLimiter, ServeLimits, TooManyRequests
from demine.web.puzzles import PuzzleStats, add_puzzle_routes
from demine.web.records import Records, add_routes
from demine.web.service import MAX_PASTE, Conflict, NotFound, Service
from demine.web.store import Store, StoreUnavailable, open_store
from demine.web.workers import ANALYSIS, CLIENT

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
    flag: bool | None = None
    """For ``kind: "flag"``: the state wanted (true: flagged); the move is skipped when the cell is
    in it already, so two tabs on one game cannot undo each other's flags. Left out: a toggle."""


class AnalyzeIn(BaseModel):
    """The body of ``POST /api/analyze``."""

    text: str = Field(max_length=MAX_PASTE)
    mines: int | None = None
    trust_flags: bool = False


class _Guard:
    """Refuses bodies over :data:`MAX_BODY`, sets headers that keep the page to itself on every
    response (errors included), and turns an unexpected exception into a 500 of the API's error
    shape. A plain ASGI middleware (Starlette's ``BaseHTTPMiddleware`` costs about a millisecond a
    request)."""

    HEADERS: ClassVar[list[tuple[bytes, bytes]]] = [
        (b"x-content-type-options", b"nosniff"),
        (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"no-referrer"),
    ]

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope["path"].startswith("/api/")
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", [])) + self.HEADERS
                if api:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        too_large = JSONResponse({"error": f"the request body is over {MAX_BODY} bytes"}, status_code=413)
        for name, value in scope["headers"]:
            if name == b"content-length" and (not value.isdigit() or int(value) > MAX_BODY):
                await too_large(scope, receive, send_with_headers)
                return
        if scope.get("method") in ("POST", "PUT", "PATCH"):
            # the limit holds on the bytes read, whatever the headers said (a chunked body has
            # none): the body is read here, at most MAX_BODY + 1 bytes, then handed on whole
            body = bytearray()
            more = True
            while more:
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client went away
                body += message.get("body", b"")
                more = bool(message.get("more_body"))
                if len(body) > MAX_BODY:
                    await too_large(scope, receive, send_with_headers)
                    return
            given = False

            async def replay() -> Message:
                nonlocal given
                if not given:
                    given = True
                    return {"type": "http.request", "body": bytes(body), "more_body": False}
                return await receive()

            app_receive: Receive = replay
        else:
            app_receive = receive
        try:
            await self.app(scope, app_receive, send_with_headers)
        except Exception:
            logging.getLogger("demine.web").exception("unexpected error on %s", scope.get("path"))
            if started:
                raise  # the answer is under way: nothing clean can be sent now
            error = JSONResponse({"error": "internal server error"}, status_code=500)
            await error(scope, receive, send_with_headers)


class _TakeTurns:
    """Each client's API requests through its own few places (:class:`~demine.web.limits.ClientGate`),
    the client named as the rates name it (:meth:`~demine.web.limits.RateLimiter.client`)."""

    def __init__(self, app: ASGIApp, gate: ClientGate, rate: RateLimiter) -> None:
        self.app, self.gate, self.rate = app, gate, rate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        peer = scope.get("client")
        forwarded = [v.decode("latin-1") for k, v in scope["headers"] if k == b"x-forwarded-for"]
        async with self.gate.turn(self.rate.client(peer[0] if peer else None, forwarded)):
            await self.app(scope, receive, send)


def _status(e: DemineError) -> int:
    if isinstance(e, NotFound):
        return 404
    if isinstance(e, Conflict):
        return 409
    return 400


def create_app(
    db: str | Path | Store = ":memory:",
    workers: int = 0,
    limits: ServeLimits | None = None,
    fast_paths: bool = True,
) -> FastAPI:
    """The app, with its games stored in ``db`` (a SQLite file, in memory by default, or a
    ``postgresql://`` address: :func:`~demine.web.store.open_store`; or a store made already), hints
    computed in ``workers`` processes (0: in the server's own process), and what each client may
    ask (``limits``: :class:`~demine.web.limits.ServeLimits`, the defaults when None). With
    ``fast_paths`` (the default) the players' plainest requests skip FastAPI's stack, with the
    same answers (:mod:`demine.web.fastpaths`)."""
    limits = limits or ServeLimits()
    service = Service(db if isinstance(db, Store) else open_store(db), workers, limits)
    rate = RateLimiter(limits)
    records = Records(service, limits)  # the players' own records (/api/players)
    service.expire_hooks.append(records.expire)
    puzzle_stats = PuzzleStats(service.store, limits)  # the puzzles' ratings from the attempts
    service.expire_hooks.append(puzzle_stats.expire)

    def client(request: Request) -> str:
        """The request's client, also kept for the slow lane's per-client bound."""
        host = request.client.host if request.client else None
        who = rate.client(host, request.headers.getlist("x-forwarded-for"))
        CLIENT.set(who)
        return who

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        service.store.reopen()  # (a no-op the first time; an app may be started again)
        records.open()
        puzzle_stats.open()
        from demine.web.server import quiet_accept_errors

        quiet_accept_errors()
        yield
        service.close()

    app = FastAPI(
        title="demine",
        docs_url=None,  # served below from the server's own copy of Swagger UI
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.records = records
    app.state.puzzle_stats = puzzle_stats
    app.state.gate = gate = ClientGate(limits.per_process(), limits.pace_per_process())
    # the players' moves, hints and views without FastAPI's stack (demine.web.fastpaths), inside
    # the guards and the client's places, answered by the same exception handlers as below
    app.state.fast = fast = FastRoutes(fast_paths)
    app.add_middleware(FastPaths, switch=fast, service=service, rate=rate, handlers=app.exception_handlers)
    app.add_middleware(_TakeTurns, gate=gate, rate=rate)
    app.add_middleware(_Guard)

    @app.exception_handler(DemineError)
    async def _demine_error(_: Request, e: DemineError) -> JSONResponse:
        return JSONResponse({"error": str(e)}, status_code=_status(e))

    @app.exception_handler(TooManyRequests)
    async def _too_many(_: Request, e: TooManyRequests) -> JSONResponse:
        # the pause holds the connection, not a worker: a client that floods waits for each refusal
        await asyncio.sleep(min(limits.penalty, e.retry_after))
        return JSONResponse({"error": str(e)}, status_code=429, headers={"retry-after": str(e.retry_after)})

    @app.exception_handler(StoreUnavailable)
    async def _store_unavailable(_: Request, e: StoreUnavailable) -> JSONResponse:
        # nothing was written and the game is as it was: the client may ask again
        logging.getLogger("demine.web").warning("%s", e)
        return JSONResponse(
            {"error": f"the games could not be saved or read just now; try again ({e})"},
            status_code=503,
            headers={"retry-after": str(e.retry_after)},
        )

    @app.exception_handler(Busy)
    async def _busy(_: Request, e: Busy) -> JSONResponse:
        return JSONResponse({"error": str(e)}, status_code=503, headers={"retry-after": "1"})

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, e: StarletteHTTPException) -> JSONResponse:
        # an unknown path, a wrong method: the same error shape as every other answer
        return JSONResponse({"error": str(e.detail)}, status_code=e.status_code, headers=e.headers)

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
    _mount_docs(app)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]

    @app.post("/api/games")
    async def new_game(body: NewGame, request: Request) -> Response:
        who = client(request)
        rate.hit("games", who)
        # off the event loop: it writes the game and, once a minute, deletes the expired ones
        made = await asyncio.to_thread(service.new_game, **body.model_dump(), client=who)
        return _json(made)

    @app.post("/api/games/{game_id}/restart")
    async def restart(game_id: str, request: Request) -> Response:
        """A new game on the same board (size, rule, no-guess mode and seed)."""
        who = client(request)
        rate.hit("games", who)
        return _json(await asyncio.to_thread(service.restart, game_id, client=who))

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str, request: Request) -> Response:
        rate.hit("views", client(request))
        return _json(service.view(game_id))

    @app.post("/api/games/{game_id}/moves")
    async def move(
        game_id: str, body: MoveIn, request: Request, hints: bool = False, probabilities: bool = True
    ) -> Response:
        rate.hit("moves", client(request))
        return _json(
            await service.move(game_id, body.kind, body.row, body.col, hints, probabilities, body.flag)
        )

    @app.get("/api/games/{game_id}/hints")
    async def hints(
        game_id: str, request: Request, probabilities: bool = True, guess: bool = True
    ) -> Response:
        rate.hit("hints", client(request))
        return _json(await service.hints(game_id, probabilities, guess))

    @app.get("/api/games/{game_id}/hint")
    async def hint(game_id: str, request: Request) -> Response:
        rate.hit("hints", client(request))
        return _json(await service.hint(game_id))

    # a finished game's answers never change: each is encoded once and kept, and sent at once
    # from the event loop when kept (else made in a thread: the store is read, the frame built)
    @app.get("/api/games/{game_id}/replay")
    async def replay(game_id: str, request: Request, move: int = 0) -> Response:
        rate.hit("views", client(request))
        data = service.kept(game_id, f"replay {move}")
        if data is None:
            data = await asyncio.to_thread(service.replay_bytes, game_id, move)
        return Response(data, media_type="application/json")

    @app.get("/api/games/{game_id}/review")
    async def review(game_id: str, request: Request) -> Response:
        rate.hit("analyses", client(request))
        status, data = await service.review(game_id)
        return Response(data, status_code=status, media_type="application/json")

    @app.get("/api/games/{game_id}/export")
    async def export(game_id: str, request: Request) -> Response:
        rate.hit("exports", client(request))
        data = service.kept(game_id, "export")
        if data is None:
            data = await asyncio.to_thread(service.export, game_id)
        return Response(data, media_type="application/json")

    add_routes(app, records, rate, client)
    add_puzzle_routes(app, rate, client, puzzle_stats, records.player)

    @app.post("/api/analyze")
    async def analyze(body: AnalyzeIn, request: Request) -> Response:
        rate.hit("analyses", client(request))
        # encoded in the worker: the server passes the bytes on (no unpickling of a big dict, no
        # JSON on the event loop)
        args = (body.text, body.mines, body.trust_flags, limits.guess_limit)
        data = await service.compute(analysis_json, *args, slow=True, kind=ANALYSIS)
        return Response(data, media_type="application/json")

    return app


#: The one error shape, as the schema documents it.
ERROR_SCHEMA = {
    "title": "Error",
    "type": "object",
    "properties": {"error": {"type": "string", "description": "what is wrong, in words"}},
    "required": ["error"],
}


def _openapi(app: FastAPI) -> dict[str, Any]:
    """The schema, saying what errors look like: ``{"error": message}`` for every 4xx and 5xx
    (FastAPI's default documents its own 422 shape, which this app does not send)."""
    if app.openapi_schema is None:
        from fastapi.openapi.utils import get_openapi

        schema = get_openapi(title=app.title, version=app.version, routes=app.routes)
        comps = schema.setdefault("components", {}).setdefault("schemas", {})
        comps.pop("HTTPValidationError", None)
        comps.pop("ValidationError", None)
        comps["Error"] = ERROR_SCHEMA
        error = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        for ops in schema.get("paths", {}).values():
            for op in ops.values():
                responses = op.setdefault("responses", {})
                responses.pop("422", None)
                responses["4XX"] = {"description": "a bad request, an unknown game, a conflict", **error}
                responses["5XX"] = {"description": "an error of the server", **error}
        app.openapi_schema = schema
    return app.openapi_schema


def _mount_docs(app: FastAPI) -> None:
    """``/api/docs``: Swagger UI from the ``swagger-ui-py`` package's copy of its files (part of the
    ``web`` extra; only the files are used), so the page needs nothing from another site and obeys
    the app's content security policy."""
    spec = importlib.util.find_spec("swagger_ui")
    assets = Path(spec.origin).parent / "static" if spec is not None and spec.origin else None
    if assets is None or not (assets / "swagger-ui-bundle.js").exists():

        @app.get("/api/docs", include_in_schema=False)
        def no_docs() -> JSONResponse:
            return JSONResponse(
                {"error": "the API docs need swagger-ui-py: pip install 'demine[web]'"}, status_code=404
            )

        return
    app.mount("/api/docs/assets", StaticFiles(directory=assets), name="docs")

    @app.get("/api/docs", include_in_schema=False)
    def docs() -> FileResponse:
        return FileResponse(STATIC / "api-docs.html")


def default_db() -> Path:
    """Where ``demine serve`` keeps games unless told: ``$XDG_DATA_HOME/demine/games.db``
    (``~/.local/share/demine/games.db``)."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "demine" / "games.db"


#: The environment variable that hands ``serve``'s settings to its server processes.
SERVE_ENV = "DEMINE_SERVE"


def app_from_environment() -> FastAPI:
    """The app of one of several server processes (``demine serve --processes N``), made from
    the settings ``serve`` put in :data:`SERVE_ENV`."""
    settings = json.loads(os.environ[SERVE_ENV])
    from demine.web.server import die_with_parent

    die_with_parent(settings["parent"])  # (the supervisor's SIGKILL would leave this one serving)
    return settled(create_app(settings["db"], settings["workers"], ServeLimits.from_dict(settings["limits"])))


#: The server process's GIL switch interval (seconds) when it has worker processes.
SWITCH_INTERVAL = 0.0005

#: Modules a server process imports only once it serves (uvicorn's loop and lifespan, anyio's
#: backend on Starlette's first use, the threads of ``asyncio.to_thread``): :func:`settled`
#: imports them before its freeze, so they are frozen with the rest (in the abuse benchmark the
#: full collections walked their 23 modules' functions and dicts, docs/research/web-abuse.md, part q).
SERVING_MODULES = (
    "anyio._backends._asyncio",
    "concurrent.futures.thread",
    "uvicorn.lifespan.on",
    "uvicorn.loops.asyncio",
)


def collector_thresholds(current: tuple[int, int, int], full_every: int) -> tuple[int, int, int]:
    """The collector's thresholds for a server process: ``current``'s (``gc.get_threshold()``)
    with a full collection at most every ``full_every`` middle ones
    (``ServeLimits.full_collection_every``); the young and middle generations' as they were.

    >>> collector_thresholds((700, 10, 10), 100)
    (700, 10, 100)
    """
    return current[0], current[1], full_every


def settled(app: FastAPI) -> FastAPI:
    """``app``, with everything this server process made so far (its modules, the app, its
    routes) moved out of the cyclic garbage collector's sight (``gc.freeze``): they live as long
    as the process, and each full collection scanned them all again, stalling every request for
    it: under the abuse benchmark a full collection took 42-100 ms, 18-36 ms after the freeze
    (docs/research/web-abuse.md, part h). What the requests make later is collected as before. The modules
    of :data:`SERVING_MODULES` are imported first, to be frozen too, and the full collections
    come at most every ``ServeLimits.full_collection_every`` middle ones
    (:func:`collector_thresholds`).

    With worker processes, the process's GIL switch interval becomes :data:`SWITCH_INTERVAL`:
    the moves' writes run in helper threads (and the workers' results came on one until
    2026-11-26), and a thread waiting for the GIL waits for the holder's interval to run out (5 ms
    by default), each time the event loop gives the GIL up for a system call. Set here, in every
    server process: ``serve --processes N`` starts its processes afresh (spawned), and they ran
    at the default until 2026-11-26 (docs/research/web-abuse.md, part i)."""
    service = app.state.service
    if service.workers:
        sys.setswitchinterval(SWITCH_INTERVAL)
    for name in SERVING_MODULES:
        importlib.import_module(name)
    gc.set_threshold(*collector_thresholds(gc.get_threshold(), service.limits.full_collection_every))
    gc.collect()
    gc.freeze()
    return app


def _size(n: int | None) -> str:
    """Bytes as ``serve`` prints them: 64 MiB, 2 GiB, 1.5 KiB."""
    if n is None:
        return "no size limit"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.4g} {unit}"
    return f"{n} bytes"


def _check_folder(path: Path, make: bool) -> None:
    """The games file's folder: made with ``make`` (the default place), else it must be there
    (as for any file a command writes); or say clearly why it cannot be (a file where a folder of
    the path should be, a folder missing)."""
    for folder in (path.parent, *path.parent.parents):
        if folder.exists() and not folder.is_dir():
            raise DemineError(f"cannot keep the games in {path}: {folder} is a file, not a folder")
    if make:
        path.parent.mkdir(parents=True, exist_ok=True)
    elif not path.parent.is_dir():
        raise DemineError(f"cannot keep the games in {path}: no folder {path.parent} (make it first)")


def say(text: str) -> None:
    """A line of ``serve``'s at start, folded to the terminal (whole in a log), at once."""
    print(fold(text, "  "), flush=True)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | Path | None = None,
    workers: int | None = None,
    limits: ServeLimits | None = None,
    processes: int = 1,
    http: str = "auto",
) -> None:
    """Run the app with uvicorn (blocks until stopped). ``workers``: hint processes (default:
    one per CPU when there are several, else none); ``limits``: what each client may ask;
    ``processes``: server processes sharing the port and the games file (each with its own
    ``workers``; a move checks the file first, so processes never undo each other's moves)."""
    limits = limits or ServeLimits()
    from demine.web.server import max_connections, run

    where = str(db) if db is not None else str(default_db())
    if not where.startswith(("postgresql://", "postgres://")):
        _check_folder(Path(where), make=db is None)
    if workers is None:
        cpus = os.cpu_count() or 1
        workers = cpus if cpus > 1 else 0
    store = open_store(where)  # a wrong address or a damaged file fails here, before any process starts
    try:
        store.check()
        shown = store.describe()
    finally:
        store.close()
    say(f"demine: games in {shown}, {workers} hint workers; open http://{host}:{port}/")
    say(
        f"demine: unfinished games expire after {limits.idle_expiry / 86400:g} days without a move, "
        f"finished ones after {limits.finished_expiry / 86400:g} days; the games are kept under "
        f"{_size(limits.max_db_bytes)}; memory for games {_size(limits.cache_bytes)} a process; "
        f"a full garbage collection at most every {limits.full_collection_every} middle ones"
    )
    rates = ", ".join(f"{k} {getattr(limits, k) or 'unlimited'}" for k in KINDS)
    proxy = (
        f"by the X-Forwarded-For entry {limits.proxy_hops} from the right"
        if limits.trust_proxy
        else "by connection address; X-Forwarded-For ignored"
    )
    say(
        f"demine: per client ({proxy}): {rates}; at most {limits.max_moves} moves a game; "
        f"{limits.heavy_running} heavy requests at once, {limits.heavy_queue} waiting"
    )
    per = ""
    if not limits.trust_proxy:
        per = f", {limits.connections_per_client} per address (past it: 503"
        per += f" after {limits.refusal_delay:g} s)" if limits.refusal_delay else ")"
    say(
        f"demine: connections: at most {max_connections(limits)} open{per}; "
        f"a request has {limits.request_timeout:g} s to arrive; "
        f"{limits.running_per_client} requests of a client handled at once, its others wait"
        + (f"; {limits.pace:g} a second at most, after {PACE_BURST} at once" if limits.pace else "")
    )
    if processes > 1:
        say(f"demine: {processes} server processes (each allows a client 1/{processes} of its rates)")
        shared = dataclasses.replace(limits, shared_by=processes)
        os.environ[SERVE_ENV] = json.dumps(
            {"db": where, "workers": workers, "limits": dataclasses.asdict(shared), "parent": os.getpid()}
        )
        run("demine.web.app:app_from_environment", limits, host, port, processes, http)
        return
    run(settled(create_app(where, workers, limits)), limits, host, port, http=http)
