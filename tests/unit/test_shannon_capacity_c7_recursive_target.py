"""shannon-capacity-c7-recursive: gadgets checked exactly, product theorems as named hypotheses, stated counts checked
(test_shannon_capacity_c7_recursive_counts.py); should-prove / should-refuse pairs, the published figures to their
printed digits, bad files."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import pytest

from mathloop.domain import Verdict
from mathloop.targets import build_target, load_contract
from mathloop.targets.base import Malformed
from mathloop.targets.shannon_capacity_c7.graph import iroot
from mathloop.targets.shannon_capacity_c7_recursive import recursion

DATA = Path(__file__).resolve().parents[2] / "mathloop/targets/shannon_capacity_c7/data"
BPZ = "bpz-2026-3.258805-recursive.json"
GAO = "gao-type-2026-3.258789-recursive.json"
BPZ2 = "bpz-2026-v2-3.258827-recursive.json"
TANDON = "tandon-2026-3.258832-recursive.json"
# Tandon's printed 257-digit size in C7^500 (arXiv:2608.30273, eq. (106))
TANDON_M = int("33964672918117456943408517573718333225317390754651100605971152590324909277046876400440353958428359262"
               "98962152039473727668119665577675838633047083277330855915999031707610213141337406106659583482352927456"
               "0988950698158729501949866486079791784996498585401881281")


@pytest.fixture(scope="module")
def target():
    return build_target(load_contract("shannon-capacity-c7-recursive"))


def _file(name):
    return json.loads((DATA / name).read_text())


def _check(target, payload):
    ev = target.check(None, target.parse(payload))
    return ev, {r.id: r for r in ev.results}


@pytest.mark.parametrize("file, printed, given", [
    (GAO, "3.258789153908", ["gao-product"]),
    (BPZ, "3.258805369885", ["gao-product"]),
    (BPZ2, "3.258827985920", ["bpz-combining"]),
])
def test_the_published_recursions_reproduce_their_printed_digits_conditional_on_the_theorems_they_use(
        target, file, printed, given):
    ev, res = _check(target, _file(file))
    r = ev.bounds["capacity"]
    assert f"{r.numerator * 10**12 // r.denominator}" == printed.replace(".", "")
    assert ev.artifacts["conditional_on"] == given
    assert res["gadgets"].verdict is Verdict.PROVED and res["combinators"].verdict is Verdict.PROVED
    cert = ev.artifacts["certificate"]
    n, size, p, q = cert["n"], int(cert["size"]), int(cert["p"]), int(cert["q"])
    assert p**n <= size * q**n  # the stated inequality: r = p/q ≤ |I|^(1/n)
    assert Fraction(p, q) == r and (10**12 * r + 1) ** n > size * 10 ** (12 * n)  # r is the largest grid point


def test_the_gadgets_profiles_are_counted_from_their_sets(target):
    ev, _ = _check(target, _file(BPZ))
    assert ev.artifacts["trace"][0]["profile"] == [367, 8, 367, 322, 26, 19]  # Buys–Polak–Zuiddam's gadget
    ev, _ = _check(target, _file(GAO))
    assert ev.artifacts["trace"][0]["profile"] == [367, 8, 367, 321, 26, 20]  # Gao's stated profile


@pytest.mark.slow
def test_tandons_construction_evaluates_to_the_printed_size_and_its_checked_counts_give_the_bound(target):
    ev, res = _check(target, _file(TANDON))
    assert res["counts"].verdict is Verdict.PROVED and res["counts"].rank == 0
    assert res["capacity-bound"].verdict is Verdict.PROVED
    cert = ev.artifacts["certificate"]
    assert (cert["n"], int(cert["size"])) == (500, TANDON_M) and ev.bounds["capacity"] == Fraction(3258832620353,
                                                                                                  10**12)
    assert sorted(ev.artifacts["conditional_on"]) == ["bpz-combining", "family-conversion", "gao-product",
                                                      "heterogeneous-product"]


def test_stated_counts_are_not_evaluated_when_a_combinator_fails(target):
    bad = _file(TANDON)
    next(s for s in bad["steps"] if s["name"] == "G30_6")["neutral"] = {"auxiliary_of": "G10D"}
    ev, res = _check(target, bad)
    assert res["counts"].verdict is Verdict.UNKNOWN and res["counts"].rank == 4 and ev.bounds == {}
    assert ev.artifacts["implied_if_all_checks_held"]["n"] == 500


def test_a_gadget_with_a_moved_vertex_is_refuted_and_gives_no_bound(target):
    bad = _file(BPZ)
    g = bad["gadgets"][0]
    g["main"][1] = g["main"][0][:-1] + str((int(g["main"][0][-1]) + 1) % 7)  # now adjacent to main[0]
    ev, res = _check(target, bad)
    assert res["gadgets"].verdict is Verdict.REFUTED and "not independent" in " ".join(res["gadgets"].reasons)
    assert ev.bounds == {}


def test_a_private_pair_whose_partner_sees_two_centres_is_refuted(target):
    bad = _file(BPZ)
    g = bad["gadgets"][0]
    g["pairs"][0] = [g["pairs"][0][0], g["pairs"][1][1]]  # partner of another pair: ends repeat
    ev, res = _check(target, bad)
    assert res["gadgets"].verdict is Verdict.REFUTED and ev.bounds == {}


def test_a_recursion_claiming_more_than_its_gadgets_give_is_not_believed(target):
    # the same steps over the seed's gadget of C7 (profile (3, 1, 3, 1, 1, 1)): the checker computes what the
    # gadget gives, whatever the file's name or a model's claim says
    small = _file(BPZ)
    small["gadgets"] = [{"name": "G5", "main": ["0", "2", "4"], "pairs": [["0", "6"]], "horizontal": ["0"], "vertical": ["6"],
                             "auxiliary": ["1", "3", "5"]}]
    ev, _ = _check(target, small)
    assert ev.bounds["capacity"] < Fraction("3.17")  # far below the 3.2588 of the published gadget


def test_the_gadget_for_the_wrong_power_is_refused_before_any_arithmetic(target):
    bad = _file(BPZ)
    bad["gadgets"][0]["auxiliary"][0] = "012345"  # six digits in a gadget of C7^5
    with pytest.raises(Malformed, match=r"gadgets\[0\]\.auxiliary\[0\]: 6 digits, the gadget's words have 5"):
        target.parse(bad)


def test_an_inadmissible_rule_is_refuted(target):
    bad = _file(BPZ2)
    bad["rules"][0]["families"]["B"].append("NN")  # NN and BB: no position whose labels must be separated
    ev, res = _check(target, bad)
    assert res["combinators"].verdict is Verdict.REFUTED and ev.bounds == {}
    assert "rule S2a" in res["combinators"].reasons[0]


def test_a_terminal_code_with_two_unseparated_words_is_refuted(target):
    bad = _file(BPZ2)
    bad["codes"][0]["words"].append("NNNN")  # NNNN and BBBB: B and N need not be separated
    ev, res = _check(target, bad)
    assert res["combinators"].verdict is Verdict.REFUTED and ev.bounds == {}


def test_a_neutral_codebook_from_an_unrelated_gadget_is_refuted(target):
    bad = _file(TANDON)
    step = next(s for s in bad["steps"] if s["name"] == "G30_6")
    step["neutral"] = {"auxiliary_of": "G10D"}  # not a product of G15X's inputs
    _ev, res = _check(target, bad)
    assert res["combinators"].verdict is Verdict.REFUTED
    assert any("J₀ = X(G10D)" in why for why in res["combinators"].reasons)


def test_a_trivial_count_over_another_gadgets_auxiliary_set_is_refuted(target):
    bad = _file(TANDON)
    step = next(s for s in bad["steps"] if s["name"] == "G15Ah")
    step["vertical"] = {"auxiliary_of": "G15h"}  # X(G15h) is not X(G10A): q = s − o does not apply
    _, res = _check(target, bad)
    assert res["combinators"].verdict is Verdict.REFUTED


def test_gaos_lemma_as_implemented_matches_the_six_tuples_of_gaos_example():
    # Gao's Example 1: the gadget {0, 2, 4} of C7 squared is the optimal 10-vertex set of C7^2
    g = recursion.Profile(3, 1, 3, 1, 1, 1)
    assert recursion.gao(g, g) == recursion.Profile(10, 2, 9, 5, 2, 2)
    assert iroot(10, 2) == 3


@pytest.mark.parametrize("mutate, where", [
    (lambda c: c.update(extra=1), "extra"),
    (lambda c: c.pop("result"), "result"),
    (lambda c: c["gadgets"][0]["main"].__setitem__(0, "70000"), "gadgets[0].main[0]"),
    (lambda c: c["gadgets"][0]["main"].__setitem__(0, 12345), "gadgets[0].main[0]"),
    (lambda c: c["steps"][0].update(left="G9"), "steps[0].left"),
    (lambda c: c["steps"][0].update(op="power"), "steps[0]"),
    (lambda c: c.update(result="nowhere"), "result"),
    (lambda c: c["steps"].append(dict(c["steps"][0])), "steps[6].name"),
    (lambda c: c["steps"].extend({"name": f"G{400 * 2**k}", "op": "product", "left": f"G{200 * 2**k}",
                                  "right": f"G{200 * 2**k}"} for k in range(4)), "steps[9]: dimension 3200"),
    (lambda c: c["steps"].append({"name": "F", "op": "families", "of": "G200"}) or c.update(result="F"), "result"),
])
def test_a_malformed_construction_is_refused_in_one_line_naming_the_field(target, mutate, where):
    c = copy.deepcopy(_file(BPZ))
    mutate(c)
    with pytest.raises(Malformed) as e:
        target.parse(c)
    assert str(e.value).startswith(where) and "\n" not in str(e.value)


@pytest.mark.parametrize("book, where", [
    ({"auxiliary_of": "S3b"}, "steps[5].neutral.auxiliary_of: 'S3b' is a rule, not a gadget"),
    ({"auxiliary_of": "C1"}, "steps[5].neutral.auxiliary_of: 'C1' is a count, not a gadget"),
])
def test_a_codebook_naming_something_other_than_a_gadget_is_refused(target, book, where):
    c = _file(TANDON)
    c["steps"][5]["neutral"] = book
    with pytest.raises(Malformed) as e:
        target.parse(c)
    assert str(e.value) == where


def test_a_side_codebook_counted_by_a_gadget_name_is_refused(target):
    c = _file(TANDON)
    c["steps"][5]["horizontal"] = {"count": "G10", "main_of": "G10"}
    with pytest.raises(Malformed, match=r"steps\[5\]\.horizontal\.count: 'G10' is a gadget, not a count"):
        target.parse(c)


def test_a_construction_above_the_payload_limit_is_refused(target):
    with pytest.raises(Malformed, match="payload: larger than"):
        target.parse("[" + " " * 500_000 + "]")


def test_the_local_proposer_builds_a_product_tree_that_beats_the_seed_and_the_checker_certifies_it(target):
    from mathloop.propose.base import Context
    from mathloop.targets.shannon_capacity_c7_recursive.proposer import TreeProposer

    class Head:
        state = target.seed_payload()

    ctx = Context(contract=target.contract, head=Head(), open_obligations=(), rejections=(), seen=frozenset(),
                  round=0, samples=1, deadline=None)
    (prop,) = TreeProposer(target, 0).propose(ctx)
    ev, _ = _check(target, prop.payload)
    assert ev.bounds["capacity"] > 3  # 10 vertices in C7^2 from Gao's Example 1: √10 = 3.1622…


def test_mathloop_check_names_the_hypotheses_a_construction_uses_and_refuses_a_bad_file_with_exit_2(tmp_path):
    from typer.testing import CliRunner

    from mathloop.cli.app import app

    run = CliRunner().invoke(app, ["check", "shannon-capacity-c7-recursive", "--candidate", str(DATA / BPZ)],
                             env={"NO_COLOR": "1"})  # no COLUMNS: the console's width would outlive this test
    assert run.exit_code == 0, run.output
    words = " ".join(run.output.split())
    assert "capacity = 3.258805369885" in words and "this construction uses: gao-product" in words
    bad = tmp_path / "bad.json"
    bad.write_text('{"gadgets": [{"name": "G", "main": ["7"], "pairs": [], "horizontal": [], "vertical": [], '
                   '"auxiliary": []}], "result": "G"}')
    run = CliRunner().invoke(app, ["check", "shannon-capacity-c7-recursive", "--candidate", str(bad)])
    assert run.exit_code == 2 and "gadgets[0].main[0]" in run.output and len(run.output.strip().splitlines()) == 1
