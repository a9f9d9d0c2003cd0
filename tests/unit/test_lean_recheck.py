"""Re-checking an export is anchored to mathloop's own support text, the manifest's derived files and the store.

Every should-refuse case here is refused before Lean runs (no kernel needed); the acceptance case of
issue 19 — `band`, `zble`, `zbeq`, `qlt` replaced by `Bool.true`, one k0 changed to 3/4, manifest
re-hashed — also goes through `mathloop lean-check --export` in-process and must exit non-zero.
"""

from __future__ import annotations

import hashlib
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from mathloop.lean.export import export_project
from mathloop.lean.recheck import StoredCommit, check_project, problems
from mathloop.lean.support_modules import shared_modules
from mathloop.lean.toolchain import Toolchain
from mathloop.targets.levinson_conrey.lean_claims import render_commit
from mathloop.targets.levinson_conrey.target import LevinsonConrey
from tests.integration.cli import invoke
from tests.support.lean_evidence import lc_evidence

NO_LEAN = Toolchain("unavailable", reason="not needed: refused before Lean runs")
PAYLOADS = [{"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}, {"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5"}]


@pytest.fixture(scope="module")
def chain():
    commits, parent = [], None
    for seq, p in enumerate(PAYLOADS):
        contract, ev = lc_evidence(p["P"], p["Q"], p["R"])
        h = hashlib.sha256(f"{parent}{seq}".encode()).hexdigest()
        commits.append({"hash": h, "parent": parent, "seq": seq, "evidence": ev, "lean": None})
        parent = h
    return contract, commits


def _render(contract):
    return lambda h, ev: render_commit(contract, h, ev, Fraction(4, 7))


@pytest.fixture
def export(chain, tmp_path) -> Path:
    contract, commits = chain
    export_project(contract, commits, tmp_path / "x", _render(contract))
    return tmp_path / "x"


def _support() -> dict[str, str]:
    return {**shared_modules(), **LevinsonConrey.lean_support()}


def _rehash(root: Path) -> None:
    """Do what an attacker does after editing: recompute every hash in the manifest."""
    m = json.loads((root / "manifest.json").read_text())
    m["files"] = {rel: hashlib.sha256((root / rel).read_bytes()).hexdigest() for rel in m["files"]}
    (root / "manifest.json").write_text(json.dumps(m, indent=2, sort_keys=True) + "\n")


def _forge_exact_and_k0(root: Path) -> None:
    exact = (root / "Mathloop/Exact.lean").read_text()
    for fn in ("band", "zble", "zbeq", "qlt"):
        exact = re.sub(rf"(def {fn}\b[^\n]*?)(:=[^\n]*|\n(  \|[^\n]*\n)+)", r"\1 := fun _ _ => Bool.true\n", exact,
                       count=1)
    (root / "Mathloop/Exact.lean").write_text(exact)
    st = sorted(root.glob("Certs/*/Statement.lean"))[0]
    st.write_text(re.sub(r"def k0 : Frac := \([^)]*\)", "def k0 : Frac := (qp 3 4)", st.read_text()))
    _rehash(root)


def test_an_untouched_export_has_no_problem(export):
    assert problems(export, _support())[1] == []


def test_forged_support_with_rehashed_manifest_is_refused_naming_exact(export):
    _forge_exact_and_k0(export)
    res, rows = check_project(export, NO_LEAN, _support())
    assert res.label == "REFUSED" and rows == []
    assert "Mathloop/Exact.lean" in res.reason and "mathloop's own" in res.reason


def test_lean_check_export_cli_refuses_the_forgery_and_exits_1(export):
    _forge_exact_and_k0(export)
    result = invoke("lean-check", "--export", str(export), "--json")
    out = json.loads(result.stdout)
    assert result.exit_code == 1 and out["verdict"] == "REFUSED"
    assert "Mathloop/Exact.lean" in out["reasons"][0] and "commits" in out


def test_a_file_that_differs_from_the_manifest_is_refused_by_name(export):
    st = sorted(export.glob("Certs/*/Statement.lean"))[0]
    st.write_text(st.read_text().replace("def k0", "def k0 ", 1))
    found = problems(export, _support())[1]
    assert found == [f"file differs from the manifest: {st.relative_to(export).as_posix()}"]


@pytest.mark.parametrize("rel", ["Certs.lean", "Axioms.lean", "lakefile.toml", "README.md"])
def test_a_rehashed_edit_of_a_derived_file_is_refused(export, rel):
    (export / rel).write_text((export / rel).read_text() + "-- extra\n")
    _rehash(export)
    assert any(p.startswith(f"{rel} differs from what mathloop writes") for p in problems(export, _support())[1])


def test_an_unlisted_lean_file_and_a_missing_file_are_refused(export):
    (export / "Certs" / "Extra.lean").write_text("theorem x : True := True.intro\n")
    (export / "Axioms.lean").unlink()
    found = problems(export, _support())[1]
    assert "a Lean file the manifest does not list: Certs/Extra.lean" in found
    assert "file listed in the manifest is missing: Axioms.lean" in found


def test_a_shadowing_definition_in_a_statement_is_refused(export):
    st = sorted(export.glob("Certs/*/Statement.lean"))[0]
    forged = "open Mathloop\n\ndef zble (a b : Int) : Bool := Bool.true\n"
    st.write_text(st.read_text().replace("open Mathloop\n", forged))
    _rehash(export)
    res, _ = check_project(export, NO_LEAN, _support())
    assert res.label == "UNKNOWN"  # the files agree with the manifest; the name scan runs with Lean (below)
    from mathloop.lean.check import check_source
    from mathloop.lean.names import declared_in

    text = st.read_text()
    res = check_source(text + "\ntheorem t : True := True.intro\n", toolchain=NO_LEAN,
                       protected=declared_in(_support().values()))
    assert res.refused and "Mathloop.zble" in res.reason


def _stored(chain, **changes) -> dict[str, StoredCommit]:
    contract, commits = chain
    out = {}
    for c in commits:
        r = _render(contract)(c["hash"], c["evidence"])
        out[c["hash"]] = StoredCommit(hashlib.sha256(c["evidence"].canonical_bytes()).hexdigest(), r.file_sha256s(),
                                      r.sha256, r.sha256)
    return {**out, **changes}


def test_with_the_store_an_export_of_its_commits_has_no_problem(export, chain):
    assert problems(export, _support(), _stored(chain))[1] == []


def test_with_the_store_a_rehashed_statement_edit_is_refused(export, chain):
    st = sorted(export.glob("Certs/*/Statement.lean"))[0]
    st.write_text(st.read_text().replace("def k0", "def k0 ", 1))
    _rehash(export)
    assert problems(export, _support())[1] == []  # without the store nothing anchors a Statement but Lean
    found = problems(export, _support(), _stored(chain))[1]
    assert any(p.startswith(f"{st.relative_to(export).as_posix()} differs from the rendering") for p in found)


def test_with_the_store_a_commit_it_does_not_hold_is_refused(export, chain):
    h = chain[1][0]["hash"]
    stored = _stored(chain)
    del stored[h]
    assert f"manifest.json: commit {h[:16]} is not a commit of this contract in the store" in \
        problems(export, _support(), stored)[1]
