"""Lean claims of spencer-discrepancy: the kernel proves them for the 8×8 Hamming-type matrix and refuses a forged d."""

from __future__ import annotations

from dataclasses import replace
from importlib import resources

import pytest

from mathloop.domain import Verdict
from mathloop.lean.render import RenderError, without_imports
from mathloop.lean.support_modules import library_modules, shared_modules
from mathloop.targets import build_target, load_contract
from mathloop.targets.spencer_discrepancy.lean_claims import LEAN_MAX_N, lean_parts, render_commit

DATA = resources.files("mathloop.targets.spencer_discrepancy") / "data"


@pytest.fixture(scope="module")
def sd():
    return build_target(load_contract("spencer-discrepancy"))


def evidence(sd, name):
    return sd.check(None, sd.parse(sd.read_candidate_file(DATA / name)))


def forged(ev, d):
    cert = {**ev.artifacts["certificate"], "disc_times_denominator": str(d)}
    return replace(ev, artifacts={**ev.artifacts, "certificate": cert})


def source(ev):
    defs, claims, _ = lean_parts(ev)
    body = [d.text() for d in defs] + [c.statement_text() for c in claims] + [c.proof_text() for c in claims]
    src = "\n".join(["set_option maxRecDepth 100000", without_imports(shared_modules()["Mathloop.Exact"]),
                     without_imports(library_modules()["Mathloop.Discrepancy"]),
                     "namespace T\nopen Mathloop\nnoncomputable section", *body, "end\nend T\n"])
    return src, [f"T.{c.name}" for c in claims]


def test_parts_state_the_columns_the_scale_and_the_discrepancy(sd):
    defs, claims, r = lean_parts(evidence(sd, "hamming-type-8x8-1.767767.txt"))
    by = {d.name: d.value for d in defs}
    assert by["n"] == "8" and by["D"] == "1" and by["d"] == "5" and by["B"].count("List.cons (List.cons") == 8
    assert [c.name for c in claims] == ["shape", "discrepancy", "ratio_bound"]


def test_a_certificate_whose_bound_exceeds_its_discrepancy_does_not_render(sd):
    ev = evidence(sd, "hamming-type-8x8-1.767767.txt")
    with pytest.raises(RenderError, match="r exceeds"):
        lean_parts(forged(ev, 4))


def test_matrices_above_the_lean_size_are_not_rendered(sd):
    li = evidence(sd, "li-17x17-1.697749.txt")
    assert LEAN_MAX_N < 17 and render_commit(sd.contract, "ab" * 32, li) is None
    assert render_commit(sd.contract, "ab" * 32, evidence(sd, "xie-9x9-1.666667.txt")) is not None


@pytest.mark.lean
def test_kernel_proves_the_hamming_type_matrix_and_refuses_a_discrepancy_one_too_high(sd):
    from mathloop.lean.check import check_source

    ev = evidence(sd, "hamming-type-8x8-1.767767.txt")
    res = check_source(*source(ev))
    if res.verdict is Verdict.UNKNOWN:
        pytest.skip(res.reason)
    assert res.verdict is Verdict.PROVED, res.reason
    bad = check_source(*source(forged(ev, 6)))  # d = 6 > disc = 5, r unchanged (still below 6/√8)
    assert bad.verdict is Verdict.REFUTED and "discrepancy" in " ".join(bad.messages)
