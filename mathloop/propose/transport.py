"""The model endpoint's HTTP transport: a wall-clock deadline per request and a size cap per reply.

The `openai` client's timeout bounds each socket read, so a server that drips one byte per
second never times out. Here every connect, write and read gets only the time left until the
request's deadline (`deadline()`, a thread-local set around each request: the synchronous client
does all its I/O on the calling thread). The whole body is read inside the transport with a cap on
its bytes, and compressed bodies are inflated here with the same cap on the inflated size (a gzip
bomb stops at the cap); the client sees an identity-encoded body or an exception.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time
import zlib
from typing import Any, Iterator

try:  # openai >= 3 ships on httpx2/httpcore2; older releases on httpx/httpcore (same interfaces)
    import httpcore2 as httpcore
    import httpx2 as httpx
except ImportError:  # pragma: no cover - depends on the installed openai
    import httpcore  # type: ignore[no-redef]
    import httpx  # type: ignore[no-redef]

DEFAULT_MAX_BODY_BYTES = 1024 * 1024  # a reply is a few thousand tokens (tens of KB); anything near 1 MiB is not one
_CHUNK = 64 * 1024
_local = threading.local()


class ReplyTooLarge(httpx.DecodingError):
    """The reply body (raw or inflated) is over the cap; str() says which and how large."""


class UndecodableReply(httpx.DecodingError):
    """The reply's Content-Encoding is unknown or its compressed body is corrupt."""


@contextlib.contextmanager
def deadline(at: float | None) -> Iterator[None]:
    """Bound all HTTP I/O of this thread inside the block by `time.monotonic()` value `at` (None: unbounded)."""
    previous = getattr(_local, "deadline", None)
    _local.deadline = at
    try:
        yield
    finally:
        _local.deadline = previous


def _left(timeout: float | None, exc: type[Exception]) -> float | None:
    """Return the I/O timeout to use now: the smaller of `timeout` and the time left; raise `exc` if none is left."""
    at = getattr(_local, "deadline", None)
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise exc("request deadline reached")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A network stream whose every operation ends by the thread's request deadline."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


def _resolve(host: str, port: int, timeout: float | None) -> list[str]:
    """Return the host's addresses, resolved within `timeout` seconds (getaddrinfo itself has no timeout).

    The lookup runs on a daemon thread: a resolver that hangs past the deadline is left to finish on
    its own, and the request fails now with ConnectTimeout instead of hanging the session.
    """
    try:
        ipaddress.ip_address(host)
        return [host]  # a literal address needs no lookup
    except ValueError:
        pass
    box: dict[str, Any] = {}

    def lookup() -> None:
        try:
            box["infos"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as e:
            box["error"] = e

    worker = threading.Thread(target=lookup, name="mathloop-dns", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise httpcore.ConnectTimeout(f"name resolution of {host[:80]!r} did not finish by the request deadline")
    if "error" in box:
        raise httpcore.ConnectError(f"name resolution of {host[:80]!r} failed: {box['error']}")
    return list(dict.fromkeys(str(info[4][0]) for info in box["infos"]))


class _DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's synchronous backend with the deadline applied to connecting and to every stream."""

    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Any = None) -> Any:
        last: Exception | None = None
        for address in _resolve(host, port, _left(timeout, httpcore.ConnectTimeout)):
            try:  # TLS still verifies `host`: httpcore passes it to start_tls as the server name
                stream = self._inner.connect_tcp(address, port, _left(timeout, httpcore.ConnectTimeout),
                                                 local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as e:
                last = e
                continue
            return _DeadlineStream(stream)
        raise last if last is not None else httpcore.ConnectError(f"no address for {host[:80]!r}")

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> Any:
        return _DeadlineStream(self._inner.connect_unix_socket(path, _left(timeout, httpcore.ConnectTimeout),
                                                               socket_options))

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def _inflate(data: bytes, encoding: str, cap: int) -> bytes:
    """Return `data` decoded per Content-Encoding, refusing more than `cap` decoded bytes."""
    out = data
    for enc in reversed([e.strip().lower() for e in encoding.split(",") if e.strip()]):
        if enc in ("identity", ""):
            continue
        if enc not in ("gzip", "x-gzip", "deflate"):
            raise UndecodableReply(f"unsupported Content-Encoding {enc[:40]!r}")
        wbits = 16 + zlib.MAX_WBITS if enc in ("gzip", "x-gzip") else zlib.MAX_WBITS
        try:
            d = zlib.decompressobj(wbits)
            try:
                inflated = d.decompress(out, cap + 1)
            except zlib.error:
                if enc != "deflate":
                    raise
                d = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, as some servers send it
                inflated = d.decompress(out, cap + 1)
        except zlib.error as e:
            raise UndecodableReply(f"corrupt {enc} body: {e}") from None
        if len(inflated) > cap or d.unconsumed_tail:
            raise ReplyTooLarge(f"reply body inflates to more than {cap} bytes ({enc}, {len(data)} bytes sent)")
        out = inflated
    return out


class BoundedTransport(httpx.BaseTransport):
    """An HTTP transport that reads each reply whole, within its deadline and size cap."""

    def __init__(self, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        self.max_body_bytes = max_body_bytes
        self._inner = httpx.HTTPTransport(trust_env=False)
        # The only way to give httpx's transport another network backend is its pool.
        self._inner._pool = httpcore.ConnectionPool(ssl_context=httpx.create_ssl_context(), max_connections=64,
                                                    max_keepalive_connections=16, keepalive_expiry=5.0,
                                                    network_backend=_DeadlineBackend())

    def handle_request(self, request: Any) -> Any:
        response = self._inner.handle_request(request)
        cap = self.max_body_bytes
        chunks: list[bytes] = []
        size = 0
        try:
            for chunk in response.stream:
                size += len(chunk)
                if size > cap:
                    raise ReplyTooLarge(f"reply body larger than {cap} bytes")
                chunks.append(chunk)
        finally:
            response.close()
        body = _inflate(b"".join(chunks), response.headers.get("content-encoding", ""), cap)
        headers = [(k, v) for k, v in response.headers.multi_items()
                   if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
        return httpx.Response(response.status_code, headers=headers, content=body, extensions=response.extensions,
                              request=request)

    def close(self) -> None:
        self._inner.close()


def bounded_client(timeout: float, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> Any:
    """Return an httpx client for the openai SDK: per-read `timeout`, deadline-bounded I/O, capped bodies."""
    return httpx.Client(transport=BoundedTransport(max_body_bytes), timeout=httpx.Timeout(timeout),
                        follow_redirects=False, trust_env=False)
