"""Real Lean 4 runs (marker `lean`): `lake build` on an export and the checker on accepted/rejected files.

Skipped with the reason wherever no working toolchain exists (e.g. this machine: no elan toolchain
can be installed offline). These are the only tests whose success means Lean accepted something.
"""

from __future__ import annotations

import hashlib
import re
import subprocess

import pytest

from mathloop.domain import Verdict
from mathloop.verify.lean import check_source, discover

pytestmark = pytest.mark.lean

_TC = discover()
needs_lean = pytest.mark.skipif(not _TC.available, reason=f"no Lean toolchain: {_TC.reason}")


@pytest.fixture(scope="module")
def seed():
    from tests.support.lean_evidence import lc_evidence

    return lc_evidence(["0", "1"], ["1", "-1"], "13/10")


@needs_lean
def test_real_lean_accepts_the_rendered_seed_certificate(seed):
    from mathloop.verify.lean_commit import check_commit

    st = check_commit(seed[0], "ab" * 32, seed[1], toolchain=_TC)
    assert st.status == "checked", st.messages
    assert set(st.axioms) <= {"propext", "Classical.choice", "Quot.sound"}


@needs_lean
def test_real_lean_rejects_a_false_claim():
    res = check_source("namespace T\ntheorem t : 2 ≤ 1 := by decide\nend T\n", ["T.t"], toolchain=_TC)
    assert res.verdict is Verdict.REFUTED and res.messages


@needs_lean
def test_real_lean_rejects_a_false_certificate_inequality():
    src = "namespace T\ntheorem t : (123456789123456789123456789 : Nat) ≤ 123456789123456789123456788 := by\n  decide +kernel\nend T\n"
    assert check_source(src, ["T.t"], toolchain=_TC).verdict is Verdict.REFUTED


@needs_lean
def test_lake_build_accepts_an_export(seed, tmp_path):
    from mathloop.export.lean_project import export_lean_project

    if _TC.kind != "lake":
        pytest.skip("needs `lake`, found only `lean`")
    contract, ev = seed
    h = hashlib.sha256(b"root").hexdigest()
    export_lean_project(contract, [{"hash": h, "parent": None, "seq": 0, "evidence": ev, "lean_status": None}], tmp_path / "x")
    build = subprocess.run([_TC.executable, "build"], cwd=tmp_path / "x", capture_output=True, text=True, timeout=1800)
    assert build.returncode == 0, build.stdout + build.stderr
    ax = subprocess.run([_TC.executable, "env", "lean", "Axioms.lean"], cwd=tmp_path / "x", capture_output=True,
                        text=True, timeout=600)
    assert ax.returncode == 0, ax.stdout + ax.stderr
    reports = re.findall(r"depends on axioms: \[([^\]]*)\]", ax.stdout)
    found = {a.strip() for r in reports for a in r.split(",") if a.strip()}
    assert found <= {"propext", "Classical.choice", "Quot.sound"}, found
