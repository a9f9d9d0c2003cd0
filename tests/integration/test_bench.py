"""`mathloop bench SPEC.toml`: paired runs in fresh stores under one hashed protocol; bad specs exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mathloop.bench.spec import load_spec
from mathloop.targets import load_contract
from mathloop.domain import canonical_json, sha256_hex
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from tests.integration.cli import invoke
from tests.unit.test_openai_proposer import FakeChatServer, completion, good

pytestmark = pytest.mark.slow  # whole bench runs in fresh stores (~5 s): CI's second tier runs it

BETTER = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5"}


def spec_text(base_url: str, budget: int = 3) -> str:
    return f"""
[protocol]
targets = ["levinson-conrey"]
budget = {budget}
seeds = [1, 2]
samples = 1
max_tokens = 128

[[proposers]]
name = "local"
proposer = "local"

[[proposers]]
name = "scripted"
proposer = "openai"
model = "scripted-q4"
base_url = "{base_url}"
"""


def _bench(tmp_path: Path, name: str, text: str, out: str, *extra: str):
    spec = tmp_path / f"{name}.toml"
    spec.write_text(text)
    return invoke("bench", str(spec), "-o", str(tmp_path / out), "--no-progress", *extra)


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bench")
    replies = [good(BETTER), completion("I proved kappa > 0.5."), good({"P": ["0", "1"], "Q": ["1", "-1", "1"], "R": "1"})]
    with FakeChatServer(replies * 2, default=completion("nothing")) as server:
        res = _bench(tmp, "spec", spec_text(server.url), "ev", "--json")
        again = _bench(tmp, "spec", spec_text(server.url), "ev2", "--json")
    assert res.exit_code == 0, res.output
    return tmp, server.url, json.loads(res.stdout), json.loads(again.stdout)


def test_json_has_the_protocol_hash_one_row_per_run_and_pairs_per_seed(ran):
    tmp, _, report, _ = ran
    assert list(report) == ["protocol_sha256", "results", "pairs"]
    runs = [(r["proposer"], r["seed"]) for r in report["results"]]
    assert runs == [("local", 1), ("scripted", 1), ("local", 2), ("scripted", 2)]
    for r in report["results"]:
        assert r["candidates"] == 3 == sum(r["labels"].values()) and abs(sum(r["share"].values()) - 1) < 1e-3
        assert len(r["evidence_sha256"]) == 64 and r["best_bound"]["kappa"].startswith("0.")
    scripted = [r for r in report["results"] if r["proposer"] == "scripted"]
    assert all(r["malformed_share"] == round(1 / 3, 4) and r["tokens_per_candidate"] == 120.0 for r in scripted)
    assert [(p["seed"], p["a"], p["b"]) for p in report["pairs"]] == [(1, "local", "scripted"), (2, "local", "scripted")]
    assert all(set(p["best_bound_gain"]) == {"kappa"} for p in report["pairs"])


def test_protocol_hash_covers_contract_templates_budget_and_proposers(ran, tmp_path):
    tmp, url, report, _ = ran
    saved = json.loads((tmp / "ev" / "protocol.json").read_text())
    assert sha256_hex(canonical_json(saved["protocol"])) == report["protocol_sha256"] == saved["protocol_sha256"]
    proto = saved["protocol"]
    assert proto["targets"][0]["contract_sha256"] == load_contract("levinson-conrey").sha256
    assert set(proto["prompt_templates"]) >= {"system.md", "user.md", "rejection.md"}
    (tmp_path / "a.toml").write_text(spec_text(url, budget=4))
    (tmp_path / "b.toml").write_text(spec_text(url.replace("127.0.0.1", "localhost")))
    assert load_spec(tmp_path / "a.toml").protocol_sha256 != report["protocol_sha256"]  # budget is protocol
    assert load_spec(tmp_path / "b.toml").protocol_sha256 == report["protocol_sha256"]  # the endpoint is not


def test_every_run_has_its_own_fresh_store_from_the_same_seed_and_a_dataset(ran):
    tmp, _, report, _ = ran
    pq = pytest.importorskip("pyarrow.parquet")
    contract = load_contract("levinson-conrey")
    roots = set()
    for r in report["results"]:
        repo = Repository(make_engine(str(tmp / "ev" / r["store"]), create=False))
        commits = repo.commits(contract.sha256)
        roots.add(json.dumps(commits[0].state, sort_keys=True))
        cands = [c for c in repo.candidates(contract.sha256) if c.proposer != "seed"]
        assert len(cands) == r["candidates"] and len({c.session_id for c in cands}) == 1
        table = pq.read_table(tmp / "ev" / r["dataset"] / "data" / "train-00000-of-00001.parquet")
        assert table.num_rows == r["candidates"] + 1  # and the seed's root
    assert roots == {json.dumps(dict(contract.seed), sort_keys=True)}


def test_a_deterministic_proposer_reproduces_its_evidence_hash(ran):
    _, _, first, second = ran
    assert first["protocol_sha256"] == second["protocol_sha256"]
    local = [(a, b) for a, b in zip(first["results"], second["results"]) if a["proposer"] == "local"]
    assert len(local) == 2 and all(a["evidence_sha256"] == b["evidence_sha256"] for a, b in local)


def test_results_of_another_protocol_are_never_put_side_by_side(ran):
    tmp, url, _, _ = ran
    res = _bench(tmp, "other", spec_text(url, budget=5), "ev")
    assert res.exit_code == 2 and "never put side by side" in res.output
    assert len(json.loads((tmp / "ev" / "results.json").read_text())["results"]) == 4


@pytest.mark.parametrize("edit, key", [
    (lambda t: t.replace("budget = 3\n", ""), "protocol.budget: missing"),
    (lambda t: t.replace("budget = 3", "budgt = 3"), "protocol.budgt: unknown key"),
    (lambda t: t.replace("budget = 3", "budget = 0"), "protocol.budget: must be an integer >= 1"),
    (lambda t: t.replace("seeds = [1, 2]", "seeds = [1, 1]"), "protocol.seeds: must be a non-empty list of distinct"),
    (lambda t: t.replace('targets = ["levinson-conrey"]', 'targets = ["nope"]'), "protocol.targets[0]:"),
    (lambda t: t.replace('model = "scripted-q4"\n', ""), "proposers[1].model: required"),
    (lambda t: t.replace('base_url = "http://x"', 'base_url = "ftp://x"'), "proposers[1].base_url:"),
    (lambda t: t.replace('proposer = "local"', 'proposer = "magic"'), "proposers[0].proposer: must be one of"),
    (lambda t: t + "[rewards]\nmalformed = 1.0\n", "rewards.malformed: must be below"),
    (lambda t: t + "[extra]\n", "extra: unknown key"),
    (lambda t: t.replace("[protocol]", "[protocol"), "<file>: not valid TOML"),
])
def test_a_bad_spec_exits_2_naming_the_key(tmp_path, edit, key):
    res = _bench(tmp_path, "bad", edit(spec_text("http://x")), "ev")
    assert res.exit_code == 2, res.output
    assert key in res.output.replace("\n", " "), res.output
    assert not (tmp_path / "ev").exists()


def test_without_pyarrow_each_run_keeps_its_records_as_jsonl(tmp_path, monkeypatch):
    from mathloop.export import dataset

    def missing():
        raise dataset.DatasetError("--dataset needs pyarrow: pip install 'mathloop[ml]'")

    monkeypatch.setattr(dataset, "_pyarrow", missing)
    text = spec_text("http://x").split("[[proposers]]")[0] + '[[proposers]]\nname = "local"\nproposer = "local"\n'
    res = _bench(tmp_path, "local", text.replace("seeds = [1, 2]", "seeds = [3]"), "ev", "--json")
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.stdout)["results"]
    lines = (tmp_path / "ev" / row["dataset"]).read_text().splitlines()
    assert row["dataset"].endswith("records.jsonl") and len(lines) == row["candidates"] + 1


def test_the_human_report_shows_runs_pairs_and_the_mean_over_seeds(tmp_path):
    text = ('[protocol]\ntargets = ["levinson-conrey"]\nbudget = 2\nseeds = [1, 2]\n'
            '[[proposers]]\nname = "a"\n[[proposers]]\nname = "b"\nproposer = "local"\n')
    res = _bench(tmp_path, "two-local", text, "ev")
    assert res.exit_code == 0, res.output
    sha = load_spec(tmp_path / "two-local.toml").protocol_sha256
    assert sha[:16] in res.output and "b − a, mean over 2 seed(s): bound gain kappa 0.000000000000" in res.output
    assert "evidence:" in res.output
