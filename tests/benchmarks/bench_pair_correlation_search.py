"""Search driver for `pair-correlation` and `pair-correlation-rh` with an in-memory head.

Runs the local proposer -> parse -> check -> order.compare loop without the store and prints
every commit (certified bound, label, wall time). Usage:

    python tests/benchmarks/bench_pair_correlation_search.py pair-correlation [time_limit_s]
    python tests/benchmarks/bench_pair_correlation_search.py pair-correlation-rh [time_limit_s]
"""

from __future__ import annotations

import sys
import time

import mpmath

from mathloop.targets import load_contract
from mathloop.domain import Scores
from mathloop.order import compare
from mathloop.propose.base import Context, Head, payload_sha
from mathloop.targets import build_target


def dec(b) -> str:
    """Return a 25-digit decimal of a Fraction."""
    with mpmath.workdps(40):
        return mpmath.nstr(mpmath.mpf(b.numerator) / b.denominator, 25)


def run(name: str, time_limit: float) -> None:
    contract = load_contract(name)
    target = build_target(contract)
    specs = {b.name: b for b in contract.bounds}
    proposer = target.local_proposer(0)
    head, scores, seen = None, None, set()
    start = time.perf_counter()
    payloads = [contract.seed]
    rnd = 0
    while time.perf_counter() - start < time_limit:
        for payload in payloads:
            seen.add(payload_sha(payload))
            t0 = time.perf_counter()
            cand = target.parse(payload)
            ev = target.check(head.state if head else None, cand)
            t_check = time.perf_counter() - t0
            cmp = compare(scores, Scores.of(ev), specs)
            b = ev.bounds.get("proportion")
            print(
                f"[{time.perf_counter() - start:8.2f}s] {cmp.label.value:12s} check {t_check:6.3f}s "
                f"B = {dec(b) if b else None}  {target.state_summary(ev.state)[:60]}",
                flush=True,
            )
            if cmp.passes_gate:
                scores = Scores.of(ev)
                head = Head(commit=str(rnd), seq=rnd, state=ev.state, ranks=ev.ranks, bounds=dict(ev.bounds))
        ctx = Context(contract, head, tuple(k for k, v in (head.ranks if head else {}).items() if v), (), frozenset(seen), rnd)
        rnd += 1
        payloads = [p.payload for p in proposer.propose(ctx)]
        if not payloads:
            print("proposer has nothing more to offer")
            break
    b = head.bounds["proportion"]
    print(f"final certified B = {b.numerator}/{b.denominator}")
    print(f"               ~= {dec(b)}; wall {time.perf_counter() - start:.1f}s")
    if name == "pair-correlation":
        with mpmath.workdps(50):
            bstar = mpmath.mpf(3) / 2 - mpmath.cot(1 / mpmath.sqrt(2)) / mpmath.sqrt(2)
            print(f"B* - B = {mpmath.nstr(bstar - mpmath.mpf(b.numerator) / b.denominator, 5)}")


if __name__ == "__main__":
    run(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 300.0)
