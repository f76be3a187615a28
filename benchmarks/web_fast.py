"""The server's own time per player request, with the fast path (demine.web.fastpaths) and without.

Run: python benchmarks/web_fast.py [--requests 1000] [--repeats 5]

The app is called directly as an ASGI app (no sockets, no uvicorn, hints in this process), the
requests a player's page sends: a move (a flag put on and taken off, without hints: those would be
computed again after each move), the hints (kept), one hint, the game's view. Reports each
request's microseconds (min/median/max over the repeats) with the fast path off and on, taken in
turns.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

from demine.web.app import create_app
from demine.web.limits import ServeLimits

SCRIPT = ServeLimits(
    games=None, moves=None, hints=None, analyses=None, views=None, exports=None, max_moves=1_000_000
)


async def call(app: Any, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
    """One request through the ASGI app: its status and body."""
    route, _, query = path.partition("?")
    headers = [(b"host", b"127.0.0.1"), (b"content-length", str(len(body)).encode())]
    if body:
        headers.append((b"content-type", b"application/json"))
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": route, "raw_path": route.encode(), "root_path": "",
        "query_string": query.encode(), "headers": headers, "client": ("127.0.0.9", 5000),
        "server": ("127.0.0.1", 8000),
    }  # fmt: skip
    sent = False
    status, out = 0, bytearray()

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        else:
            out.extend(message.get("body", b""))

    await app(scope, receive, send)
    return status, bytes(out)


async def measure(app: Any, gid: str, n: int) -> dict[str, float]:
    """Microseconds per request, by request."""
    flag = json.dumps({"kind": "flag", "row": 15, "col": 29}).encode()
    asks = {
        "move": ("POST", f"/api/games/{gid}/moves?hints=0", flag),
        "hints": ("GET", f"/api/games/{gid}/hints?probabilities=1&guess=0", b""),
        "hint": ("GET", f"/api/games/{gid}/hint", b""),
        "view": ("GET", f"/api/games/{gid}", b""),
    }
    out = {}
    for name, (method, path, body) in asks.items():
        t0 = time.perf_counter()
        for _ in range(n):
            status, _answer = await call(app, method, path, body)
            assert status == 200, (name, status, _answer[:200])
        out[name] = (time.perf_counter() - t0) / n * 1e6
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=1000, help="of each kind, per repeat")
    ap.add_argument("--repeats", type=int, default=5)
    ns = ap.parse_args()
    app = create_app(limits=SCRIPT)

    async def run() -> dict[bool, list[dict[str, float]]]:
        _, body = await call(app, "POST", "/api/games", b'{"preset":"expert","rule":"safe","seed":"1"}')
        gid = json.loads(body)["id"]
        await call(app, "POST", f"/api/games/{gid}/moves", b'{"kind":"reveal","row":8,"col":8}')
        await measure(app, gid, 50)  # warm up
        times: dict[bool, list[dict[str, float]]] = {False: [], True: []}
        for _ in range(ns.repeats):
            for fast in (False, True):
                app.state.fast.enabled = fast
                times[fast].append(await measure(app, gid, ns.requests))
        return times

    times = asyncio.run(run())
    print(
        f"{ns.requests} requests of each kind, {ns.repeats} repeats, microseconds a request (min/median/max)"
    )
    for name in times[False][0]:
        row = []
        for fast in (False, True):
            xs = [t[name] for t in times[fast]]
            row.append(f"{min(xs):6.0f} {statistics.median(xs):6.0f} {max(xs):6.0f}")
        ratio = statistics.median(t[name] for t in times[True]) / statistics.median(
            t[name] for t in times[False]
        )
        print(f"  {name:11} FastAPI {row[0]}   fast path {row[1]}   ({ratio:.2f} x)")


if __name__ == "__main__":
    main()
