"""The model tier of the evolve adapters: a short OpenEvolve run whose programs a real local model writes
(llama-cpp-python serving SmolLM2-135M, as the model tier does), with mathloop as the evaluator."""

from __future__ import annotations

import math
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import load_contract
from tests.integration.cli import invoke
from tests.integration.model_server import missing_requirements, serve_model
from tests.support.sandboxes import needs_sandbox

pytestmark = pytest.mark.model
TARGET = "erdos-minimum-overlap"
ITERATIONS = 3


@pytest.mark.timeout(1800)
def test_openevolve_with_a_real_model_leaves_only_certified_commits(tmp_path: Path):
    why = missing_requirements()
    if why is not None:
        pytest.skip(why)
    needs_sandbox()
    openevolve = pytest.importorskip("openevolve", reason="the `evolve` extra")
    from openevolve.config import Config, LLMModelConfig

    from mathloop.propose.program_prompt import starter

    db = tmp_path / "store.db"
    initial = tmp_path / "initial.py"
    initial.write_text(starter(TARGET, {}))
    evaluator = tmp_path / "evaluator.py"
    evaluator.write_text(textwrap.dedent(f"""
        from mathloop.integrations.openevolve import evaluator
        evaluate = evaluator({TARGET!r}, db={str(db)!r}, program_time=30)
    """))
    cfg = Config()
    cfg.max_iterations = ITERATIONS
    cfg.random_seed = 0
    cfg.diff_based_evolution = False
    cfg.database.in_memory = True
    cfg.database.num_islands = 1
    cfg.evaluator.cascade_evaluation = False
    cfg.evaluator.parallel_evaluations = 1
    cfg.evaluator.timeout = 120
    cfg.evaluator.max_retries = 0
    with serve_model(log_dir=tmp_path) as server:
        cfg.llm.models = [LLMModelConfig(name=server.model, api_base=server.base_url, api_key="not-needed", weight=1.0)]
        cfg.llm.update_model_params({"api_base": server.base_url, "api_key": "not-needed", "timeout": 600,
                                     "retries": 1, "max_tokens": 768})
        result = openevolve.run_evolution(str(initial), str(evaluator), config=cfg, iterations=ITERATIONS,
                                          output_dir=str(tmp_path / "out"))
    contract = load_contract(TARGET)
    repo = Repository(make_engine(str(db)))
    rows = [c for c in repo.candidates(contract.sha256) if c.proposer == "openevolve"]
    assert len(rows) >= 1  # the initial program at least; every model program that OpenEvolve could read too
    assert all("program" in c.meta and c.meta["program"]["text"] for c in rows)
    head = repo.head(contract.sha256)
    # OpenEvolve's best is the store's head (the starter certifies a value below the seed's 1/2)
    assert head.bounds["C1b"] < Fraction(1, 2)
    assert math.isclose(result.best_score, 1 / float(head.bounds["C1b"]))
    assert repo.candidate(head.candidate_id).meta["program"]["text"] == result.best_code
    audit = invoke("audit", TARGET, "--db", str(db))
    assert audit.exit_code == 0 and "audit ok" in audit.output
