"""The graph page escapes everything from the store and says what each class maximum rests on."""

from __future__ import annotations


import pytest

from mathloop.targets import load_contract
from mathloop.domain import Evidence, ObligationResult, Trust, Verdict
from mathloop.export.graph import class_maximum_basis, node_statuses
from mathloop.view.graph_data import GraphView
from mathloop.view.graph_page import graph_html
from mathloop.view.layout import layered_routes

EVIL = '<img src=x onerror="alert(1)"></script><script>alert(2)</script>'


@pytest.mark.parametrize("name,basis", [("levinson-conrey", "numerical optimum"), ("levinson", "numerical optimum"),
                                        ("pair-correlation", "theorem"), ("pair-correlation-rh", "theorem")])
def test_class_maximum_basis_of_the_shipped_contracts(name, basis):
    c = load_contract(name)
    assert [class_maximum_basis(b) for b in c.bounds if b.class_maximum is not None] == [basis]


def test_model_text_in_reasons_and_details_is_never_markup(toy_contract):
    ev = Evidence("toy", "1", (ObligationResult("x-input", Verdict.PROVED, 0, Trust.EXACT),
                               ObligationResult("in-range", Verdict.REFUTED, 1, Trust.EXACT, (EVIL,)),
                               ObligationResult("value-bound", Verdict.UNKNOWN, 1, Trust.EXACT, ())),
                  {}, {"x": "2"})
    nodes = node_statuses(toy_contract, ev, {"in-range": EVIL})
    html = graph_html(GraphView(toy_contract, "ab" * 32, 3, "now", None, tuple(nodes), 4))
    assert "<img" not in html and "alert(2)</script>" not in html
    assert html.count("<script") == 2  # the embedded data and our own script, nothing injected
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in html  # shown as text (Jinja2's entities)
    assert {n.status for n in nodes} >= {"refuted", "discharged", "open", "taken as given"}


def test_layered_layout_routes_long_edges_beside_the_rows_they_skip():
    c = load_contract("critical-line-zeros")
    pos, routes = layered_routes(c.graph())
    assert pos["riemann-von-mangoldt"][1] == 0 and pos["turing"][1] == 2
    bend = routes[("riemann-von-mangoldt", "turing")]
    assert len(bend) == 1 and bend[0] != pos["blocks"]
    assert len({p for p in pos.values()}) == len(pos)  # no two nodes on one spot
