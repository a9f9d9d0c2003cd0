"""Lean status of one commit: render it through its target, check it with a real Lean, attest the result.

The one place where Lean failing to answer (crash, timeout) is handled: the commit stays `pending`
(nothing is recorded) with the reason. Never `checked` unless a real Lean kernel accepted exactly
the rendered file, compiled against mathloop's own shared support text and the target package's,
and the statement certifies exactly the commit's bounds (a target whose evidence claims
kappa = 408/1000 over a certificate for k0 = 0.3868 is `refuted`, with the reason, before Lean runs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol

from sqlalchemy.engine import Engine

from mathloop.domain import Evidence, Verdict
from mathloop.lean import attest
from mathloop.lean.check import LeanCrash, check_source
from mathloop.lean.library import LibraryError, support_path
from mathloop.lean.names import declared_in
from mathloop.lean.render import RenderedCommit, RenderError, bound_mismatch
from mathloop.lean.support_modules import SupportError, anchored
from mathloop.lean.toolchain import Toolchain, discover

DEFAULT_TIMEOUT_S = 600


class Target(Protocol):
    """What the Lean layer needs from a target (the Target class of `mathloop.targets.base` has it)."""

    name: str
    contract: Any

    def lean_render(self, commit_hash: str, evidence: Evidence) -> RenderedCommit | None: ...

    def lean_support(self) -> Mapping[str, str]: ...


@dataclass(frozen=True)
class Outcome:
    """What checking one commit gave: its status and, unless `pending`, the attestation to record."""

    status: str
    attestation: attest.Attestation | None
    reasons: tuple[str, ...] = ()


def check_commit(target: Target, commit_hash: str, evidence: Evidence, *, toolchain: Toolchain | None = None,
                 timeout_s: float | None = None) -> Outcome:
    """Return the commit's Lean outcome (renders it, then checks it where a Lean exists)."""
    try:
        rendered = target.lean_render(commit_hash, evidence)
    except (RenderError, SupportError) as e:
        why = (f"rendering failed: {e}",)
        return Outcome("refuted", attest.Attestation(commit_hash, "refuted", kind="render", reasons=why), why)
    if rendered is None:
        why = (f"target {target.name} renders no Lean for this commit",)
        return Outcome("not_rendered", attest.Attestation(commit_hash, "not_rendered", reasons=why), why)
    refusal = refused(target, rendered, evidence)
    if refusal is not None:
        why = (refusal,)
        return Outcome("refuted", attest.Attestation(commit_hash, "refuted", kind="render",
                                                     artifact_sha256=rendered.sha256, reasons=why), why)
    tc = toolchain if toolchain is not None else discover()
    files = rendered.file_sha256s()
    if not tc.available:
        why = (tc.reason,)
        return Outcome("unavailable", attest.Attestation(commit_hash, "unavailable", artifact_sha256=rendered.sha256,
                                                         file_sha256s=files, reasons=why), why)
    limit = timeout_s or float(target.contract.lean_timeout_s or DEFAULT_TIMEOUT_S)
    try:
        support = support_path(tc, dict(rendered.support_texts or {}))
    except LibraryError as e:
        return Outcome("pending", None, (str(e),))
    try:
        res = check_source(rendered.check_source(), rendered.theorems, toolchain=tc, timeout_s=limit,
                           lean_path=(support,), protected=declared_in((rendered.support_texts or {}).values()))
    except LeanCrash as e:
        tail = (e.stderr or e.stdout or "").strip().splitlines()[-3:]
        return Outcome("pending", None, (f"Lean did not answer: {e}", *tail))
    if res.verdict is Verdict.UNKNOWN:
        return Outcome("pending", None, (res.reason,))
    status = "checked" if res.verdict is Verdict.PROVED else "refuted"
    att = attest.Attestation(commit_hash, status, tc.kind, tc.version, tc.commit, tc.prelude_sha256, rendered.sha256,
                             {**files, "check.lean": res.file_sha256}, res.all_axioms(), res.seconds,
                             (res.reason, *res.messages))
    return Outcome(status, att, (res.reason,))


def refused(target: Target, rendered: RenderedCommit, evidence: Evidence) -> str | None:
    """Return why a rendering cannot be checked as the commit's (None: it can).

    Its support modules must be mathloop's own shared text or the target package's, and its statement
    must certify exactly the commit's bounds.
    """
    try:
        problems = anchored(rendered.support_texts or {}, target.lean_support())
    except SupportError as e:
        return f"support module refused: {e}"
    if problems:
        return f"support module refused: {problems[0]}"
    return bound_mismatch(rendered, evidence.bounds)


def check_and_record(engine: Engine, contract_sha: str, target: Target, commit_hash: str, evidence: Evidence,
                     toolchain: Toolchain | None = None) -> Outcome:
    """Return the commit's outcome after appending its attestation (none for `pending`)."""
    out = check_commit(target, commit_hash, evidence, toolchain=toolchain)
    if out.attestation is not None:
        attest.record(engine, contract_sha, out.attestation)
    return out


def rerun(engine: Engine, contract_sha: str, target: Target, commits: list[tuple[str, Evidence]],
          toolchain: Toolchain | None = None) -> list[attest.Problem]:
    """Return the commits whose latest `checked`/`refuted` attestation a fresh Lean run does not reproduce."""
    last = attest.latest(engine, contract_sha)
    problems = []
    for h, ev in commits:
        att = last.get(h)
        if att is None or att.status not in ("checked", "refuted"):
            continue
        out = check_commit(target, h, ev, toolchain=toolchain)
        if out.status == "pending":
            problems.append(attest.Problem(h, f"Lean re-run did not answer: {out.reasons[0] if out.reasons else ''}"))
        elif out.status != att.status:
            problems.append(attest.Problem(h, f"Lean re-run says {out.status}, the attestation says {att.status}"))
    return problems
