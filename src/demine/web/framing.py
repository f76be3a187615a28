"""Requests whose framing a proxy in front could read otherwise than the server (request
smuggling): h11 reads them, httptools (llhttp) refuses them, and so does demine's h11
(:class:`StrictH11Connection`, which :class:`~demine.web.server.GuardedH11` serves on)."""

from __future__ import annotations

import re
from typing import Any

import h11

#: The most bytes h11 holds of an event not yet whole (a head): uvicorn's default, h11's own.
MAX_H11_EVENT = 16 * 1024
#: Where a request's head ends, as h11 finds it (a blank line, its CR optional).
_HEAD_END = re.compile(rb"\n\r?\n")


def ambiguous_head(data: bytes) -> str | None:
    """Why the request head at the start of ``data`` is refused: a line ended by a bare LF, or a
    header folded onto the next line (obs-fold); None when it is neither, or not all in yet.
    O(head).

    >>> ambiguous_head(b"GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\nGET / HTTP/1.1\\n")
    >>> ambiguous_head(b"GET / HTTP/1.1\\nHost: x\\n\\n")
    'a line of the head ends in a bare LF, not CRLF'
    >>> ambiguous_head(b"GET / HTTP/1.1\\r\\nHost:\\r\\n x\\r\\n\\r\\n")
    'a header is folded onto the next line (obs-fold)'
    """
    end = _HEAD_END.search(data)
    if end is None:
        return None
    head = data[: end.end()]
    if head.count(b"\n") != head.count(b"\r\n"):  # (counts: a regex took 11 us a head)
        return "a line of the head ends in a bare LF, not CRLF"
    if b"\n " in head or b"\n\t" in head:
        return "a header is folded onto the next line (obs-fold)"
    return None


class StrictH11Connection(h11.Connection):
    """h11's server side, refusing three framings that h11 reads one way and a proxy in front may
    read another (request smuggling), as httptools (llhttp) refuses them: a request with both
    ``Content-Length`` and ``Transfer-Encoding``, a header folded onto the next line (obs-fold),
    and a head whose lines end in a bare LF. Each raises h11's ``RemoteProtocolError``, which
    uvicorn answers 400 (:meth:`demine.web.server._Guards.send_400_response`) before the app sees anything.

    A head is checked once, when its end has come in (or a new request begins with one buffered
    already, pipelined): never byte by byte, so a slow head costs nothing more. (Issue 57:
    ``--http h11`` served all three, httptools answered 400, and ``--help`` said the guards were
    the same.)"""

    _tail = b""
    """The last two bytes received (a head's end may straddle two reads)."""
    _check = False
    """Whether the next event read at the start of a request checks its head first."""

    def receive_data(self, data: bytes) -> None:
        super().receive_data(data)
        if not self._check and _HEAD_END.search(self._tail + data):
            self._check = True
        self._tail = (self._tail + data)[-2:]

    def start_next_cycle(self) -> None:
        super().start_next_cycle()
        self._check = True  # (a pipelined request may be in the buffer already)

    def next_event(self) -> Any:
        if self._check and self.their_state is h11.IDLE:
            self._check = False
            why = ambiguous_head(self.trailing_data[0])
            if why is not None:
                raise h11.RemoteProtocolError(why, error_status_hint=400)
        event = super().next_event()
        if isinstance(event, h11.Request):
            names = {name.lower() for name, _ in event.headers.raw_items()}  # (not the slower Sequence)
            if b"content-length" in names and b"transfer-encoding" in names:
                raise h11.RemoteProtocolError(
                    "both Content-Length and Transfer-Encoding", error_status_hint=400
                )
        return event
