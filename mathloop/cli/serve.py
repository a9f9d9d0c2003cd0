"""`mathloop serve`: a read-only web view of a store (targets, commit chains, graphs, plots, candidates)."""

from __future__ import annotations

from typing import Optional

import typer

from mathloop.cli.common import DB_HELP, console, fail
from mathloop.store.engine import StoreError, database_url


def serve(
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind. Default 127.0.0.1 (this machine only)."),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="TCP port (0 = any free port)."),
) -> None:
    """Serve a read-only web view of the store: nothing can be written through it (GET/HEAD only)."""
    try:
        import matplotlib.figure  # noqa: F401  (imported now, not during the first plot request)
        import uvicorn

        from mathloop.store.repository import Repository
        from mathloop.web.app import create_app
        from mathloop.store.engine import make_engine
    except ImportError as e:
        fail(f"the web view needs the `web` extra (pip install 'mathloop[web]'): {e}")
    try:
        engine = make_engine(db, create=False, readonly=True)
    except StoreError as e:
        fail(str(e))
    label = database_url(db)
    label = label.split("@")[-1] if "@" in label else label  # never print credentials
    app = create_app(Repository(engine), label)
    scope = "this machine only" if host in ("127.0.0.1", "localhost", "::1") else "REACHABLE FROM OTHER MACHINES"
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)  # connections queue from now on, before the server loop starts accepting
    except OSError as e:
        sock.close()
        fail(f"--host {host} --port {port}: cannot listen: {e.strerror or e}", 1)
    actual = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    console.print(f"serving a read-only view of {label} at http://{shown}:{actual}/ "
                  f"(bound to {host}: {scope}; POST/PUT/PATCH/DELETE answer 405); Ctrl-C stops", highlight=False, soft_wrap=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
