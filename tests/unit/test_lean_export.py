"""Lean project export: manifest hashes match, re-export is byte-identical, destinations are safe."""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path

import pytest

from mathloop import outputs
from mathloop.lean.export import ExportError, export_project
from mathloop.targets.levinson_conrey.lean_claims import render_commit
from tests.support.lean_evidence import lc_evidence

PAYLOADS = [{"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"},
            {"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5"},
            {"P": ["0", "3/2", "-1/2"], "Q": ["1", "-1"], "R": "13/10"}]


@pytest.fixture(scope="module")
def chain():
    """Return (contract, commits) for a 3-commit chain of real levinson-conrey evidence."""
    commits, parent = [], None
    for seq, p in enumerate(PAYLOADS):
        contract, ev = lc_evidence(p["P"], p["Q"], p["R"])
        h = hashlib.sha256(f"{parent}{seq}".encode()).hexdigest()
        commits.append({"hash": h, "parent": parent, "seq": seq, "evidence": ev, "lean": None})
        parent = h
    sha0 = render_commit(contract, commits[0]["hash"], commits[0]["evidence"], Fraction(4, 7)).sha256
    commits[0]["lean"] = {"status": "checked", "kind": "bundled", "artifact_sha256": sha0}
    commits[1]["lean"] = {"status": "checked", "kind": "bundled", "artifact_sha256": "f" * 64}  # another rendering
    return contract, commits


def export_lean_project(contract, commits, out):
    return export_project(contract, commits, out, lambda h, ev: render_commit(contract, h, ev, Fraction(4, 7)))


def _tree(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_manifest_hashes_match_files_and_chain(chain, tmp_path):
    contract, commits = chain
    s = export_lean_project(contract, commits, tmp_path / "out")
    m = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert m == json.loads(json.dumps(s.manifest)) and m["contract_sha256"] == contract.sha256
    assert m["chain"] == [c["hash"] for c in commits]
    for rel, digest in m["files"].items():
        assert hashlib.sha256((tmp_path / "out" / rel).read_bytes()).hexdigest() == digest
    for c, e in zip(commits, m["commits"]):
        assert e["evidence_sha256"] == hashlib.sha256(c["evidence"].canonical_bytes()).hexdigest()
        assert e["artifact_sha256"] and e["module"] == f"Certs.C{c['hash']}"
        assert (tmp_path / "out" / e["module"].replace(".", "/") / "Statement.lean").is_file()


def test_only_a_matching_real_check_is_recorded_as_checked(chain, tmp_path):
    contract, commits = chain
    m = export_lean_project(contract, commits, tmp_path / "out").manifest
    assert [e["lean"]["status"] for e in m["commits"]] == ["checked", "pending", "pending"]


def test_reexport_is_byte_identical(chain, tmp_path):
    contract, commits = chain
    export_lean_project(contract, commits, tmp_path / "a")
    first = _tree(tmp_path / "a")
    export_lean_project(contract, commits, tmp_path / "a")  # over a previous export: allowed
    export_lean_project(contract, commits, tmp_path / "b")
    assert _tree(tmp_path / "a") == first == _tree(tmp_path / "b")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]  # no temp dirs left


def test_export_is_a_lean_project_with_support_root_and_axiom_files(chain, tmp_path):
    contract, commits = chain
    export_lean_project(contract, commits, tmp_path / "out")
    out = tmp_path / "out"
    assert (out / "lean-toolchain").read_text().startswith("leanprover/lean4:v4.")
    assert "[[lean_lib]]" in (out / "lakefile.toml").read_text() and (out / "Mathloop/Exact.lean").is_file()
    assert (out / "Mathloop/LevinsonConrey.lean").is_file()
    root = (out / "Certs.lean").read_text().splitlines()
    assert root == [f"import Certs.C{c['hash']}.Proof" for c in commits]
    assert "lake build" in (out / "README.md").read_text() and "lean-check --export" in (out / "README.md").read_text()
    assert (out / "Axioms.lean").read_text().count("#print axioms") == 3 * 6


def test_refuses_non_empty_directory_that_is_not_an_export(chain, tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    with pytest.raises(ExportError, match="not empty"):
        export_lean_project(chain[0], chain[1], tmp_path / "out")
    assert (tmp_path / "out" / "notes.txt").read_text() == "mine"


def test_failed_export_leaves_no_half_written_directory(chain, tmp_path, monkeypatch):
    contract, commits = chain
    export_lean_project(contract, commits[:1], tmp_path / "out")
    before = _tree(tmp_path / "out")

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(outputs.os, "rename", boom)
    with pytest.raises(outputs.OutputError, match="No space left on device"):
        export_lean_project(contract, commits, tmp_path / "out")
    assert _tree(tmp_path / "out") == before and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_commits_out_of_chain_order_are_refused(chain, tmp_path):
    contract, commits = chain
    with pytest.raises(ExportError, match="chain order"):
        export_lean_project(contract, [commits[0], commits[2]], tmp_path / "out")
    assert not (tmp_path / "out").exists()
