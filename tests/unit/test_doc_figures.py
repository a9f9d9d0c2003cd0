"""Every certified figure README.md and the docs state comes from docs/figures.toml, and that file from certificates.

Three links, each tested: (1) a figure's value is what its shipped certificate proves, recomputed here in exact
rationals by a second code path and pinned to the constants the checker's slow-tier tests certify; (2) every
`<!-- figure NAME -->` span in README.md and docs/ is its rendering; (3) no copy of a figure's digits elsewhere
disagrees with it (a long decimal sharing its first eight places is one of its safe roundings).
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest

from tests.support import ceiling_scan, doc_figures, primal_scan
from tests.support.doc_figures import ROOT, SPAN, figures, pages, render
from tests.unit.test_ceiling_certificates_wide import CERTIFICATES as CEILINGS
from tests.unit.test_pair_correlation_rh_certificate import CERTIFICATES as PRIMALS


def _recomputed(fig) -> object:
    payload = json.loads(fig.certificate.read_text(encoding="utf-8"))
    if fig.lineage in ("pair-correlation-rh", "pair-correlation-rh-wide"):
        h, _, nodes = primal_scan.parse(payload)
        assert primal_scan.exact_conditions(h, nodes) == []
        return primal_scan.bound(h, nodes)
    if fig.lineage.startswith("pair-correlation-rh-ceiling"):
        c = ceiling_scan.parse(payload)
        assert ceiling_scan.exact_conditions(c) == []
        return 2 - c["L"]
    raise AssertionError(f"no second path for lineage {fig.lineage}")


@pytest.mark.parametrize("name", sorted(figures()))
def test_each_figure_is_what_its_certificate_proves(name):
    fig = figures()[name]
    assert fig.certificate.is_file(), fig.certificate
    assert _recomputed(fig) == fig.value
    pinned = {**PRIMALS, **CEILINGS}[fig.certificate.name][0]  # what the checker certifies (slow tier)
    assert pinned == fig.value


def test_the_bracket_is_ordered_and_its_width_printed_safely():
    f = figures()
    assert f["primal"].value < f["ceiling"].value
    assert render("width") == "8.0459·10⁻⁵" and float(render("width").replace("·10⁻⁵", "e-5")) >= doc_figures.width()
    assert doc_figures.width() <= Fraction(1, 10**4)  # the bracket's goal: both ends within 10^-4


@pytest.mark.parametrize("page", pages(), ids=[p.relative_to(ROOT).as_posix() for p in pages()])
def test_every_figure_span_is_its_rendering(page):
    text = page.read_text(encoding="utf-8")
    stale = [(m.group(1), m.group(2), render(m.group(1))) for m in SPAN.finditer(text) if m.group(2) != render(m.group(1))]
    assert stale == [], f"{page.relative_to(ROOT)}: run `python -m tests.support.doc_figures`"


@pytest.mark.parametrize("page", pages(), ids=[p.relative_to(ROOT).as_posix() for p in pages()])
def test_no_copy_of_a_figure_disagrees_with_it(page):
    text = page.read_text(encoding="utf-8")
    wrong = []
    for fig in figures().values():
        head = fig.text(8)[:-1]  # the first seven places, e.g. 0.6792941
        for m in re.finditer(rf"{re.escape(head)}\d{{2,}}", text):
            places = len(m.group(0).split(".")[1])
            if m.group(0) != fig.text(places):
                wrong.append(f"{m.group(0)} should read {fig.text(places)} ({fig.name}, rounded "
                             f"{'down' if fig.down else 'up'})")
    for m in re.finditer(re.escape(render("width")[:5]) + r"\d*·10" + re.escape(render("width").split("·10")[1]), text):
        if not doc_figures.scientific_up(doc_figures.width(), len(m.group(0).split("·")[0]) - 1) == m.group(0):
            wrong.append(f"width {m.group(0)} is rounded down: write {render('width')}")
    assert wrong == [], page.relative_to(ROOT)


def test_the_readme_states_the_bracket_only_through_its_span():
    text = SPAN.sub("", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert "<!-- figure bracket -->" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.findall(r"\[0\.679\d*, ?0\.679\d*\]", text) == []
