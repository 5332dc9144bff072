"""Who may look at a page, and what every answer carries.

- This PC always; another machine only with a configured viewer's token, compared in constant
  time (:func:`may_view`). A refused request gets 401 or 403 and a one-line reason, nothing of the
  table.
- The token travels in ``Authorization: Bearer`` (tools), or in the page's cookie. A token in a
  URL is taken once: it is exchanged for an HttpOnly, Secure cookie and the browser is sent to the
  same address without it (:func:`exchanged`), so it never stays in a URL, a history or a log
  (AGCO 12.1.3).
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from aiohttp import web

from tabled.web.settings import Viewer

TOKEN = "token"  # the query parameter a link to a page may carry once
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                               "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


@dataclass(frozen=True)
class Decision:
    status: int              # 200, or 401 (no token) / 403 (a token that is not a viewer's)
    viewer: str | None       # the viewer's name; "local" for this PC
    reason: str = ""


def is_loopback(address: str | None) -> bool:
    """A peer on this PC (127.0.0.0/8, ::1, an IPv4 loopback mapped into IPv6)."""
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return (mapped or ip).is_loopback


def may_view(peer: str | None, token: str | None, viewers: Iterable[Viewer], page: str = "screen") -> Decision:
    """Who may see the ``page``: a request from this PC; from elsewhere only with a viewer's token
    (compared in constant time). Nothing else is let through."""
    if is_loopback(peer):
        return Decision(200, "local")
    if not token:
        return Decision(401, None, f"a token is needed to view this {page} from another machine")
    for v in viewers:
        if hmac.compare_digest(v.token.encode(), token.encode()):
            return Decision(200, v.name)
    return Decision(403, None, "this token is not a viewer's")


def presented_token(request: web.Request, cookie: str) -> str | None:
    """The viewer's token: ``Authorization: Bearer``, else one in the URL (to be exchanged), else
    the page's cookie."""
    auth = request.headers.get("Authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip() or None
    return request.query.get(TOKEN) or request.cookies.get(cookie) or None


def exchanged(request: web.Request, decision: Decision, cookie: str) -> web.Response | None:
    """A request let in with a token in its URL: a redirect to the same address without it, with
    the token as an HttpOnly, Secure cookie for a viewer (this PC needs none). None otherwise."""
    if TOKEN not in request.query:
        return None
    clean = request.rel_url.with_query({k: v for k, v in request.query.items() if k != TOKEN})
    response = web.Response(status=303, headers={**SECURITY_HEADERS, "Location": str(clean)})
    if decision.viewer != "local":
        response.set_cookie(cookie, request.query[TOKEN], httponly=True, secure=True, samesite="Strict", path="/")
    return response


__all__ = ["Decision", "SECURITY_HEADERS", "TOKEN", "exchanged", "is_loopback", "may_view", "presented_token"]
