"""The wide ceiling's local proposer improves the ceiling by itself: a short session from an empty store (real CLI)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.integration.cli import mathloop, mathloop_json

pytest.importorskip("threadpoolctl")


@pytest.mark.slow  # a real session (LP, mixing, Arb check) and an audit: ~20 s
def test_a_session_from_an_empty_store_commits_a_ceiling_the_proposer_made_by_lp_and_mixing(tmp_path):
    from mathloop.store.engine import make_engine
    from mathloop.store.repository import Repository

    db = str(tmp_path / "store.db")
    proc = mathloop("run", "pair-correlation-rh-ceiling-wide", "--db", db, "--budget", "1", "--time-limit", "300",
                    "--no-lean", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    st = mathloop_json("status", "pair-correlation-rh-ceiling-wide", "--db", db)
    ceiling = Fraction(st["head"]["bounds_exact"]["ceiling"])
    assert st["head"]["seq"] == 1 and ceiling < Fraction(759, 1000)  # below the contract's seed
    repo = Repository(make_engine(db))
    head = repo.head(repo.lineages("pair-correlation-rh-ceiling-wide")[0].sha256)
    cand = repo.candidate(head.candidate_id)
    meta = cand.meta
    # made in the session by the local proposer: its own LP (lp_ceiling within 1e-5 of the certified value) mixed
    # with the same rows at a larger margin; no replayed file
    assert cand.proposer == "local" and meta["how"].startswith("lam = ") and "margin" in meta["how"]
    assert 0 < ceiling - Fraction(meta["lp_ceiling"]) < Fraction(1, 10**5)
    audit = mathloop("audit", "pair-correlation-rh-ceiling-wide", "--db", db)
    assert audit.returncode == 0 and "ok" in audit.stdout, audit.stdout + audit.stderr
