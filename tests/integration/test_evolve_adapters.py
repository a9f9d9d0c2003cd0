"""The real evolve systems with mathloop as their evaluator: every score comes from an exact check of a sandboxed
program's output, the best is a certified commit of an `audit ok` store, and no failure scores like a success."""

from __future__ import annotations

import json
import math
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import load_contract
from tests.integration.cli import invoke
from tests.support.sandboxes import LoopbackServer, needs_sandbox
from tests.support.scripted_chat import ScriptedChat

TARGET = "erdos-minimum-overlap"


def program(slope: str) -> str:
    """Return a program printing a tent of 20 steps f = 1 - slope·|x| (clipped to [0, 1])."""
    return textwrap.dedent(f"""
        import json
        n = 20
        h = [max(0.0, min(1.0, 1 - abs(-1 + (i + 0.5) * 2 / n) * {slope})) for i in range(n)]
        print(json.dumps({{"heights": [f"{{v:.6f}}" for v in h]}}))
    """)


@pytest.fixture(autouse=True)
def sandbox_here():
    needs_sandbox()


def evaluator_file(folder: Path, module: str, db: Path) -> Path:
    path = folder / "evaluator.py"
    path.write_text(f"from mathloop.integrations.{module} import evaluator\n"
                    f"evaluate = evaluator({TARGET!r}, db={str(db)!r}, program_time=20)\n")
    return path


@pytest.mark.slow  # four OpenEvolve iterations and their sandboxed programs (~3.5 s)
def test_openevolve_run_against_a_scripted_endpoint_leaves_certified_commits(tmp_path):
    openevolve = pytest.importorskip("openevolve", reason="the `evolve` extra (pip install 'mathloop[evolve]')")
    from openevolve.config import Config, LLMModelConfig

    db = tmp_path / "store.db"
    server = LoopbackServer()
    hostile = textwrap.dedent(f"""
        import json, socket, os
        try:
            socket.create_connection(("127.0.0.1", {server.port}), timeout=1)
        except OSError:
            pass
        for name in ("metrics.json", "/tmp/evaluator.py"):
            open(name, "w").write('{{"combined_score": 1e9}}')
        print(json.dumps({{"heights": ["0", "0", "9", "0"]}}))   # f > 1: not admissible
    """)
    replies = [f"Better tent:\n```python\n{program('0.85')}```", f"```python\n{hostile}```",
               "```python\nraise SystemExit(1)\n```", f"```python\n{program('0.95')}```"]
    initial = tmp_path / "initial.py"
    initial.write_text(program("0.6"))
    cfg = Config()
    cfg.max_iterations = 4
    cfg.random_seed = 1
    cfg.diff_based_evolution = False
    cfg.database.in_memory = True
    cfg.database.num_islands = 1
    cfg.evaluator.cascade_evaluation = False
    cfg.evaluator.parallel_evaluations = 1
    cfg.evaluator.timeout = 60
    cfg.evaluator.max_retries = 0
    try:
        with ScriptedChat(replies) as chat:
            cfg.llm.models = [LLMModelConfig(name="scripted", api_base=chat.base_url, api_key="not-needed", weight=1.0)]
            cfg.llm.update_model_params({"api_base": chat.base_url, "api_key": "not-needed", "timeout": 30,
                                         "retries": 0})
            result = openevolve.run_evolution(str(initial), str(evaluator_file(tmp_path, "openevolve", db)),
                                              config=cfg, iterations=4, output_dir=str(tmp_path / "out"))
            asked = len(chat.requests)
    finally:
        server.close()
    assert asked >= 4 and server.accepted == []
    contract = load_contract(TARGET)
    repo = Repository(make_engine(str(db)))
    head = repo.head(contract.sha256)
    # the best OpenEvolve kept is the store's head: the same program, its exact value, 1/value as its score
    assert repo.candidate(head.candidate_id).meta["program"]["text"] == result.best_code
    assert head.bounds["C1b"] < Fraction(2, 5) and result.metrics["C1b"] == float(head.bounds["C1b"])
    assert math.isclose(result.best_score, 1 / float(head.bounds["C1b"]))
    scores = {c.meta["program"]["sha256"][:8]: (c.label, c.commit_hash) for c in repo.candidates(contract.sha256)
              if c.proposer == "openevolve"}
    assert len(scores) >= 4 and sum(1 for label, _ in scores.values() if label == "malformed") >= 1
    audit = invoke("audit", TARGET, "--db", str(db))
    assert audit.exit_code == 0 and "audit ok" in audit.output


@pytest.mark.slow
def test_openevolve_scores_failures_below_every_certified_program(tmp_path):
    pytest.importorskip("openevolve", reason="the `evolve` extra")
    from openevolve.utils.metrics_utils import get_fitness_score

    from mathloop.integrations.openevolve import evaluator

    evaluate = evaluator(TARGET, db=str(tmp_path / "s.db"), program_time=20)
    paths = {}
    for name, text in {"worst_valid": program("0.1"), "crash": "1/0\n", "wrong_target": 'print(\'{"R": "1"}\')\n',
                       "not_admissible": 'print(\'{"heights": ["0", "0", "9", "0"]}\')\n'}.items():
        paths[name] = tmp_path / f"{name}.py"
        paths[name].write_text(text)
    got = {name: evaluate(str(p)) for name, p in paths.items()}
    fitness = {name: get_fitness_score(r.metrics) for name, r in got.items()}
    assert fitness["worst_valid"] > 0 and got["worst_valid"].artifacts["verdict"] in ("committed", "certified")
    for name in ("crash", "wrong_target", "not_admissible"):
        assert fitness[name] == 0.0 < fitness["worst_valid"], (name, got[name].metrics)
        assert got[name].metrics == {"combined_score": 0.0} and got[name].artifacts["commit"] == ""
    assert got["not_admissible"].artifacts["verdict"] == "refused"
    assert got["worst_valid"].artifacts["value_exact"] == str(Fraction(got["worst_valid"].artifacts["value_exact"]))


@pytest.mark.slow
def test_shinka_scheduler_reads_the_verdict_mathloop_wrote(tmp_path):
    pytest.importorskip("shinka", reason="the `evolve` extra (shinka-evolve)")
    from shinka.launch import JobScheduler, LocalJobConfig

    db = tmp_path / "s.db"
    script = tmp_path / "evaluate.py"
    script.write_text(f"from mathloop.integrations.shinka import main\nif __name__ == '__main__':\n"
                      f"    main(target={TARGET!r}, db={str(db)!r}, program_time=20)\n")
    good, fake = tmp_path / "gen_0", tmp_path / "gen_1"
    good.mkdir()
    fake.mkdir()
    (good / "main.py").write_text(program("0.9"))
    # writes a perfect metrics.json into the results directory, then prints an inadmissible candidate
    (fake / "main.py").write_text(textwrap.dedent(f"""
        import json
        for d in ({str(fake)!r}, "."):
            try:
                open(d + "/metrics.json", "w").write('{{"combined_score": 1e9}}')
                open(d + "/correct.json", "w").write('{{"correct": true, "error": null}}')
            except OSError:
                pass
        print(json.dumps({{"heights": ["0", "7", "0"]}}))
    """))
    scheduler = JobScheduler(job_type="local", config=LocalJobConfig(eval_program_path=str(script)), verbose=False)
    ok, _ = scheduler.run(str(good / "main.py"), str(good))
    bad, _ = scheduler.run(str(fake / "main.py"), str(fake))
    assert ok["correct"]["correct"] is True and ok["metrics"]["combined_score"] == pytest.approx(1 / (857 / 2200))
    assert ok["metrics"]["public"]["C1b_exact"] == "857/2200" and ok["metrics"]["public"]["verdict"] == "committed"
    assert bad["correct"]["correct"] is False and bad["metrics"]["combined_score"] == 0.0
    assert "exceeds 1" in bad["correct"]["error"]
    assert json.loads((fake / "metrics.json").read_text())["combined_score"] == 0.0
    assert invoke("audit", TARGET, "--db", str(db)).exit_code == 0


@pytest.mark.slow
def test_simpletes_evaluator_gives_failures_minus_infinity_and_no_error_to_successes(tmp_path):
    """SimpleTES's runner imports the evaluator file, calls evaluate(path) and prints json.dumps(result); a node scores
    -inf when its metrics carry a true `error` (simpletes/node.py); else its combined_score."""
    import importlib.util

    evaluator_path = evaluator_file(tmp_path, "simpletes", tmp_path / "s.db")
    spec = importlib.util.spec_from_file_location("user_evaluator", evaluator_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(program("0.9"))
    bad.write_text("import time\nwhile True: time.sleep(1)\n")

    def node_score(metrics: dict) -> float:
        return -math.inf if metrics.get("error") else float(metrics["combined_score"])

    ok = json.loads(json.dumps(module.evaluate(str(good))))
    assert "error" not in ok and node_score(ok) == pytest.approx(1 / (857 / 2200)) and ok["value_exact"] == "857/2200"
    assert ok["verdict"] == "committed" and len(ok["commit"]) == 64
    from mathloop.integrations.certified import CertifiedEvaluator

    quick = CertifiedEvaluator(TARGET, str(tmp_path / "s.db"), system="simpletes", program_time=1)
    from mathloop.integrations.simpletes import metrics

    failed = json.loads(json.dumps(metrics(quick.evaluate_file(bad))))
    quick.close()
    assert failed["combined_score"] == -math.inf and node_score(failed) == -math.inf
    assert "wall-clock limit (1 s)" in failed["error"]
    repo = Repository(make_engine(str(tmp_path / "s.db")))
    head = repo.head(load_contract(TARGET).sha256)
    assert head.hash == ok["commit"] and str(head.bounds["C1b"]) == "857/2200"  # the best is a certified commit
    audit = invoke("audit", TARGET, "--db", str(tmp_path / "s.db"))
    assert audit.exit_code == 0 and "audit ok" in audit.output
