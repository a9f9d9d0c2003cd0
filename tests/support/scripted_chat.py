"""A real HTTP server speaking the OpenAI chat-completions protocol with canned replies (for evolve-loop tests)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


class ScriptedChat:
    """Serves /v1/chat/completions on 127.0.0.1: reply i is `replies[i % len(replies)]` (a string, or a function of the
    request body returning one); every request body is kept in `requests`."""

    def __init__(self, replies: list[str | Callable[[dict], str]], model: str = "scripted") -> None:
        self.replies, self.model = replies, model
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                self._send(200, {"object": "list", "data": [{"id": outer.model, "object": "model"}]})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
                with outer._lock:
                    i = len(outer.requests)
                    outer.requests.append(body)
                reply = outer.replies[i % len(outer.replies)]
                content = reply(body) if callable(reply) else reply
                self._send(200, {"id": f"chatcmpl-{i}", "object": "chat.completion", "created": int(time.time()),
                                 "model": outer.model,
                                 "choices": [{"index": 0, "finish_reason": "stop",
                                              "message": {"role": "assistant", "content": content}}],
                                 "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150}})

            def _send(self, status: int, value: Any) -> None:
                data = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "ScriptedChat":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
