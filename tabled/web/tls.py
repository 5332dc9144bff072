"""The TLS a page is served with off this PC: the configured certificate and key, TLS 1.2 at
least. A file that is missing, unreadable or not a certificate and its key is a one-line error at
start, naming the file."""

from __future__ import annotations

import ssl

from tabled.web.settings import Tls, Viewer, exposure_refused


class TlsError(ValueError):
    """A certificate or key a page cannot be served with."""


def server_context(tls: Tls) -> ssl.SSLContext:
    """The server's context for ``tls``; a :class:`TlsError` names what is wrong."""
    for what, path in (("certificate", tls.certificate), ("key", tls.key)):
        try:
            with open(path, "rb") as f:
                f.read(1)
        except OSError as exc:
            raise TlsError(f"{path}: the TLS {what} cannot be read: {exc.strerror or exc}") from None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(tls.certificate, tls.key)
    except ssl.SSLError as exc:
        raise TlsError(f"{tls.certificate}, {tls.key}: not a PEM certificate and its private key "
                       f"({exc.reason or exc})") from None
    return context


def serving_context(what: str, section: str, host: str, viewers: tuple[Viewer, ...],
                    tls: Tls | None) -> ssl.SSLContext | None:
    """The TLS context a page server listening on ``host`` is served with (None: plain HTTP, on the
    loopback address only). A ValueError says why it cannot be served: reachable from elsewhere
    without viewers or without TLS, or a certificate that cannot be used."""
    refused = exposure_refused(host, viewers, tls, section)
    if refused:
        raise ValueError(f"cannot serve the {what}: {refused}")
    try:
        return server_context(tls) if tls is not None else None
    except TlsError as exc:
        raise TlsError(f"cannot serve the {what}: {exc}") from None


__all__ = ["TlsError", "server_context", "serving_context"]
