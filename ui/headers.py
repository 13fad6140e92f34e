"""Anti-framing headers on every HTTP response of the dashboard: `Content-Security-Policy: frame-ancestors 'none'`
and `X-Frame-Options: DENY`, so no other site can show the dashboard in a frame (clickjacking).

Streamlit 1.67 has no setting for response headers (its config has none; checked in its source), and its server is
Starlette under uvicorn, built before any script runs. So this module wraps `Starlette.__call__` once, when it is
first imported (app.py imports it): every HTTP response of the server from then on carries the headers, the
running app's included, since the method is looked up on the class at each request. The page load that starts a
server's first session is served before app.py has run once, so that one response goes without (docs/limits.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.types import Message, Receive, Scope, Send

HEADERS = ((b"content-security-policy", b"frame-ancestors 'none'"), (b"x-frame-options", b"DENY"))
_MARK = "_concord_anti_framing"


def with_headers(message: Message) -> Message:
    """A response start message with the anti-framing headers added (those already there are kept)."""
    present = {name.lower() for name, _ in message.get("headers", [])}
    extra = [(name, value) for name, value in HEADERS if name == b"content-security-policy" or name not in present]
    return {**message, "headers": [*message.get("headers", []), *extra]}


def install() -> None:
    """Wrap Starlette's entry point so that every HTTP response gets HEADERS (once; later calls do nothing)."""
    original: Callable[[Any, Scope, Receive, Send], Awaitable[None]] = Starlette.__call__
    if getattr(original, _MARK, False):
        return

    async def call(self: Starlette, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await original(self, scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            await send(with_headers(message) if message["type"] == "http.response.start" else message)

        await original(self, scope, receive, send_with_headers)

    setattr(call, _MARK, True)
    setattr(Starlette, "__call__", call)  # noqa: B010 - assigning the method itself is what mypy refuses


install()
