"""Compose the after-commit Lean step: render the commit and check it, or mark it pending."""

from __future__ import annotations

from typing import Callable

from mathloop.contract import Contract
from mathloop.domain import Evidence
from mathloop.store.repository import CommitRecord, Repository


def lean_commit_hook(contract: Contract, repo: Repository) -> Callable[[CommitRecord, Evidence], None] | None:
    """Return a callback that records each commit's Lean status, or None if the Lean layer is absent."""
    try:
        from mathloop.verify.lean_commit import check_commit
    except ImportError:
        return None

    def hook(commit: CommitRecord, evidence: Evidence) -> None:
        try:
            st = check_commit(contract, commit.hash, evidence)
        except Exception as e:  # Lean failing to answer is recorded, never fatal to the search
            repo.set_lean_status(commit.hash, "error", messages=[f"{type(e).__name__}: {e}"])
            return
        if st.status == "not-applicable":
            return
        repo.set_lean_status(commit.hash, st.status, lean_version=st.lean_version, file_sha256=st.file_sha256,
                             axioms=st.axioms, messages=st.messages, seconds=st.seconds)

    return hook
