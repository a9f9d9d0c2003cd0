"""Figures for the README's Reliability table: hostile model replies and replay lines against mathloop.

Runs every hostile behaviour of tests/adversarial (failed-request, malformed-reply and key-echo
cases) through the model proposer, every hostile replay line through the replay proposer, one
real CLI session against a key-echoing server (the store, WAL, output and exports scanned), and
real CLI sessions with `--time-limit 5` against dripping / silent / garbage servers. Prints JSON:
hostile replies tried, sessions that died, secrets leaked, the longest overrun past --time-limit.

    python tests/benchmarks/bench_hostile.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ["OPENAI_API_KEY"] = "sk-hostile-0123456789abcdefXYZ-secret"

from mathloop.propose.base import StopSession  # noqa: E402
from mathloop.propose.replay import ReplayProposer  # noqa: E402
from tests.adversarial import test_hostile_model_server as hm  # noqa: E402
from tests.adversarial import test_hostile_replay as hr  # noqa: E402
from tests.adversarial import test_secret_never_leaks as sl  # noqa: E402
from tests.adversarial import test_session_time_limit as tl  # noqa: E402
from tests.support.hostile_server import HostileServer, reply  # noqa: E402
from tests.unit.test_openai_proposer import context, proposer  # noqa: E402


def model_replies() -> dict:
    """Run every hostile model behaviour once; return counts of tried, died and leaked."""
    behaviours = [(c[0], c[1], c[3]) for c in hm.FAILED] + [(c[0], reply(c[1]), {}) for c in hm.MALFORMED]
    behaviours += [(c[0], c[1], {}) for c in sl.ECHOES]
    died, leaks, slowest = [], [], 0.0
    for name, behaviour, opts in behaviours:
        with HostileServer([behaviour], default=sl._fields()) as srv:
            t0 = time.monotonic()
            try:
                props = proposer(srv, request_timeout=1.0, max_retries=0, max_consecutive_failures=1,
                                 **opts).propose(context())
                text = json.dumps([[p.payload, dict(p.meta), p.malformed] for p in props], default=str,
                                  ensure_ascii=False)
            except StopSession as e:
                text = str(e)
            except Exception as e:  # noqa: BLE001 - this is what is being counted
                died.append(f"{name}: {type(e).__name__}: {e}")
                continue
            slowest = max(slowest, time.monotonic() - t0)
        if sl.leaked(text):
            leaks.append(name)
    return {"tried": len(behaviours), "died": died, "leaked": leaks, "slowest_request_s": round(slowest, 2)}


def replay_lines() -> dict:
    """Replay every hostile line; return counts of tried and died."""
    died = []
    with tempfile.TemporaryDirectory() as d:
        for name, line, _ in hr.BAD_LINES:
            path = Path(d) / "r.jsonl"
            path.write_bytes(line + b"\n")
            try:
                ReplayProposer(path).propose(context(samples=5))
            except Exception as e:  # noqa: BLE001
                died.append(f"{name}: {type(e).__name__}")
    return {"tried": len(hr.BAD_LINES), "died": died}


def cli_sessions() -> dict:
    """Run the CLI against the echo server and the time-limit servers; return died, leaks, overruns."""
    out: dict = {"died": [], "overrun_s": {}}
    with tempfile.TemporaryDirectory() as d:
        try:
            sl.test_a_cli_session_against_an_echoing_server_leaves_no_trace_of_the_key(Path(d))
            out["echo_session_leaks"] = 0
        except AssertionError as e:
            out["echo_session_leaks"] = str(e)[:500]
    for name, behaviour in [("drip", tl._drip), ("html-200", tl._html), ("silent", tl._silent),
                            ("gzip-bomb", hm.gzip_bomb(60_000_000)), ("chunked-garbage", hm._chunked_garbage)]:
        with tempfile.TemporaryDirectory() as d, HostileServer([], default=behaviour) as srv:
            started, ended, res = tl.timed_run(srv.url, Path(d) / "t.db", "--request-timeout", "60")
            if res.returncode != 0 or "Traceback" in res.stderr:
                out["died"].append(name)
            out["overrun_s"][name] = round(ended - (started + tl.LIMIT_S), 2)
    out["longest_overrun_s"] = max(out["overrun_s"].values())
    return out


if __name__ == "__main__":
    t0 = time.monotonic()
    figures = {"model_replies": model_replies(), "replay_lines": replay_lines(), "cli_sessions": cli_sessions()}
    figures["hostile_inputs_tried"] = figures["model_replies"]["tried"] + figures["replay_lines"]["tried"]
    figures["sessions_died"] = (len(figures["model_replies"]["died"]) + len(figures["replay_lines"]["died"])
                                + len(figures["cli_sessions"]["died"]))
    figures["secrets_leaked"] = len(figures["model_replies"]["leaked"]) + (
        0 if figures["cli_sessions"]["echo_session_leaks"] == 0 else 1)
    figures["seconds"] = round(time.monotonic() - t0, 1)
    print(json.dumps(figures, indent=2))
