"""The studio's web application: the page, its JSON API, server-sent events, and the guard.

Every request passes :class:`Guard` first, as Jupyter's server does it:

- the random token of the address (``?token=`` or the ``X-Studio-Token`` header) is
  required on every request, the page and its files included;
- the ``Host`` header must name the server itself (no DNS rebinding), and an ``Origin``
  header must be the page's own (no cross-site requests);
- request bodies are capped (:data:`MAX_BODY`): the page sends edits, never files;
- every answer carries a Content-Security-Policy that lets the page run only its own
  script, and never be framed.

The page sends edits (:mod:`trackkit.studio.edits`) and gets the new view back; what it
did not do itself (the file edited elsewhere, a simulation's progress) comes as events
on ``/api/events``. Bad input gets a 400 answer with a message and the server goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from importlib.resources import files
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from trackkit.studio import engine
from trackkit.studio.session import Conflict, Session, SessionError

__all__ = ["MAX_BODY", "Guard", "create_app", "local_hosts", "new_token"]

#: Largest request body the server reads (an edit is well under 1 kB).
MAX_BODY = 64 * 1024
#: The page's static files (shipped in the package, no build step, no CDN).
_STATIC = {
    "studio.js": "text/javascript; charset=utf-8",
    "studio.css": "text/css; charset=utf-8",
    "favicon.svg": "image/svg+xml",
}
#: How often an event stream looks whether the server is stopping, and how long it may stay
#: silent before it sends a comment (proxies and browsers drop silent connections).
_POLL_S = 0.25
_KEEP_ALIVE_S = 15.0
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'none'"
)
_HEADERS = [
    (b"content-security-policy", _CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def new_token() -> str:
    """A random token for the studio's address (URL-safe, 192 bits)."""
    return secrets.token_urlsafe(24)


def local_hosts(port: int) -> set[str]:
    """The ``Host`` headers of a server on this machine's loopback at ``port``."""
    return {f"{name}:{port}" for name in ("127.0.0.1", "localhost", "[::1]")}


class Guard:
    """ASGI middleware: token, Host and Origin checks, body cap, security headers.

    Parameters
    ----------
    app : ASGI application
        The application behind it.
    token : str
        The token every request must carry.
    hosts : set of str, optional
        The ``Host`` headers accepted (``name:port``); None accepts any (a server bound
        to every address, whose names are not known: the token still guards it).
    """

    def __init__(self, app: ASGIApp, *, token: str, hosts: set[str] | None) -> None:
        self.app = app
        self.token = token
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            return  # no websockets
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if self.hosts is not None and host.lower() not in self.hosts:
            await _refuse(
                send, 403, f"unknown host {host[:80]!r}: open the address the studio printed"
            )
            return
        origin = headers.get("origin")
        if origin is not None and origin.lower() != f"http://{host.lower()}":
            await _refuse(send, 403, "a request from another site is refused")
            return
        if headers.get("sec-fetch-site") == "cross-site":
            await _refuse(send, 403, "a request from another site is refused")
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = headers.get("x-studio-token") or (query.get("token") or [""])[0]
        if not secrets.compare_digest(given.encode(), self.token.encode()):
            await _refuse(
                send,
                403,
                "this page needs the address with its token, as 'trackkit studio' printed it",
            )
            return
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            await _refuse(send, 413, f"request too large (at most {MAX_BODY // 1024} kB)")
            return
        body = b""
        more = scope["method"] in ("POST", "PUT", "PATCH", "DELETE")
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > MAX_BODY:
                await _refuse(send, 413, f"request too large (at most {MAX_BODY // 1024} kB)")
                return
            more = message.get("more_body", False)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if scope["method"] in ("POST", "PUT", "PATCH", "DELETE") and not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        async def secure(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_HEADERS]
            await send(message)

        await self.app(scope, replay, secure)


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _error(exc: Exception) -> JSONResponse:
    if isinstance(exc, Conflict):
        return JSONResponse({"error": str(exc), "conflict": True}, status_code=409)
    return JSONResponse({"error": str(exc)}, status_code=400)


async def _json(request: Request) -> Any:
    body = await request.body()
    if not body:
        return {}
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise SessionError("the request is not JSON") from None


def _static(name: str) -> bytes:
    return files("trackkit.studio").joinpath("static", name).read_bytes()


def create_app(
    session: Session,
    *,
    token: str,
    hosts: set[str] | None,
    watch: bool = True,
    closing: Callable[[], bool] = lambda: False,
) -> Guard:
    """The studio's application for ``session``, guarded (see :class:`Guard`).

    ``watch``: follow the stage file on disk (changes made elsewhere reach the page).
    ``closing``: whether the server is stopping (the pages' event streams then end, so
    that Ctrl-C stops the server at once).
    """

    async def index(request: Request) -> Response:
        page = _static("index.html").decode("utf-8").replace("__TOKEN__", token)
        return HTMLResponse(page)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _STATIC:
            return JSONResponse({"error": "no such file"}, status_code=404)
        return Response(_static(name), media_type=_STATIC[name])

    async def state(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(session.view))

    def posting(work: Callable[[Any], dict[str, Any]]) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                data = await _json(request)
                return JSONResponse(await run_in_threadpool(work, data))
            except SessionError as exc:
                return _error(exc)

        return endpoint

    def save(data: Any) -> dict[str, Any]:
        force = isinstance(data, dict) and data.get("force") is True
        return session.save(force=force)

    async def faces(request: Request) -> Response:
        return JSONResponse({"faces": engine.face_palette(), "bots": list(engine.bots())})

    async def face(request: Request) -> Response:
        text = await run_in_threadpool(engine.face_picture, request.path_params["face"][:40])
        if text is None:
            return JSONResponse({"error": "unknown tile"}, status_code=404)
        return Response(text, media_type="image/svg+xml")

    async def simulation(request: Request) -> Response:
        return JSONResponse(session.simulation())

    async def print_pdf(request: Request) -> Response:
        try:
            pdf, name = await run_in_threadpool(
                session.print_pdf, request.query_params.get("paper", "a4")
            )
        except SessionError as exc:
            return _error(exc)
        return Response(
            pdf,
            media_type="application/pdf",
            headers={"content-disposition": f'attachment; filename="{name}"'},
        )

    async def export(request: Request) -> Response:
        try:
            text, name = await run_in_threadpool(
                session.export, request.query_params.get("format", "rekee")
            )
        except SessionError as exc:
            return _error(exc)
        kind = "application/yaml" if name.endswith(".yaml") else "application/json"
        return Response(
            text,
            media_type=kind,
            headers={"content-disposition": f'attachment; filename="{name}"'},
        )

    async def events(request: Request) -> Response:
        q = session.events.subscribe()

        async def stream() -> AsyncIterator[str]:
            try:
                yield "retry: 2000\n\n"
                yield _event("hello", {"revision": session.revision})
                quiet = 0.0
                while not closing():
                    try:
                        event, data = await asyncio.wait_for(q.get(), timeout=_POLL_S)
                    except TimeoutError:
                        quiet += _POLL_S
                        if quiet >= _KEEP_ALIVE_S:
                            quiet = 0.0
                            yield ": still here\n\n"
                        continue
                    quiet = 0.0
                    yield _event(event, data)
            finally:
                session.events.unsubscribe(q)

        return StreamingResponse(stream(), media_type="text/event-stream")

    routes = [
        Route("/", index),
        Route("/static/{name}", static),
        Route("/api/state", state),
        Route("/api/edit", posting(session.edit), methods=["POST"]),
        Route("/api/undo", posting(lambda _d: session.undo()), methods=["POST"]),
        Route("/api/redo", posting(lambda _d: session.redo()), methods=["POST"]),
        Route("/api/save", posting(save), methods=["POST"]),
        Route("/api/reload", posting(lambda _d: session.reload()), methods=["POST"]),
        Route("/api/keep", posting(lambda _d: session.keep()), methods=["POST"]),
        Route("/api/simulate", posting(session.simulate), methods=["POST"]),
        Route(
            "/api/simulate/stop", posting(lambda _d: session.stop_simulation()), methods=["POST"]
        ),
        Route("/api/simulation", simulation),
        Route("/api/print", print_pdf),
        Route("/api/export", export),
        Route("/api/faces", faces),
        Route("/api/face/{face}.svg", face),
        Route("/api/events", events),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        stop = asyncio.Event()
        task = None
        if watch and session.path is not None:
            task = asyncio.create_task(_watch(session, session.path, stop))
        try:
            yield
        finally:
            stop.set()
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def failed(request: Request, exc: Exception) -> Response:
        # a defect, not bad input: the page says so, and the server goes on
        return JSONResponse({"error": f"internal error: {type(exc).__name__}: {exc}"}, 500)

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={Exception: failed})
    return Guard(app, token=token, hosts=hosts)


def _event(name: str, data: Any) -> str:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


async def _watch(session: Session, path: Path, stop: asyncio.Event) -> None:
    """Tell the session whenever its file may have changed (watchfiles, on the folder, so
    that an editor's save by rename is seen too)."""
    from watchfiles import awatch

    folder = path.resolve().parent
    name = path.name

    def mine(change: object, changed: str) -> bool:
        return Path(changed).name == name

    try:
        async for _changes in awatch(folder, watch_filter=mine, stop_event=stop, debounce=150):
            await run_in_threadpool(session.disk_changed)
    except (OSError, RuntimeError) as exc:  # no file watching here (a limit, a file system)
        sys.stderr.write(
            f"trackkit: warning: {path}: changes made elsewhere are not followed: {exc}\n"
        )
