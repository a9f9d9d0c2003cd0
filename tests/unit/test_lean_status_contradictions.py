"""Lean status contradictions are checked once, by the audit on the attestation rows (audit/lineage), found
without a Lean re-run; the Lean layer's chain verification no longer repeats it. Should-refuse / should-pass pairs."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from sqlmodel import create_engine

from mathloop.lean import attest
from mathloop.audit.lineage import audit_lean_statuses
from tests.unit.test_lean_attest import C, COMMITS, H1, _checked


@pytest.fixture
def engine(tmp_path):
    e = create_engine(f"sqlite:///{tmp_path / 's.db'}")
    attest.record(e, C, _checked(H1))
    attest.record(e, C, attest.Attestation("2" * 64, "unavailable", reasons=("no Lean",)))
    attest.record(e, C, _checked("2" * 64))
    return e


def _found(engine):
    return audit_lean_statuses(C, SimpleNamespace(engine=engine))


def test_a_rehashed_refuted_appended_after_checked_is_found_once_without_a_rerun(engine):
    forged = _checked(H1)  # same rendering, same Lean: only the status differs
    attest.record(engine, C, attest.Attestation(H1, "refuted", forged.kind, forged.lean_version, forged.lean_commit,
                                                forged.prelude_sha256, forged.artifact_sha256, forged.file_sha256s))
    found = _found(engine)
    assert [f.commit for f in found] == [H1] and "same Lean on the same rendering" in found[0].problem
    assert found[0].table == "lean_attestations" and found[0].field == "status"
    assert attest.verify_chain(engine, C, COMMITS, lambda h: "a" * 64) == []  # the chain itself is intact


@pytest.mark.parametrize("forged", [
    attest.Attestation(H1, "refuted", kind="render", reasons=("rendering failed: forged",)),
    attest.Attestation(H1, "not_rendered", reasons=("renders nothing",)),
])
def test_a_later_attestation_without_a_rendering_contradicts_checked(engine, forged):
    attest.record(engine, C, forged)
    found = _found(engine)
    assert [f.commit for f in found] == [H1] and "without a rendering" in found[0].problem


def test_a_refuted_attestation_about_another_rendering_needs_a_rerun_to_settle(engine):
    attest.record(engine, C, attest.Attestation(H1, "refuted", artifact_sha256="b" * 64, reasons=("forged",)))
    [found] = _found(engine)
    assert "another Lean or rendering" in found.problem  # `audit --lean` settles it or keeps it
    problems = attest.verify_chain(engine, C, COMMITS, lambda h: "a" * 64)
    assert any("different Lean rendering" in p.problem for p in problems)  # and it is not today's rendering


def test_unavailable_then_checked_and_a_repeated_checked_are_not_contradictions(engine):
    attest.record(engine, C, _checked(H1))
    attest.record(engine, C, attest.Attestation(H1, "unavailable", reasons=("no Lean here",)))
    assert _found(engine) == []
