"""A hostile chat-completions server on 127.0.0.1: it writes raw HTTP bytes, so it can do what no honest one does.

Each request is answered by the next behaviour of a script (or the default): a callable that gets
the request (`Seen`: headers, JSON body, the API key it carried) and a `Wire` to write raw bytes
to, slowly if it likes. It can echo the key into any field, drip one byte per second, send a gzip
bomb, garbage chunked framing, a body over any cap, or headers and then nothing, never closing.
The server stops every behaviour when it shuts down (the stop event), so no thread outlives a test.
"""

from __future__ import annotations

import gzip
import json
import socket
import socketserver
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Seen:
    """What the client sent: lower-cased headers, the JSON body, and the bearer key."""

    headers: dict[str, str]
    body: Any

    @property
    def key(self) -> str:
        return self.headers.get("authorization", "").removeprefix("Bearer ")


class Wire:
    """The raw client connection; writes stop quietly once the client hung up or the server stops."""

    def __init__(self, sock: socket.socket, stop: threading.Event) -> None:
        self.sock, self.stop = sock, stop

    def send(self, data: bytes | str) -> bool:
        """Send bytes; return False when the client is gone or the server is stopping."""
        if self.stop.is_set():
            return False
        try:
            self.sock.sendall(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
            return True
        except OSError:
            return False

    def drip(self, data: bytes | str, every_s: float = 1.0) -> None:
        """Send one byte every `every_s` seconds until done, the client hangs up or the server stops."""
        raw = data.encode() if isinstance(data, str) else data
        for i in range(len(raw)):
            if not self.send(raw[i:i + 1]) or self.stop.wait(every_s):
                return

    def close(self) -> None:
        """Hang up (both directions) now, whatever was promised."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def hold(self) -> None:
        """Keep the connection open, sending nothing, until the server stops."""
        self.stop.wait()


Behaviour = Callable[[Seen, Wire], None]


def head(status: int = 200, reason: str = "OK", headers: dict[str, str] | None = None, length: int | None = None) -> bytes:
    """Return a status line and headers (Content-Length when given), ending with the blank line."""
    lines = [f"HTTP/1.1 {status} {reason}", "Content-Type: application/json"]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", "surrogatepass")


def completion_body(content: Any, *, finish_reason: Any = "stop", model: Any = "hostile", usage: Any = None,
                    tool_calls: Any = None, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return a chat.completion JSON object with the given (possibly hostile) field values."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    body = {"id": "chatcmpl-h", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": finish_reason, "message": message}],
            "usage": usage if usage is not None else {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
    body.update(extra or {})
    return body


def send_json(wire: Wire, obj: Any, status: int = 200, reason: str = "OK", headers: dict[str, str] | None = None,
              raw: str | None = None) -> None:
    """Send one complete response: `raw` text if given, else `obj` as JSON."""
    data = (raw if raw is not None else json.dumps(obj)).encode("utf-8", "surrogatepass")
    wire.send(head(status, reason, headers, len(data)) + data)


def reply(content: Any, **kw: Any) -> Behaviour:
    """Return a behaviour that answers one well-framed completion with `content`."""
    return lambda seen, wire: send_json(wire, completion_body(content, **kw))


def gzip_bomb(inflated_bytes: int) -> Behaviour:
    """Return a behaviour whose gzip body is small on the wire and `inflated_bytes` when inflated."""
    data = gzip.compress(b" " * inflated_bytes, compresslevel=9)
    return lambda seen, wire: wire.send(head(headers={"Content-Encoding": "gzip"}, length=len(data)) + data)


class HostileServer:
    """A threaded TCP server speaking just enough HTTP/1.1 to read a request and run a behaviour."""

    def __init__(self, script: list[Behaviour], default: Behaviour | None = None) -> None:
        self.script, self.default = list(script), default
        self.seen: list[Seen] = []
        self.stop = threading.Event()
        self._lock = threading.Lock()
        server = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                self.request.settimeout(10)
                reader = self.request.makefile("rb")
                while not server.stop.is_set():  # keep-alive: one behaviour per request
                    try:
                        line = reader.readline(65536)
                        if not line:
                            return
                        headers: dict[str, str] = {}
                        while (h := reader.readline(65536)) not in (b"\r\n", b"\n", b""):
                            k, _, v = h.decode("latin-1").partition(":")
                            headers[k.strip().lower()] = v.strip()
                        body = reader.read(int(headers.get("content-length", 0) or 0))
                    except OSError:
                        return
                    seen = Seen(headers, json.loads(body or b"{}"))
                    with server._lock:
                        server.seen.append(seen)
                        step = server.script.pop(0) if server.script else server.default
                    wire = Wire(self.request, server.stop)
                    if step is None:
                        send_json(wire, {"error": "script exhausted"}, 500, "Internal Server Error")
                    else:
                        step(seen, wire)

        class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self._server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self) -> "HostileServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        time.sleep(0.01)
