"""Real-model tier: `mathloop bench` pairs a real 135M model (llama-cpp-python) with the local proposer.

Two seeds, one frozen protocol; each run in its own store with a dataset export that loads back
with pyarrow and, where installed, Hugging Face `datasets`. The server is stopped afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.model_server import missing_requirements, port_open, serve_model

pytestmark = pytest.mark.model

BUDGET = 4
DATA = "data/train-00000-of-00001.parquet"


def spec(base_url: str, model: str) -> str:
    return f"""
[protocol]
targets = ["levinson-conrey"]
budget = {BUDGET}
seeds = [1, 2]
samples = 2
temperature = 0.7
max_tokens = 256

[[proposers]]
name = "local"
proposer = "local"

[[proposers]]
name = "smollm2-135m-q4"
proposer = "openai"
model = "{model}"
base_url = "{base_url}"
request_timeout = 300
"""


@pytest.mark.timeout(1800)
def test_bench_pairs_a_real_model_with_the_local_proposer_on_two_seeds(tmp_path: Path) -> None:
    why = missing_requirements()
    if why:
        pytest.skip(why)
    pq = pytest.importorskip("pyarrow.parquet")
    env = dict(os.environ, COLUMNS="200")
    env.pop("MATHLOOP_DB", None)
    with serve_model(log_dir=tmp_path) as server:
        port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
        (tmp_path / "spec.toml").write_text(spec(server.base_url, server.model))
        proc = subprocess.run([sys.executable, "-m", "mathloop", "bench", str(tmp_path / "spec.toml"), "--json",
                               "-o", str(tmp_path / "ev"), "--no-progress"],
                              capture_output=True, text=True, env=env, timeout=1700)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert server.process.poll() is not None and not port_open(port), "the model server is still running"
    report = json.loads(proc.stdout)
    assert [(r["proposer"], r["seed"]) for r in report["results"]] == [
        ("local", 1), ("smollm2-135m-q4", 1), ("local", 2), ("smollm2-135m-q4", 2)]
    for r in report["results"]:
        assert r["candidates"] == BUDGET == sum(r["labels"].values())
        table = pq.read_table(tmp_path / "ev" / r["dataset"] / DATA)
        assert table.num_rows == BUDGET + 1
        if r["proposer"] != "local":
            assert r["tokens_per_candidate"] and r["tokens_per_candidate"] > 0
            model_rows = [x for x in table.to_pylist() if x["proposer"].startswith("openai:")]
            assert all(x["model"] == server.model and x["completion"] is not None for x in model_rows)
    assert len(report["pairs"]) == 2
    datasets = pytest.importorskip("datasets")
    first = tmp_path / "ev" / report["results"][1]["dataset"] / DATA
    ds = datasets.load_dataset("parquet", data_files=str(first), split="train", cache_dir=str(tmp_path / "hf"))
    assert ds.to_list() == pq.read_table(first).to_pylist()
    print(json.dumps(report["results"], indent=1))  # the figures, for the issue note (pytest -s)
