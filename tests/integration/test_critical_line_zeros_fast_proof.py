"""Slow tier: all zeros up to 10^5 proved with the fast path; 1,000 of its decided signs re-decided by Arb."""

from __future__ import annotations

from fractions import Fraction

import pytest
from flint import arb

from mathloop.targets import load_contract
from mathloop.domain import Scores
from mathloop.order import compare
from mathloop.propose.base import Context, Head, payload_sha
from mathloop.targets import build_target
from mathloop.targets.critical_line_zeros.hardy_z import FAST_PREC, definite
from tests.support.clz import V2_CONTRACT


def _prove(name: str, goal: int, samples: int):
    """Yield (parent state, payload, evidence) of every chunk the gate commits until the height reaches `goal`."""
    contract = load_contract(name)
    target = build_target(contract)
    specs = {b.name: b for b in contract.bounds}
    ev = target.check(None, target.parse(contract.seed))
    proposer = target.local_proposer(0)
    seen: set[str] = set()
    rnd = 0
    while ev.bounds.get("height", 0) < goal:
        head = Head(f"m{rnd}", rnd, ev.state, ev.ranks, ev.bounds)
        props = proposer.propose(Context(contract, head, ("blocks",), (), frozenset(seen), rnd, samples))
        assert props, "proposer exhausted"
        for p in props:
            new = target.check(ev.state, target.parse(p.payload))
            if not compare(Scores.of(ev), Scores.of(new), specs).passes_gate:
                seen.add(payload_sha(p.payload))
                break
            yield ev.state, p.payload, new
            ev = new
        rnd += 1


@pytest.mark.slow
def test_fast_path_proves_all_zeros_to_ten_to_the_five_and_agrees_with_arb_on_a_thousand_signs():
    fast_signs: list[tuple[str, str, int]] = []
    for _, _, ev in _prove(str(V2_CONTRACT), 10**5, 2):  # point lists: the balls are in the evidence
        art = ev.artifacts["chunk"]
        fast_signs += [("g", str(m), 1 if not mid.startswith("-") else -1) for m, mid, _, prec in art["gram"][::97] if prec == FAST_PREC]
        for b in art["blocks"][::41]:
            fast_signs += [("q", t, 1 if not mid.startswith("-") else -1) for t, mid, _, prec in b["points"] if prec == FAST_PREC]
    h = ev.bounds["height"]
    assert int((arb(h.numerator) / h.denominator).zeta_nzeros().unique_fmpz()) == ev.bounds["count"] >= 138069
    assert ev.precision["fast_z"]["decided"] > 0
    step = max(1, len(fast_signs) // 1000)
    sample = fast_signs[::step][:1000]
    assert len(sample) == 1000
    for kind, text, sign in sample:
        ref = definite(kind, int(text) if kind == "g" else Fraction(text), (64, 128, 256))
        assert ref.sign == sign, f"fast path sign {sign} but Arb {ref.sign} at {kind} {text}"


@pytest.mark.slow  # ~1 min of checks in one process: .ci/run's second tier
def test_compact_lineage_proves_all_zeros_to_ten_to_the_six_and_a_thousand_rederived_signs_agree_with_arb():
    from mathloop.targets.critical_line_zeros.certificate import Prefix
    from mathloop.targets.critical_line_zeros.derive import derive
    from mathloop.targets.critical_line_zeros.verify import verify_chunk

    target = build_target(load_contract("critical-line-zeros"))
    steps: list[tuple[dict, dict]] = []  # (parent state, range) of every committed chunk
    for state, payload, ev in _prove("critical-line-zeros", 10**6, 4):
        steps.append((state, payload))
        assert len(ev.to_json()["artifacts"]["chunk"]["groups"]) <= 5  # compact: ~3 kB per 20000 intervals
    h = ev.bounds["height"]
    assert int((arb(h.numerator) / h.denominator).zeta_nzeros().unique_fmpz()) == ev.bounds["count"] >= 1747146
    # Re-derive the balls of ten chunks spread over the proof (the evidence keeps only their hashes) and
    # re-decide 1,000 of their fast-path signs with Arb alone.
    fast_signs: list[tuple[str, str, int]] = []
    for state, rng in steps[5 :: max(1, len(steps) // 10)][:10]:
        st = {k: state[k] for k in ("last_gram_index", "blocks_verified", "tail", "bad_gram_points", "first_bad_gram", "longest_block")}
        chunk, gram = derive(target.parse(rng), target.settings.check.ladder, True)
        art = verify_chunk(chunk, Prefix(**{**st, "tail": tuple(st["tail"])}), target.settings.check, gram).artifact
        picked = [("g", str(m), 1 if not mid.startswith("-") else -1) for m, mid, _, prec in art["gram"][::211] if prec == FAST_PREC]
        picked += [("q", t, 1 if not mid.startswith("-") else -1) for b in art["blocks"] for t, mid, _, prec in b["points"]
                   if prec == FAST_PREC][::23]
        fast_signs += picked[:100]
    assert len(fast_signs) == 1000
    for kind, text, sign in fast_signs:
        ref = definite(kind, int(text) if kind == "g" else Fraction(text), (64, 128, 256))
        assert ref.sign == sign, f"fast path sign {sign} but Arb {ref.sign} at {kind} {text}"
