"""Model tier (issue 26), briefly: SmolLM2-135M writes in the new constants forms through a real llama-cpp-python
server, and the model-tier benchmark's figures come out of the real session: every reply is a candidate of the
form (no malformed), no repeat reaches a checker, tokens and seconds are counted, and the server is stopped."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from tests.benchmarks.bench_model_tier import session
from tests.integration.model_server import missing_requirements, port_open, serve_model

pytestmark = pytest.mark.model

BUDGET = 3


@pytest.mark.timeout(900)
@pytest.mark.parametrize("target", ["erdos-minimum-overlap", "shannon-capacity-c7"])
def test_a_small_model_writes_only_admissible_candidates_in_a_constants_form(tmp_path: Path, target: str) -> None:
    why = missing_requirements()
    if why:
        pytest.skip(why)
    env = dict(os.environ, COLUMNS="200")
    env.pop("MATHLOOP_DB", None)
    args = argparse.Namespace(budget=BUDGET, seed=0, samples=1, max_tokens=384, temperature=0.7, keep=None,
                              reference={}, local_time_limit=0, form=None)
    with serve_model(log_dir=tmp_path) as server:
        port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
        r = session(target, "openai", server.model, server.base_url, args, tmp_path, env)
    assert server.process.poll() is not None and not port_open(port), "the model server is still running"
    assert r["candidates"] == BUDGET and sum(r["labels"].values()) == BUDGET
    # the grammar keeps replies on the form and the form keeps them admissible: only a reply cut at max_tokens is not
    assert all(why.startswith("truncated at max_tokens") for why in r["malformed_reasons"]), r["malformed_reasons"]
    assert r["repeats_checked"] == 0
    assert r["tokens_per_candidate"] > 0 and r["seconds_per_candidate"] > 0
    assert r["labels"].get("error", 0) == 0  # every candidate was admissible: checked, never a checker error
