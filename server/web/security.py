"""What the web port believes of a request: its address, whether it came over TLS, its origin.

Forwarded headers (``X-Forwarded-For``, ``X-Forwarded-Proto``) are believed only
from the addresses in ``[web] trusted_proxies``; a client's own are ignored. A
WebSocket upgrade from a page of another origin is refused (403): only the
server's own address (the request's ``Host``) and ``[web] origins`` may open one.
A request without ``Origin`` is not a browser's page and is let through (browsers
always send it on a WebSocket upgrade).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Iterable
from typing import TypedDict
from urllib.parse import urlsplit

from aiohttp import web

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")
"""Every page's Content-Security-Policy: nothing inline, nothing from elsewhere."""

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(entries: Iterable[str]) -> tuple[Network, ...]:
    """``[web] trusted_proxies`` as networks (an address alone is a network of one)."""
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries if entry.strip())


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None


def trusted(peer: str, proxies: tuple[Network, ...]) -> bool:
    address = _address(peer)
    return address is not None and any(address in net for net in proxies)


def peer_of(request: web.Request) -> str:
    """The address the TCP connection came from."""
    peername = request.transport.get_extra_info("peername") if request.transport is not None else None
    return str(peername[0]) if peername else (request.remote or "?")


def client_address(request: web.Request, proxies: tuple[Network, ...]) -> str:
    """The client's address: the TCP peer, or behind trusted proxies the last address of
    ``X-Forwarded-For`` that is not one of them."""
    peer = peer_of(request)
    if not trusted(peer, proxies):
        return peer
    hops = [h.strip() for h in ",".join(request.headers.getall("X-Forwarded-For", [])).split(",") if h.strip()]
    for hop in reversed(hops):
        if _address(hop) is None:
            return peer  # a malformed chain: the proxy's own address
        if not trusted(hop, proxies):
            return str(_address(hop))
    return peer


def is_secure(request: web.Request, proxies: tuple[Network, ...]) -> bool:
    """TLS to this server, or to a trusted proxy that says so (``X-Forwarded-Proto: https``)."""
    if request.secure:
        return True
    if trusted(peer_of(request), proxies):
        proto = request.headers.get("X-Forwarded-Proto", "").split(",")[0].strip().lower()
        return proto == "https"
    return False


def is_loopback(address: str) -> bool:
    parsed = _address(address)
    return parsed is not None and parsed.is_loopback


def passwords_allowed(request: web.Request, proxies: tuple[Network, ...]) -> bool:
    """Passwords travel only over TLS, or on this machine (loopback, not through a proxy)."""
    if is_secure(request, proxies):
        return True
    return is_loopback(peer_of(request)) and not request.headers.get("X-Forwarded-For")


def origin_allowed(request: web.Request, extra: Iterable[str], proxies: tuple[Network, ...]) -> bool:
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    own = {f"http://{request.host}".lower(), f"https://{request.host}".lower()}
    allowed = own | {o.rstrip("/").lower() for o in extra}
    return f"{parts.scheme}://{parts.netloc}".lower() in allowed


class CookieOptions(TypedDict):
    httponly: bool
    samesite: str
    secure: bool
    path: str


def cookie_options(request: web.Request, proxies: tuple[Network, ...]) -> CookieOptions:
    """Every cookie: HttpOnly, SameSite=Strict, Secure when the page came over TLS."""
    return {"httponly": True, "samesite": "Strict", "secure": is_secure(request, proxies), "path": "/"}


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The security headers on every answer (errors too)."""
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        response = exc
        _set(response)
        raise
    _set(response)
    return response


def _set(response: web.StreamResponse) -> None:
    if response.prepared:
        return
    h = response.headers
    h.setdefault("Content-Security-Policy", CSP)
    h.setdefault("X-Content-Type-Options", "nosniff")
    h.setdefault("Referrer-Policy", "no-referrer")
    h.setdefault("X-Frame-Options", "DENY")
    h.setdefault("Cross-Origin-Opener-Policy", "same-origin")
