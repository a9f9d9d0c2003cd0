"""Records files (targets/records.py): strict loading, published_bounds derived from them, every stored construction
re-certified by its target's checker to the `certified` digits the file states."""

from __future__ import annotations

from fractions import Fraction

import pytest

from mathloop.contract.model import ContractError
from mathloop.targets import registered, target_class
from mathloop.targets.record_check import recertify
from mathloop.targets.records import construction_file, parse, published_records

GOOD = """
[constant]
table_id = "9a"
name = "x"
symbol = "X"
bound = "b"
direction = "lower"
definition = "https://example.org/9a.md"

[[published]]
who = "A"
value = "3.25"
date = "2026-07"
source = "s"
construction = "a.txt"
certified = "3.250000000000"

[[published]]
who = "B"
value = "3.26"
date = "2026-08-01"
source = "s"
why_not = "a recursive construction"
"""


SLOW_TO_CHECK = {"tandon-2026-3.258832-recursive.json"}  # small file, ~10 s of set-level counting (C1–C4)


def _classes_with_records():
    """Return the first class of each records file (shannon-capacity-c7-recursive shares shannon-capacity-c7's)."""
    out, files = [], set()
    for key, reg in sorted(registered().items()):
        if reg.own:
            cls = target_class(key)
            where = (cls.records_package, getattr(cls, "records_file", "records.toml"))
            if cls.constant_records() is not None and where not in files:
                files.add(where)
                out.append(cls)
    return out


def _stored_constructions():
    cases = []
    for cls in _classes_with_records():
        for p in cls.constant_records().published:
            if p.construction:
                size = len(construction_file(cls, p.construction).read_bytes())
                mark = [pytest.mark.slow] if size > 300_000 or p.construction in SLOW_TO_CHECK else []
                cases.append(pytest.param(cls.name, p.construction, p.certified, marks=mark,
                                          id=f"{cls.name}-{p.construction}"))
    return cases


def test_a_valid_records_file_gives_the_best_published_entry_in_its_direction():
    r = parse(GOOD, "x/records.toml")
    assert r.best.who == "B" and r.better(Fraction("3.3"), Fraction("3.26"))
    upper = parse(GOOD.replace('"lower"', '"upper"'), "x")
    assert upper.best.who == "A"


@pytest.mark.parametrize("old, new, key, why", [
    ('value = "3.25"', 'value = 3.25', "published[0].value", "decimal number written as a string"),
    ('value = "3.25"', 'value = "3,25"', "published[0].value", "decimal number"),
    ('date = "2026-07"', 'date = "July 2026"', "published[0].date", "ISO date"),
    ('why_not = "a recursive construction"', 'why_not = ""', "published[1].why_not", "say why"),
    ('construction = "a.txt"', 'construction = "../a.txt"', "published[0].construction", "no path"),
    ('direction = "lower"', 'direction = "down"', "constant.direction", "'upper' or 'lower'"),
    ('who = "A"', 'who = "A"\nscore = 1', "published[0].score", "unknown key"),
    ('certified = "3.250000000000"', 'certified = "3.250000000000"\nlean = "yes"', "published[0].lean", "checked"),
    ('why_not = "a recursive construction"', 'why_not = "a recursive construction"\nlean = "checked"',
     "published[1].lean", "only a certified construction"),
])
def test_a_bad_records_file_is_refused_naming_the_key(old, new, key, why):
    assert old in GOOD
    with pytest.raises(ContractError, match=why) as e:
        parse(GOOD.replace(old, new, 1), "x/records.toml")
    assert e.value.key == key and "\n" not in str(e.value)


def test_a_records_file_that_is_not_toml_is_refused():
    with pytest.raises(ContractError, match="not valid TOML"):
        parse("[constant\n", "x/records.toml")


def test_published_bounds_for_plots_are_the_records_files_entries():
    for cls in _classes_with_records():
        r = cls.constant_records()
        assert cls.published_bounds(r.constant.bound) == tuple((p.who, Fraction(p.value)) for p in r.published)
        assert cls.published_bounds("no-such-bound") == ()


def test_shannon_records_name_the_2026_papers_and_mark_the_recursive_ones_conditional():
    r = published_records(target_class("shannon-capacity-c7"))
    assert r.constant.table_id == "9a" and r.best.who == "Tandon" and r.best.value == "3.25883262"
    stored = {p.who: p.certified for p in r.published if p.construction}
    assert stored["Itty, Rosin, Carstensen, Reichman"] == "3.258020737293"
    assert all(p.why_not for p in r.published if not p.construction)
    recursive = {p.who: (p.certified, tuple(p.conditional_on)) for p in r.published if p.contract}
    assert recursive == {"Gao": ("3.258789153908", ("gao-product",)),
                         "Buys, Polak, Zuiddam": ("3.258805369885", ("gao-product",)),
                         "Buys, Polak, Zuiddam (multi-gadget recursion)": ("3.258827985920", ("bpz-combining",)),
                         "Tandon": ("3.258832620353", ("bpz-combining", "family-conversion", "gao-product",
                                                       "heterogeneous-product"))}
    assert published_records(target_class("shannon-capacity-c7-recursive")) == r
    tandon = next(p for p in r.published if p.who == "Tandon")
    assert tandon.construction and "C4 = 841,760,069,965,664" in tandon.source


def test_a_conditional_record_must_name_its_contract():
    bad = GOOD.replace('certified = "3.250000000000"', 'certified = "3.250000000000"\nconditional_on = ["x"]', 1)
    with pytest.raises(ContractError, match="names the contract") as e:
        parse(bad, "x/records.toml")
    assert e.value.key == "published[0].contract"


def _lean_checked():
    """Every construction a records file shows `lean = "checked"`, published and mathloop's own."""
    cases = []
    for cls in _classes_with_records():
        r = cls.constant_records()
        files = [(p.construction, p.contract) for p in r.published if p.lean == "checked"]
        files += [(o.construction, "") for o in r.mathloop if o.lean == "checked"]
        cases += [pytest.param(cls.name, f, c, id=f"{cls.name}-{f}") for f, c in files]
    return cases


def test_lean_checked_entries_exist_for_every_target_with_lean_claims():
    """The Lean tier below runs for constructions of each constant whose target renders Lean (not an empty list)."""
    shown = {name for name, *_ in (c.values for c in _lean_checked())}
    assert {"spencer-discrepancy", "furstenberg-sarkozy", "erdos-minimum-overlap", "sidon-autocorrelation"} <= shown


@pytest.mark.lean
@pytest.mark.slow  # the 30,000-step C1a records: about two minutes of Lean and 3 GB each
@pytest.mark.parametrize("name, file, contract", _lean_checked())
def test_every_record_shown_lean_checked_is_accepted_by_the_kernel_now(name, file, contract):
    """`mathloop records` shows what records.toml says; here a real kernel backs every `lean = "checked"`,
    through the same path a session's Lean worker takes (render, then check against the support modules)."""
    from pathlib import Path

    from mathloop.lean.commit import check_commit
    from mathloop.lean.toolchain import discover
    from mathloop.targets import build_target, load_contract

    if not discover().available:
        pytest.skip(f"no Lean here: {discover().reason}")
    cls = target_class(name)
    got = recertify(cls, file)
    assert got.value is not None, got.reasons
    target = build_target(load_contract(got.contract))
    path = Path(str(construction_file(cls, file)))
    ev = target.check(None, target.parse(target.read_candidate_file(path)))
    outcome = check_commit(target, "0" * 64, ev, timeout_s=1800)
    assert outcome.status == "checked", outcome.reasons


def _not_rendered():
    return [pytest.param(cls.name, p.construction, p.contract, id=f"{cls.name}-{p.construction}")
            for cls in _classes_with_records() for p in cls.constant_records().published if p.lean == "not rendered"]


@pytest.mark.slow  # each construction is checked first (the evidence is what Lean would render)
@pytest.mark.parametrize("name, file, contract", _not_rendered())
def test_every_record_shown_not_rendered_renders_no_lean(name, file, contract):
    """`lean = "not rendered"` is what the target says of the construction, not a guess."""
    from pathlib import Path

    from mathloop.lean.commit import check_commit
    from mathloop.targets import build_target, load_contract

    cls = target_class(name)
    got = recertify(cls, file)
    target = build_target(load_contract(got.contract))
    path = Path(str(construction_file(cls, file)))
    ev = target.check(None, target.parse(target.read_candidate_file(path)))
    assert check_commit(target, "0" * 64, ev).status == "not_rendered"


@pytest.mark.parametrize("name, file, certified", _stored_constructions())
def test_every_stored_construction_recertifies_to_its_stated_digits(name, file, certified):
    got = recertify(target_class(name), file)
    assert got.value is not None, got.reasons
    assert got.shown == certified
