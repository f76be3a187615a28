"""The players' hottest requests answered without FastAPI's per-request stack (routing, the request
object, dependencies, validation), with the same answers as the app's routes, byte for byte.

Served here, when the request is of the plain shape the page and the API's examples send:

- ``GET /api/games/{id}`` (the game's view);
- ``POST /api/games/{id}/moves`` with a JSON body ``{kind, row, col[, flag]}``
  (``Content-Type: application/json``) and ``?hints=`` / ``?probabilities=``;
- ``GET /api/games/{id}/hints`` with ``?probabilities=`` / ``?guess=``;
- ``GET /api/games/{id}/hint``.

The plain shape: an id of :data:`~demine.web.service.GAME_ID`'s shape, query values ``0``, ``1``,
``false`` or ``true`` each given once, a body that is a JSON object with exactly those keys and
types. Anything else (another method or path, another content type, a body with other keys or
types, another spelling of a boolean, a repeated parameter) goes on to FastAPI, which answers it as
it always did, its validation errors included. So the fast path decides nothing FastAPI would
decide otherwise: it only skips the work for the requests whose answer does not depend on it.

A request served here still goes through everything outside the router: the body limit and the
security headers (``_Guard``), the client's places (``_TakeTurns``). Its rate is counted and its
errors are answered by the app's own exception handlers, found as Starlette finds them (the
nearest class in the exception's MRO), so a 404, 409, 429 or 503 is the same answer either way.

Why: with every abuser of the abuse benchmark at once the server's event loop was ~93% busy, and
the routing and validation under every request were a large share of it (docs/research/web-abuse.md, part g).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from demine.web.finished import encode
from demine.web.limits import RateLimiter
from demine.web.service import Service
from demine.web.workers import CLIENT

#: ``/api/games/{id}`` and its ``moves``, ``hints`` and ``hint`` (the id in the shape of
#: :data:`~demine.web.service.GAME_ID`; any other goes to FastAPI).
_PATH = re.compile(r"/api/games/([A-Za-z0-9_-]{1,64})(?:/(moves|hints|hint))?")
#: The spellings of a boolean taken here (pydantic takes more: those go to FastAPI).
_BOOL = {b"1": True, b"true": True, b"0": False, b"false": False}
#: Each route's query parameters with their defaults (as the app's routes declare them).
_QUERY: dict[tuple[str, str | None], dict[bytes, bool]] = {
    ("GET", None): {},
    ("POST", "moves"): {b"hints": False, b"probabilities": True},
    ("GET", "hints"): {b"probabilities": True, b"guess": True},
    ("GET", "hint"): {},
}
_MOVE_KEYS = frozenset(("kind", "row", "col", "flag"))
_INT = 1 << 31  # (a larger row or column goes to FastAPI: the answer is an error either way)

Handler = Callable[[Request, Any], Response | Awaitable[Response]]


def json_response(obj: Any) -> Response:
    """A JSON response written directly (the API's objects are plain dicts and lists already)."""
    return Response(encode(obj), media_type="application/json")


class FastRoutes:
    """The fast path's switch and counts (``app.state.fast``): tests compare its answers with
    FastAPI's by turning it off, and check that it served what it should."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        """Whether the fast path serves (off: every request goes to FastAPI)."""
        self.served: Counter[str] = Counter()
        """Requests served here, by route (``view``, ``moves``, ``hints``, ``hint``)."""


def _query(raw: bytes, allowed: Mapping[bytes, bool]) -> dict[bytes, bool] | None:
    """The route's query values from ``raw``, or None when it is not of the plain shape."""
    values = dict(allowed)
    if not raw:
        return values
    seen = set()
    for part in raw.split(b"&"):
        name, eq, value = part.partition(b"=")
        if not eq or name not in allowed or name in seen or value not in _BOOL:
            return None
        seen.add(name)
        values[name] = _BOOL[value]
    return values


def _move(body: bytes) -> tuple[str, int, int, bool | None] | None:
    """A move's ``(kind, row, col, flag)`` from a body of the plain shape, else None."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if type(data) is not dict or not {"kind", "row", "col"} <= data.keys() <= _MOVE_KEYS:
        return None
    kind, row, col, flag = data["kind"], data["row"], data["col"], data.get("flag")
    if type(kind) is not str or not kind.isascii():
        return None
    if type(row) is not int or type(col) is not int or not (-_INT < row < _INT and -_INT < col < _INT):
        return None
    if flag is not None and type(flag) is not bool:
        return None
    return kind, row, col, flag


class FastPaths:
    """The ASGI middleware that serves the routes above (see the module's docstring); it sits
    inside ``_Guard`` and ``_TakeTurns``, in front of FastAPI."""

    def __init__(
        self,
        app: ASGIApp,
        switch: FastRoutes,
        service: Service,
        rate: RateLimiter,
        handlers: Mapping[Any, Handler],
    ) -> None:
        self.app, self.switch, self.service, self.rate, self.handlers = app, switch, service, rate, handlers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        m = None
        if scope["type"] == "http" and self.switch.enabled and not scope.get("root_path"):
            m = _PATH.fullmatch(scope["path"])
        allowed = _QUERY.get((scope.get("method", ""), m[2])) if m is not None else None
        if m is None or allowed is None:
            await self.app(scope, receive, send)
            return
        query = _query(scope.get("query_string", b""), allowed)
        if query is None:
            await self.app(scope, receive, send)
            return
        game_id, route = m[1], m[2] or "view"
        move = None
        if route == "moves":
            message = await receive()  # (_Guard read the whole body: it comes in one message)
            body = message.get("body", b"") if message["type"] == "http.request" else b""
            kinds = [v for k, v in scope["headers"] if k == b"content-type"]
            if kinds == [b"application/json"] and not message.get("more_body"):
                move = _move(body)
            if move is None:
                await self.app(scope, _again(message, receive), send)
                return
        self.switch.served[route] += 1
        try:
            response = await self._answer(scope, route, game_id, query, move)
        except Exception as e:
            handler = next((self.handlers[c] for c in type(e).__mro__ if c in self.handlers), None)
            if handler is None:
                raise
            answer = handler(Request(scope, receive), e)  # (the app's handlers are coroutines)
            response = await answer if inspect.isawaitable(answer) else answer
        await response(scope, receive, send)

    async def _answer(
        self,
        scope: Scope,
        route: str,
        game_id: str,
        query: dict[bytes, bool],
        move: tuple[str, int, int, bool | None] | None,
    ) -> Response:
        peer = scope.get("client")
        forwarded = [v.decode("latin-1") for k, v in scope["headers"] if k == b"x-forwarded-for"]
        who = self.rate.client(peer[0] if peer else None, forwarded)
        CLIENT.set(who)
        service = self.service
        if route == "view":
            self.rate.hit("views", who)
            # (a thread, as FastAPI runs the route: the store is asked whether the game moved)
            return json_response(await asyncio.to_thread(service.view, game_id))
        if route == "moves":
            assert move is not None
            self.rate.hit("moves", who)
            kind, row, col, flag = move
            hints, probabilities = query[b"hints"], query[b"probabilities"]
            return json_response(await service.move(game_id, kind, row, col, hints, probabilities, flag))
        self.rate.hit("hints", who)
        if route == "hints":
            return json_response(await service.hints(game_id, query[b"probabilities"], query[b"guess"]))
        return json_response(await service.hint(game_id))


def _again(message: Message, receive: Receive) -> Receive:
    """``receive`` with ``message`` given first again (the body the fast path read, for FastAPI)."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return message
        return await receive()

    return replay
