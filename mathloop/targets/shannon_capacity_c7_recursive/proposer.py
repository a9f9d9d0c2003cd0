"""The local proposer: product trees of the head's first gadget, searched by dynamic programming over dimensions.

For the head's first gadget G (profile checked by the target) and its swap σG, the best few profiles (by |I|) of each
dimension k·n are built from pairs of smaller ones by Gao's Lemma 1, both orders; the tree whose |I|^{1/(k·n)} is
largest is proposed as a construction (only product and swap steps, the head's gadget unchanged) when it beats the
head. Trees are proposed, not certified: the checker decides.
"""

from __future__ import annotations

from typing import Any

from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.seed_proposal import seed_proposals
from mathloop.targets.shannon_capacity_c7 import graph
from mathloop.targets.shannon_capacity_c7_recursive import gadget as gd
from mathloop.targets.shannon_capacity_c7_recursive import recursion
from mathloop.targets.shannon_capacity_c7_recursive.gadget import Profile

KEEP = 4  # profiles kept per dimension
MAX_MULTIPLE = 64  # dimensions up to 64 times the gadget's


def best_tree(base: Profile, multiples: int) -> tuple[int, Any]:
    """Return (k, tree) maximising |I|^{1/k} over product trees with k leaves; a tree is "G", "σG" or (left, right)."""
    table: dict[int, list[tuple[Profile, Any]]] = {1: [(base, "G"), (base.swapped(), "σG")]}
    for k in range(2, multiples + 1):
        found: dict[tuple[int, ...], tuple[Profile, Any]] = {}
        for i in range(1, k):
            for pl, tl in table[i]:
                for pr, tr in table[k - i]:
                    p = recursion.gao(pl, pr)
                    key = (p.a, p.t, p.s, p.o, p.h, p.v)
                    found.setdefault(key, (p, (tl, tr)))
        table[k] = sorted(found.values(), key=lambda pt: (pt[0].a, pt[0].o), reverse=True)[:KEEP]
    best_k = max(table, key=lambda k: graph.certified_root(table[k][0][0].a, k, 15))
    return best_k, table[best_k][0][1]


def construction(gadget: dict[str, Any], tree: Any) -> dict[str, Any]:
    """Return the construction payload that builds `tree` from `gadget` (shared subtrees named once)."""
    name = gadget["name"]
    steps: list[dict[str, Any]] = []
    names: dict[Any, str] = {"G": name}

    def build(t: Any) -> str:
        if t in names:
            return names[t]
        if t == "σG":
            names[t] = f"s{name}"
            steps.append({"name": names[t], "op": "swap", "of": name})
            return names[t]
        left, right = build(t[0]), build(t[1])
        names[t] = f"T{len(steps)}"
        steps.append({"name": names[t], "op": "product", "left": left, "right": right})
        return names[t]

    result = build(tree)
    return {"gadgets": [gadget], "steps": steps, "result": result}


class TreeProposer(Proposer):
    """Deterministic proposer (the seed is not needed: the search is exhaustive over its kept profiles)."""

    name = "local"

    def __init__(self, target: Any, seed: int) -> None:
        self.target = target

    def propose(self, ctx: Context) -> list[Proposal]:
        """Return the best product tree of the head's first gadget when it is new (else [])."""
        if ctx.head is None:
            return seed_proposals(self.target, self.name, ctx, {"stage": "seed"})
        state = ctx.head.state
        gadget = state["gadgets"][0]
        parsed = self.target.parse({"gadgets": [gadget], "result": gadget["name"]})
        fails, sets = gd.definition_failures(parsed.gadgets[0])
        if fails:
            return []
        n = sets.n
        k, tree = best_tree(gd.profile(sets), min(MAX_MULTIPLE, self.target.limits.max_dimension // n))
        payload = construction(gadget, tree)
        if payload_sha(payload) in ctx.seen:
            return []
        return [Proposal(payload, self.name, {"stage": "product tree", "leaves": k, "dimension": k * n})]
