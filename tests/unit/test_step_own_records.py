"""mathloop's own C1a/C1b records (`[[mathloop]]` in each package's data/records.toml): each shipped certificate
re-certifies, by the target's checker and by the independent path (tests/support/step_recheck.py), to exactly the
rational the file states, below the best published construction's certified value; a tampered copy does not."""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

from mathloop.targets import target_class
from mathloop.targets.record_check import recertify
from mathloop.targets.records import construction_file, outward
from tests.support import step_recheck

WHICH = {"sidon-autocorrelation": "c1a", "erdos-minimum-overlap": "c1b"}


def _own():
    cases = []
    for name in WHICH:
        cls = target_class(name)
        for own in cls.constant_records().mathloop:
            size = len(construction_file(cls, own.construction).read_bytes())
            marks = [pytest.mark.slow] if size > 300_000 else []
            cases.append(pytest.param(name, own, marks=marks, id=f"{name}-{own.construction}"))
    return cases


@pytest.mark.parametrize("name, own", _own())
def test_own_record_recertifies_exactly_by_both_paths_and_is_below_every_published_construction(name, own):
    cls = target_class(name)
    got = recertify(cls, own.construction)
    assert got.value == F(own.exact) and got.shown == own.value == outward(F(own.exact), "upper")
    exact, _ = step_recheck.recheck(WHICH[name], construction_file(cls, own.construction))
    assert exact == F(own.exact)
    published = [F(p.certified) for p in cls.constant_records().published if p.certified]
    assert F(own.exact) < min(published)
    assert own.command.split()[:3] == ["mathloop", "check", cls.contract_files[-1].removesuffix(".toml")]


@pytest.mark.parametrize("name, own", _own())
def test_a_tampered_copy_of_an_own_record_does_not_certify_the_stated_value(tmp_path, name, own):
    cls = target_class(name)
    data = json.loads(construction_file(cls, own.construction).read_text(encoding="utf-8"))
    hs = [F(h) for h in data["heights"]]
    i = min(range(len(hs)), key=lambda k: hs[k])
    hs[i] += max(hs) / 10**6  # the lowest height raised by 1e-6 of the top: still admissible, a different function
    (tmp_path / "t.json").write_text(json.dumps({"heights": [str(h) for h in hs]}), encoding="utf-8")
    exact, _ = step_recheck.recheck(WHICH[name], tmp_path / "t.json")
    assert exact != F(own.exact)

# Lean: tests/unit/test_records.py::test_every_record_shown_lean_checked_is_accepted_by_the_kernel_now covers these.
