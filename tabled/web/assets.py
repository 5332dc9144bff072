"""The files of the pages (``tabled/web_assets/``, shipped in the package: nothing from the
internet), each served with the security headers."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources

from aiohttp import web

from tabled.web.access import SECURITY_HEADERS


def read(name: str) -> bytes:
    return resources.files("tabled").joinpath("web_assets", name).read_bytes()


def page(name: str) -> web.Response:
    """An HTML page of the assets."""
    return web.Response(body=read(name), content_type="text/html", charset="utf-8", headers=SECURITY_HEADERS)


def add_assets(app: web.Application, assets: Mapping[str, str]) -> None:
    """Serve each asset (name -> content type) at ``/name``."""
    async def serve(request: web.Request) -> web.Response:
        name = request.path.lstrip("/")
        return web.Response(body=read(name), content_type=assets[name], charset="utf-8", headers=SECURITY_HEADERS)

    for name in assets:
        app.router.add_get(f"/{name}", serve)


__all__ = ["add_assets", "page", "read"]
