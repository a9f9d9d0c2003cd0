"""Lean attestations: a clean chain verifies; an edited, inserted or deleted attestation is found and names its commit."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlmodel import create_engine

from mathloop.lean import attest

C = "c" * 64
H1, H2 = "1" * 64, "2" * 64


def _checked(h: str, **kw) -> attest.Attestation:
    base = dict(kind="bundled", lean_version="4.35.0", lean_commit="eb6cafb7", prelude_sha256="p" * 64,
                artifact_sha256="a" * 64, file_sha256s={"x.lean": "f" * 64}, axioms=(), seconds=0.25)
    return attest.Attestation(h, "checked", **{**base, **kw})


@pytest.fixture
def engine(tmp_path):
    e = create_engine(f"sqlite:///{tmp_path / 's.db'}")
    attest.record(e, C, _checked(H1))
    attest.record(e, C, attest.Attestation(H2, "unavailable", reasons=("no Lean",)))
    attest.record(e, C, _checked(H2))
    return e


COMMITS = {H1: 0, H2: 1}


def test_a_clean_chain_verifies_and_the_latest_attestation_is_the_status(engine):
    assert attest.verify_chain(engine, C, COMMITS, lambda h: "a" * 64) == []
    st = attest.statuses(engine, C, [H1, H2, "9" * 64])
    assert [st[h]["status"] for h in (H1, H2, "9" * 64)] == ["checked", "checked", "pending"]
    assert st[H1]["seconds"] == 0.25 and st[H1]["kind"] == "bundled"


@pytest.mark.parametrize("sql,needle", [
    ("UPDATE lean_attestations SET status = 'refuted' WHERE seq = 2", "status was edited"),
    ("UPDATE lean_attestations SET body = replace(body, '\"checked\"', '\"refuted\"'), status = 'refuted' "
     "WHERE seq = 2", "hash mismatch"),
    ("DELETE FROM lean_attestations WHERE seq = 1", "chain broken"),
    ("UPDATE lean_attestations SET seq = seq + 10 WHERE seq = 2", "chain broken"),
])
def test_an_edited_or_deleted_attestation_fails_and_names_the_commit(engine, sql, needle):
    with engine.begin() as con:
        con.execute(text(sql))
    problems = attest.verify_chain(engine, C, COMMITS)
    assert problems and any(needle in p.problem for p in problems) and problems[0].commit in (H1, H2)


def test_a_checked_attestation_without_a_lean_or_with_a_foreign_axiom_fails(tmp_path):
    e = create_engine(f"sqlite:///{tmp_path / 'f.db'}")
    attest.record(e, C, _checked(H1, axioms=("sorryAx",)))
    attest.record(e, C, _checked(H2, kind=""))
    problems = attest.verify_chain(e, C, COMMITS)
    assert [p.commit for p in problems] == [H1, H2]


def test_an_attestation_about_another_rendering_or_commit_fails(engine):
    problems = attest.verify_chain(engine, C, {H1: 0}, lambda h: "b" * 64)
    assert {p.commit for p in problems} == {H1, H2}
    assert any("different Lean rendering" in p.problem for p in problems)
    assert any("not in this lineage" in p.problem for p in problems)


def test_pending_is_never_recorded(engine):
    with pytest.raises(ValueError, match="not recorded"):
        attest.record(engine, C, attest.Attestation(H1, "pending"))


# Contradictions between well-formed attestations: tests/unit/test_lean_status_contradictions.py (the audit's one check).
