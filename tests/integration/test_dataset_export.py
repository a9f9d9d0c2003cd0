"""`mathloop export TARGET --dataset DIR`: Parquet rows, dataset card, manifest; loaded back unchanged."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from mathloop.targets import load_contract
from mathloop.env import Environment, StoreCommit
from mathloop.export.dataset import COLUMNS, DATA_FILE, rows
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from tests.integration.cli import invoke
from tests.unit.test_openai_proposer import FakeChatServer, completion, good

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

BETTER = {"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5"}
PROSE = "I proved kappa >= 0.9 but I will not say how."


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    """A store with a model session (scripted replies of every kind) and a local session after it."""
    db = str(tmp_path_factory.mktemp("ds") / "m.db")
    script = [good(BETTER), completion(PROSE), good({"P": ["0", "1"], "Q": ["1", "-1", "1"], "R": "1"}),
              completion("Here: " + json.dumps(BETTER) + " (certified!)")]
    with FakeChatServer(script, default=completion("no")) as server:
        res = invoke("run", "levinson-conrey", "--db", db, "--proposer", "openai", "--model", "scripted-7b",
                     "--base-url", server.url, "--budget", "4", "--samples", "1", "--no-progress", "--no-lean")
        assert res.exit_code == 0, res.stdout
    res = invoke("run", "levinson-conrey", "--db", db, "--budget", "3", "--no-progress", "--no-lean")
    assert res.exit_code == 0, res.stdout
    return db


def _export(store: str, out: Path, *extra: str):
    return invoke("export", "levinson-conrey", "--db", store, "--dataset", str(out), *extra)


def test_dataset_rows_load_back_unchanged_with_pyarrow(store, tmp_path):
    out = tmp_path / "ds"
    res = _export(store, out)
    assert res.exit_code == 0, res.stdout
    contract = load_contract("levinson-conrey")
    expected = list(rows(contract, Repository(make_engine(store, create=False))))
    table = pq.read_table(out / DATA_FILE)
    assert table.column_names == list(COLUMNS)
    assert table.to_pylist() == expected and len(expected) == 1 + 4 + 3  # the seed root, 4 replies, 3 local
    labels = [r["label"] for r in expected]
    assert labels[:5] == ["progress", "progress", "malformed", "regression", "no_progress"]


def test_rows_carry_prompt_completion_label_reward_and_provenance(store, tmp_path):
    out = tmp_path / "ds"
    assert _export(store, out).exit_code == 0
    got = pq.read_table(out / DATA_FILE).to_pylist()
    model_rows = [r for r in got if r["proposer"] == "openai:scripted-7b"]
    assert [r["completion"] for r in model_rows][1] == PROSE  # the raw reply, not a reconstruction
    assert all(r["model"] == "scripted-7b" for r in model_rows)
    local = [r for r in got if r["proposer"].startswith("local")]
    assert local and all(json.loads(r["completion"]) == json.loads(r["payload"]) for r in local)
    for r in got[1:]:
        with Environment("levinson-conrey", StoreCommit(store, r["parent_commit"])) as env:
            assert r["prompt"] == env.prompt()  # the prompt a model is shown at the parent state
            break
    for r in got:
        assert r["target"] == "levinson-conrey" and len(r["contract_sha256"]) == 64
        if r["label"] == "malformed":
            assert r["reward"] == -1.0 and r["evidence_sha256"] is None and r["reasons"]
        elif r["label"] in ("progress", "correct"):
            assert r["reward"] > 0 and json.loads(r["bounds"])["kappa"] and len(r["evidence_sha256"]) == 64
    assert sum(1 for r in got if r["commit"]) >= 2


def test_card_and_manifest_describe_and_pin_every_file(store, tmp_path):
    out = tmp_path / "ds"
    assert _export(store, out).exit_code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["files"]) == {"README.md", DATA_FILE}
    for name, sha in manifest["files"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == sha
    card = (out / "README.md").read_text()
    contract = load_contract("levinson-conrey")
    assert contract.sha256 in card and 'load_dataset("parquet"' in card
    assert all(h.citation in card for h in contract.hypotheses)
    assert f"| malformed | {manifest['labels']['malformed']} | -1 |" in card
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds"]  # no temporary directory left


def test_dataset_loads_with_hugging_face_datasets(store, tmp_path):
    datasets = pytest.importorskip("datasets")
    out = tmp_path / "ds"
    assert _export(store, out).exit_code == 0
    ds = datasets.load_dataset("parquet", data_files=str(out / DATA_FILE), split="train",
                               cache_dir=str(tmp_path / "hf-cache"))
    assert ds.num_rows == 8 and ds[1]["prompt"][0]["role"] == "system"
    assert ds.to_list() == pq.read_table(out / DATA_FILE).to_pylist()


def test_an_occupied_directory_is_refused_and_left_alone(store, tmp_path):
    out = tmp_path / "ds"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    res = _export(store, out)
    assert res.exit_code == 2 and "exists and is not an empty directory" in res.output
    assert [p.name for p in out.iterdir()] == ["keep.txt"] and sorted(p.name for p in tmp_path.iterdir()) == ["ds"]


def test_a_reward_file_overrides_the_table_and_a_bad_one_names_the_key(store, tmp_path):
    good_file = tmp_path / "r.toml"
    good_file.write_text("[rewards]\nprogress = 2.0\n")
    assert _export(store, tmp_path / "ds", "--rewards", str(good_file)).exit_code == 0
    got = pq.read_table(tmp_path / "ds" / DATA_FILE).to_pylist()
    assert {r["reward"] for r in got if r["label"] == "progress"} == {2.0}
    bad = tmp_path / "bad.toml"
    bad.write_text("[rewards]\nmalformed = 0.5\n")
    res = _export(store, tmp_path / "ds2", "--rewards", str(bad))
    assert res.exit_code == 2 and "rewards.malformed: must be below" in res.output
    assert not (tmp_path / "ds2").exists()


def test_card_header_carries_license_size_and_dataset_info(store, tmp_path):
    yaml = pytest.importorskip("yaml")
    out = tmp_path / "ds"
    assert _export(store, out).exit_code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    header = yaml.safe_load((out / "README.md").read_text().split("---\n")[1])
    assert header["license"] == "apache-2.0" and "levinson-conrey" in header["pretty_name"]
    assert header["size_categories"] == ["n<1K"]
    info = header["dataset_info"]
    assert [f["name"] for f in info["features"]] == list(COLUMNS)
    (split,) = info["splits"]
    assert split["name"] == "train" and split["num_examples"] == manifest["rows"] and split["num_bytes"] > 0
    assert info["download_size"] == (out / DATA_FILE).stat().st_size
    datasets = pytest.importorskip("datasets")
    ds = datasets.load_dataset("parquet", data_files=str(out / DATA_FILE), split="train",
                               cache_dir=str(tmp_path / "hf-cache"))
    assert datasets.Features._from_yaml_list(info["features"]) == ds.features
