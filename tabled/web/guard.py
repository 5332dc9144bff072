"""What every request to a page server is checked for before it reaches a handler, in this order:

1. a ``Host`` naming this server, and for a change an ``Origin`` of this server's pages (403;
   tabled/web/listen.py says why);
2. who is asking (tabled/web/access.py): this PC, or a viewer's token (401 without one, 403 with
   one that is not a viewer's);
3. a token in the URL is exchanged for the page's cookie and a redirect to the clean address.

The viewer let in is ``request[VIEWER]`` for the handler.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from aiohttp import web

from tabled.web.access import SECURITY_HEADERS, exchanged, may_view, presented_token
from tabled.web.listen import HostNames, origin_refused
from tabled.web.settings import Viewer

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
READS = ("GET", "HEAD")
VIEWER = web.RequestKey("viewer", str)  # the viewer's name; "local" for this PC


class Guard:
    """The checks of one page server: ``page`` names it in refusals and the log (``screen``, ``floor``)."""

    def __init__(self, page: str, names: HostNames, viewers: tuple[Viewer, ...], cookie: str,
                 log: Any = None) -> None:
        self.page, self.names, self.viewers, self.cookie = page, names, viewers, cookie
        self.log = log or structlog.get_logger(f"tabled.{page}")

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        refused = self.names.refused(request.headers.get("Host"))
        if not refused and request.method not in READS:
            refused = origin_refused(request.headers.get("Origin"), request.headers.get("Host"))
        if refused:
            self.log.warning(f"{self.page}.refused", peer=request.remote, path=request.path[:100], status=403,
                             reason=refused)
            return web.Response(status=403, text=refused + "\n", headers=SECURITY_HEADERS)
        decision = may_view(request.remote, presented_token(request, self.cookie), self.viewers, self.page)
        if decision.status != 200:
            self.log.warning(f"{self.page}.refused", peer=request.remote, path=request.path[:100],
                             status=decision.status, reason=decision.reason)
            challenge = {"WWW-Authenticate": f'Bearer realm="tabled {self.page}"'} if decision.status == 401 else {}
            return web.Response(status=decision.status, text=decision.reason + "\n",
                                headers={**SECURITY_HEADERS, **challenge})
        request[VIEWER] = str(decision.viewer)
        if request.method in READS:
            redirect = exchanged(request, decision, self.cookie)
            if redirect is not None:
                return redirect
        return await handler(request)


__all__ = ["Guard", "VIEWER"]
