"""The bracket [best primal, best ceiling] between a lower-bound lineage and its ceiling lineage in one store.

`pair-correlation-rh` certifies lower bounds B(r) <= best value of its class; `pair-correlation-rh-ceiling`
certifies ceilings 2 - L >= every B(r). In one store the heads of the two lineages bracket the class's
best value. An implementation may ship several lineages (contracts with other limits, e.g.
`pair-correlation-rh-ceiling-wide`): the partner side is the best head over every lineage the partner's own
distribution ships (the lowest ceiling, the highest primal). A candidate that would cross the other side (a
primal above the best ceiling, a ceiling below the best primal) means one of the two checkers is wrong:
`limits` gives the partner's bound as a `Limit` that `gate.decide` enforces (an `error`, never a commit),
naming the partner's lineage and commit and this lineage's head.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from mathloop.contract.model import Contract, ContractError
from mathloop.domain import Evidence, decimal_str

DIGITS = 10


@dataclass(frozen=True)
class Side:
    """One side of a bracket: the lineage, its bound name, the head's certified value and commit."""

    contract: str
    bound: str
    value: Fraction | None
    commit: str | None


@dataclass(frozen=True)
class Bracket:
    """The certified bracket of a class's best value (the primal is a lower end, the ceiling an upper end)."""

    primal: Side
    ceiling: Side

    @property
    def width(self) -> Fraction | None:
        if self.primal.value is None or self.ceiling.value is None:
            return None
        return self.ceiling.value - self.primal.value

    @property
    def consistent(self) -> bool:
        return self.width is None or self.width >= 0

    def text(self) -> str:
        """Return "[0.6792816128, 0.6974510000] (width 0.0181693872)" rounded outward, or what is missing."""
        lo = "?" if self.primal.value is None else decimal_str(self.primal.value, DIGITS)
        hi = "?" if self.ceiling.value is None else decimal_str(self.ceiling.value, DIGITS, round_down=False)
        w = self.width
        out = f"[{lo}, {hi}]"
        if w is not None:
            out += f" (width {decimal_str(w, DIGITS, round_down=False)})"
        if not self.consistent:
            out += (f" INCONSISTENT: ceiling commit {self.ceiling.commit} is below primal commit {self.primal.commit};"
                    " one of the two checkers is wrong")
        return out

    def to_json(self) -> dict[str, Any]:
        def side(s: Side) -> dict[str, Any]:
            return {"contract": s.contract, "bound": s.bound, "value": None if s.value is None else str(s.value),
                    "commit": s.commit}

        w = self.width
        return {"primal": side(self.primal), "ceiling": side(self.ceiling), "width": None if w is None else str(w),
                "consistent": self.consistent, "text": self.text()}


@lru_cache(maxsize=1)
def pairs() -> tuple[tuple[str, str, str, str], ...]:
    """Return (primal implementation, its bound, ceiling implementation, its bound) for every registered
    target that declares itself a ceiling (`Target.ceiling_of`); the shipped contracts carry these names.

    A declaration counts only from the distribution that registers the primal (a plug-in cannot make itself the
    bracket partner, hence the gate limits, of a target it does not ship); see `pair_of` for a primal with two.
    """
    from mathloop.targets.registry import registered, target_class

    regs = registered()
    out = []
    for key in sorted(regs):
        try:
            declared = target_class(key).ceiling_of
        except ContractError:  # a broken plug-in brackets nothing (it is refused where it is used)
            continue
        if declared is not None:
            primal, primal_bound, own_bound = declared
            owner = regs.get(primal)
            if owner is not None and owner.distribution != regs[key].distribution:
                continue  # another distribution's claim on this primal: never its partner
            out.append((primal, primal_bound, key, own_bound))
    return tuple(out)


def pair_of(contract: Contract) -> tuple[str, str, str, str, bool] | None:
    """Return (primal, primal bound, ceiling, ceiling bound, is_primal) for a contract in a pair, else None.

    Raises:
        ContractError: the contract's primal has more than one ceiling (refused, never chosen silently).
    """
    all_pairs = pairs()
    for p, pb, c, cb in all_pairs:
        if contract.target in (p, c):
            ceilings = sorted({c2 for p2, _, c2, _ in all_pairs if p2 == p})
            if len(ceilings) > 1:
                raise ContractError(contract.path, "target.implementation",
                                    f"target {p!r} has more than one bracket ceiling ({', '.join(ceilings)}): "
                                    "refused, never chosen silently")
            return p, pb, c, cb, contract.target == p
    return None


@lru_cache(maxsize=8)
def _partner_contracts(implementation: str) -> tuple[Contract, ...]:
    """Return the lineages of a bracket partner: every contract its own distribution ships for it.

    Only the registering distribution's files count (as for `ceiling_of`): a plug-in shipping a contract for a
    mathloop target does not become one side of mathloop's bracket, nor does a user contract.
    """
    from mathloop.targets import load_contract
    from mathloop.targets.catalogue import shipped_contracts
    from mathloop.targets.registry import registered

    owner = registered().get(implementation)
    if owner is None:
        return ()
    out = []
    for shipped in shipped_contracts():
        if shipped.implementation == implementation and shipped.distribution == owner.distribution:
            try:
                out.append(load_contract(shipped.name))
            except ContractError:  # refused where it is used; it brackets nothing
                continue
    return tuple(out)


def _side(repo: Any, contract: Contract | None, name: str, bound: str) -> Side:
    head = repo.head(contract.sha256) if contract is not None else None
    value = head.bounds.get(bound) if head is not None else None
    return Side(contract.name if contract is not None else name, bound, value,
                head.hash if head is not None and value is not None else None)


def _best_side(repo: Any, implementation: str, bound: str, lowest: bool) -> Side:
    """Return the partner's side: its best certified head over its lineages (the lowest ceiling, the highest primal)."""
    sides = [s for s in (_side(repo, c, implementation, bound) for c in _partner_contracts(implementation))
             if s.value is not None]
    if not sides:
        return Side(implementation, bound, None, None)
    return (min if lowest else max)(sides, key=lambda s: (s.value, s.contract))


def bracket(repo: Any, contract: Contract) -> Bracket | None:
    """Return the bracket of the contract's class in this store (None if the contract is in no pair): this
    lineage's head against the partner's best head over all its lineages."""
    pair = pair_of(contract)
    if pair is None:
        return None
    p, pb, c, cb, is_primal = pair
    if is_primal:
        return Bracket(_side(repo, contract, p, pb), _best_side(repo, c, cb, lowest=True))
    return Bracket(_best_side(repo, p, pb, lowest=False), _side(repo, contract, c, cb))


@dataclass(frozen=True)
class Limit:
    """A partner lineage's certified bound that this lineage's bound may not cross (read once per round).

    Attributes:
        bound: this lineage's bound name.
        value: the partner head's certified value.
        upper: True when this bound may not exceed `value` (a primal under its ceiling), False when it may
            not fall below it (a ceiling above its primal).
        partner: the partner lineage (contract name) holding that value; partner_bound its bound name.
        partner_commit: the partner head's commit; head: this lineage's head the candidate is checked against.
    """

    bound: str
    value: Fraction
    upper: bool
    partner: str
    partner_bound: str
    partner_commit: str | None
    head: str | None = None

    def crossed_by(self, evidence: Evidence) -> str | None:
        """Return why `evidence` certifies a value on the wrong side of this limit, else None."""
        value = evidence.bounds.get(self.bound)
        if value is None:
            return None
        if self.upper and value > self.value:
            return (f"certified {self.bound} {decimal_str(value, DIGITS)} is above the certified ceiling "
                    f"{decimal_str(self.value, DIGITS, round_down=False)} of {self.partner} (commit "
                    f"{self.partner_commit}), checked against head {self.head}: one of the two checkers is wrong, refused")
        if not self.upper and value < self.value:
            return (f"certified {self.bound} {decimal_str(value, DIGITS, round_down=False)} is below the certified "
                    f"primal {decimal_str(self.value, DIGITS)} of {self.partner} (commit {self.partner_commit}), "
                    f"checked against head {self.head}: one of the two checkers is wrong, refused")
        return None


def limits(repo: Any, contract: Contract, head_commit: str | None = None) -> tuple[Limit, ...]:
    """Return the partner bounds this contract's bounds may not cross in this store (empty outside a pair)."""
    b = bracket(repo, contract)
    if b is None:
        return ()
    is_primal = pair_of(contract)[4]  # type: ignore[index]
    mine, other = (b.primal, b.ceiling) if is_primal else (b.ceiling, b.primal)
    if other.value is None:
        return ()
    return (Limit(mine.bound, other.value, is_primal, other.contract, other.bound, other.commit, head_commit),)


def guard(repo: Any, contract: Contract, evidence: Evidence, head_commit: str | None) -> str | None:
    """Return why a candidate's certified bound crosses the partner's best certified bound, else None."""
    for limit in limits(repo, contract, head_commit):
        why = limit.crossed_by(evidence)
        if why:
            return why
    return None
