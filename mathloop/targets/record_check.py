"""Re-certify a constant's stored constructions (data/records.toml) with the target's own checker.

Used by the tests (and bench_records) that hold every `certified` string of every records file to what the checker
certifies today; on the command line each entry's `mathloop check` command re-certifies it. Each construction
file is read as `mathloop check --candidate FILE` reads it (the target's `read_candidate_file`)
and checked under the first of the target's shipped contracts whose limits admit it (e.g. a set in C7^⊠10 under
shannon-capacity-c7-wide, not the n ≤ 6 contract).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from mathloop.bounded import InputError
from mathloop.targets.base import Malformed, Target
from mathloop.targets.records import construction_file, outward, published_records


@dataclass(frozen=True)
class Recertified:
    """What the checker gave for one stored construction.

    Attributes:
        file: the construction file's name.
        contract: the contract it was checked under ("" when none admitted it).
        value: the certified bound (exact), or None when the check certified none.
        shown: `value` rounded outward to 12 digits (the records file's `certified` form), "" without a value.
        reasons: why nothing was certified (empty when certified).
    """

    file: str
    contract: str
    value: Fraction | None
    shown: str
    reasons: tuple[str, ...] = ()


def recertify(target_class: type[Target], file: str) -> Recertified:
    """Return the checker's certified value for one construction file of the class's records."""
    from mathloop.targets import build_target, load_contract

    records = published_records(target_class)
    if records is None:
        raise ValueError(f"{target_class.name} declares no records")
    bound = records.constant.bound
    path = Path(str(construction_file(target_class, file)))
    why: list[str] = []
    entry = next((p for p in records.published if p.construction == file), None)
    # a recursive construction names its own contract (another target of the same constant); else the class's own
    names = [entry.contract] if entry is not None and entry.contract else _contract_names(target_class)
    for name in names:
        target = build_target(load_contract(name))
        try:
            candidate = target.parse(target.read_candidate_file(path))
        except (Malformed, InputError) as e:
            why.append(f"{name}: {e}")
            continue
        ev = target.check(None, candidate)
        value = ev.bounds.get(bound)
        if value is None:
            return Recertified(file, name, None, "", tuple(ev.reasons()) or ("no bound certified",))
        return Recertified(file, name, value, outward(value, records.constant.direction))
    return Recertified(file, "", None, "", tuple(why) or ("no contract of the target",))


def _contract_names(target_class: type[Target]) -> list[str]:
    return [f.removesuffix(".toml") for f in target_class.contract_files]
