"""Starting the studio: bind the address, print it with its token, open the browser, serve.

The server binds 127.0.0.1 unless told otherwise; a port taken by another program moves it
to the next free one (as Jupyter does). uvicorn serves the application of
:mod:`trackkit.studio.app`; Ctrl-C stops it.
"""

from __future__ import annotations

import contextlib
import errno
import socket
import threading
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from trackkit.studio import engine
from trackkit.studio.app import create_app, local_hosts, new_token
from trackkit.studio.session import Session

__all__ = ["DEFAULT_PORT", "PORT_TRIES", "Studio", "bind", "open_studio", "serve"]

#: The port tried first.
DEFAULT_PORT = 8420
#: Ports tried from the one asked for, when it is taken.
PORT_TRIES = 20
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_ANY = ("0.0.0.0", "::", "")


@dataclass(frozen=True, slots=True)
class Studio:
    """A studio ready to serve: its session, socket and address."""

    session: Session
    sock: socket.socket
    host: str
    port: int
    token: str

    @property
    def url(self) -> str:
        """The address to open, with its token."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        if self.host in _ANY:
            host = "127.0.0.1"
        return f"http://{host}:{self.port}/?token={self.token}"


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host`` at ``port``, or the next free port after it (port 0:
    any free port).

    Raises
    ------
    OSError
        If no port of the range can be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    tries = 1 if port == 0 else PORT_TRIES
    last: OSError | None = None
    for p in range(port, port + tries):
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, p))
        except OSError as exc:
            sock.close()
            last = exc
            if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
                raise
            continue
        sock.listen(64)
        sock.setblocking(False)
        return sock
    assert last is not None
    raise last


def open_studio(
    path: Path | None,
    *,
    series: engine.Series = "dirt",
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
) -> Studio:
    """Read the stage (or start a new one) and bind the server's socket.

    Raises
    ------
    trackkit.errors.InputError
        If ``path`` cannot be read as a stage, or names a file that cannot be written.
    OSError
        If the address cannot be bound.
    """
    session = Session(path, series=series)
    sock = bind(host, port)
    return Studio(session, sock, host, sock.getsockname()[1], new_token())


def serve(
    studio: Studio, *, open_browser: bool = True, ready: Callable[[], None] | None = None
) -> None:
    """Serve ``studio`` until Ctrl-C (or the server is told to stop)."""
    import uvicorn

    hosts = None if studio.host in _ANY else local_hosts(studio.port)
    if hosts is not None and studio.host not in _LOOPBACK:
        hosts.add(f"{studio.host}:{studio.port}".lower())
    server: uvicorn.Server | None = None
    app = create_app(
        studio.session,
        token=studio.token,
        hosts=hosts,
        closing=lambda: server is not None and server.should_exit,
    )
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=1,
        access_log=False,
    )
    server = uvicorn.Server(config)
    if open_browser:
        threading.Timer(0.5, _open, args=(studio.url,)).start()
    if ready is not None:
        ready()
    server.run(sockets=[studio.sock])


def _open(url: str) -> None:
    with contextlib.suppress(webbrowser.Error):  # no browser here: the address is printed
        webbrowser.open_new_tab(url)
