"""`mathloop bench` against a model endpoint that never answers: it gives up as `run --proposer openai` gives up
(the same options, the same number of requests), prints a line per run, keeps the runs made so far in
results.json and exits 1 naming the proposer, the endpoint and where the partial results are."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from pathlib import Path

import pytest

from mathloop.propose import chat
from mathloop.propose.openai_proposer import OpenAIOptions
from tests.integration.cli import invoke

pytestmark = pytest.mark.slow  # whole bench and run sessions (3-10 s each; the real give-up ~90 s): CI's second tier


def _closed_port() -> int:
    """Return a loopback port that was just free (nothing listens: a connection is refused at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spec(tmp_path: Path, base_url: str, *, samples: int, extra: str = "") -> Path:
    spec = tmp_path / "bench.toml"
    spec.write_text(f"""
[protocol]
targets = ["levinson-conrey"]
budget = 3
seeds = [1, 2]
samples = {samples}
max_tokens = 64

[[proposers]]
name = "local"
proposer = "local"

[[proposers]]
name = "dead"
proposer = "openai"
model = "nobody"
base_url = "{base_url}"
{extra}
""")
    return spec


@pytest.fixture
def no_backoff(monkeypatch):
    """Retries without their pauses (1 + 2 + 4 + 8 s per request): the same attempts, rounds and give-up, fast."""
    monkeypatch.setattr(chat.RetryPolicy, "delay", lambda self, retry, retry_after=None: 0.0)


def test_bench_gives_up_on_a_closed_port_as_run_does_and_keeps_the_runs_made(tmp_path, no_backoff):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    res = invoke("bench", str(_spec(tmp_path, url, samples=2)), "-o", str(tmp_path / "ev"), "--no-progress")
    assert res.exit_code == 1, res.output
    out = res.stdout
    assert "[1/4] local · levinson-conrey · seed 1: running" in out
    assert re.search(r"\[1/4\] local · levinson-conrey · seed 1: \S.*candidates in", out)
    assert "[2/4] dead · levinson-conrey · seed 1: running" in out
    assert "[2/4] dead · levinson-conrey · seed 1: proposer stopped: endpoint gave no usable reply" in out
    assert "[3/4]" not in out  # a dead endpoint is not waited on again for the next seed
    err = " ".join(res.stderr.split())
    assert f"proposers.dead: the endpoint {url} gave no reply in run 2 of 4" in err
    assert "Connection refused" in err and "bench stopped, as `run --proposer openai` stops" in err
    assert str(tmp_path / "ev" / "results.json") in err
    partial = json.loads((tmp_path / "ev" / "results.json").read_text())
    assert partial["complete"] is False and partial["runs_planned"] == 4
    assert [r["proposer"] for r in partial["results"]] == ["local", "dead"]
    assert partial["results"][1]["candidates"] == 0
    bench_requests = int(re.search(r"\((\d+) requests, \1 failed, no reply", err).group(1))

    # `run --proposer openai` with the same samples against the same closed port: the same requests, then it stops.
    run = invoke("run", "levinson-conrey", "--db", str(tmp_path / "run.db"), "--proposer", "openai", "--model", "nobody",
                 "--base-url", url, "--samples", "2", "--no-progress", "--no-lean")
    assert run.exit_code == 0, run.output
    text = " ".join(run.stdout.split())
    assert "proposer stopped: endpoint gave no usable reply" in text
    assert re.search(r"requests (\d+), replies 0, failed_requests \1", text).group(1) == str(bench_requests)
    defaults = OpenAIOptions(model="nobody")
    assert bench_requests == 2 * defaults.max_consecutive_failures  # samples x rounds, each after max_retries


def test_bench_and_run_build_the_same_endpoint_options(tmp_path, monkeypatch):
    """The bench spec's operational defaults are `run`'s: the same give-up time for the same samples."""
    import mathloop.propose.openai_proposer as op

    seen: list[OpenAIOptions] = []

    def capture(contract, target, options, **kw):
        seen.append(options)
        raise ValueError("captured")

    monkeypatch.setattr(op, "build_openai_proposer", capture)
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    invoke("bench", str(_spec(tmp_path, url, samples=4)), "-o", str(tmp_path / "ev"), "--no-progress")
    invoke("run", "levinson-conrey", "--db", str(tmp_path / "run.db"), "--proposer", "openai", "--model", "nobody",
           "--base-url", url, "--no-progress", "--no-lean")
    bench_opts, run_opts = seen
    keys = ("samples", "concurrency", "request_timeout", "max_retries", "max_consecutive_failures", "backoff_s",
            "backoff_max_s")
    assert {k: getattr(bench_opts, k) for k in keys} == {k: getattr(run_opts, k) for k in keys}


class _SilentServer:
    """A real TCP server on 127.0.0.1 that accepts every connection, reads the request and never answers."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.held: list[socket.socket] = []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.held.append(conn)  # kept open, never written to

    def __enter__(self) -> "_SilentServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self.thread.join(5)
        for c in self.held:
            c.close()
        self.sock.close()


def test_bench_gives_up_on_a_server_that_never_answers_in_run_s_time(tmp_path):
    """Real pauses and real request timeouts (request_timeout 0.5 s, 1 sample): 5 rounds of 5 attempts with
    1 + 2 + 4 + 8 s between them, about 5 x (5 x 0.5 + 15) = 88 s, then exit 1 with the partial results."""
    with _SilentServer() as server:
        spec = _spec(tmp_path, server.url, samples=1, extra="request_timeout = 0.5")
        start = time.monotonic()
        res = invoke("bench", str(spec), "-o", str(tmp_path / "ev"), "--no-progress")
        took = time.monotonic() - start
    assert res.exit_code == 1, res.output
    err = " ".join(res.stderr.split())
    assert "gave no reply in run 2 of 4" in err and "timeout after" in err, err
    assert 5 * 15 <= took <= 5 * (5 * 0.5 + 15) + 60, took
    assert json.loads((tmp_path / "ev" / "results.json").read_text())["complete"] is False
    assert len(server.held) == 5 * 5  # every attempt reached the server: nothing was skipped or retried more
