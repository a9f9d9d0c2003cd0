"""The bracket [best primal, best ceiling] of pair-correlation-rh in one store: shown, and never crossed."""

import json
from dataclasses import replace
from fractions import Fraction as F

import pytest

from mathloop.targets import load_contract
from mathloop.domain import Label
from mathloop.propose.base import Proposal, Proposer
from mathloop.check.bracket import bracket, guard
from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner

PRIMAL_SEED = F(101248, 149997)  # pair-correlation-rh's certified seed, ~0.67500
CEILING_SEED = F(759, 1000)


class Scripted(Proposer):
    name = "scripted"

    def __init__(self, payloads):
        self.payloads = list(payloads)

    def propose(self, ctx):
        batch, self.payloads = self.payloads[:1], self.payloads[1:]
        return [Proposal(p, self.name) for p in batch]


class Miscertifying(InProcessRunner):
    """A checker with a bug: it certifies `value` for the named bound whatever the candidate is."""

    def __init__(self, bound, value):
        self.bound, self.value = bound, value

    def check(self, contract, parent_state, payload):
        out = super().check(contract, parent_state, payload)
        if out.evidence is None or parent_state is None:
            return out
        return replace(out, evidence=replace(out.evidence, bounds={self.bound: self.value}))


@pytest.fixture(scope="module")
def primal():
    return load_contract("pair-correlation-rh")


@pytest.fixture(scope="module")
def ceiling():
    return load_contract("pair-correlation-rh-ceiling")


def roots(repo, primal, ceiling):
    for c in (primal, ceiling):
        Session(c, repo, InProcessRunner()).ensure_root()


def test_bracket_of_both_roots_has_the_certified_width(repo, primal, ceiling):
    assert bracket(repo, primal).width is None  # nothing committed yet
    roots(repo, primal, ceiling)
    for c in (primal, ceiling):
        b = bracket(repo, c)
        assert (b.primal.value, b.ceiling.value) == (PRIMAL_SEED, CEILING_SEED)
        assert b.width == CEILING_SEED - PRIMAL_SEED and b.consistent
        assert b.primal.commit == repo.head(primal.sha256).hash and b.ceiling.commit == repo.head(ceiling.sha256).hash
    assert bracket(repo, primal).text() == "[0.6750001666, 0.7590000000] (width 0.0839998334)"


def test_a_ceiling_below_the_certified_primal_is_an_error_naming_both_commits(repo, primal, ceiling):
    roots(repo, primal, ceiling)
    head = repo.head(ceiling.sha256)
    bug = Miscertifying("ceiling", F(67, 100))  # above the class maximum 2/3, below the primal 0.675
    summary = Session(ceiling, repo, bug).run(Scripted([dict(ceiling.seed) | {"L": "1.241"}]), SessionLimits(1))
    assert summary.labels == {Label.ERROR.value: 1}
    assert repo.head(ceiling.sha256).hash == head.hash
    [rej] = [r for r in repo.candidates(ceiling.sha256) if r.label == Label.ERROR.value]
    why = " ".join(rej.reasons)
    assert repo.head(primal.sha256).hash in why and head.hash in why and "one of the two checkers is wrong" in why


def test_a_primal_above_the_certified_ceiling_is_an_error(repo, primal, ceiling):
    roots(repo, primal, ceiling)
    head = repo.head(primal.sha256)
    bug = Miscertifying("proportion", F(76, 100))  # below the static class maximum 1, above the ceiling 0.759
    respelled = dict(primal.seed) | {"A": "2/1"}  # the seed spelled anew: an exact repeat is not checked again
    summary = Session(primal, repo, bug).run(Scripted([respelled]), SessionLimits(1))
    assert summary.labels == {Label.ERROR.value: 1}
    assert repo.head(primal.sha256).hash == head.hash
    [rej] = [r for r in repo.candidates(primal.sha256) if r.label == Label.ERROR.value]
    assert repo.head(ceiling.sha256).hash in " ".join(rej.reasons) and "above the certified ceiling" in rej.reasons[0]


def test_guard_lets_values_inside_the_bracket_through(repo, primal, ceiling):
    roots(repo, primal, ceiling)
    ev = InProcessRunner().check(ceiling, None, dict(ceiling.seed)).evidence
    assert guard(repo, ceiling, ev, "h") is None
    assert guard(repo, ceiling, replace(ev, bounds={"ceiling": PRIMAL_SEED}), "h") is None  # equality is consistent


def test_status_json_shows_the_bracket(repo, primal, ceiling, tmp_path):
    from typer.testing import CliRunner

    from mathloop.cli.app import app

    roots(repo, primal, ceiling)
    db = str(repo.engine.url.database)
    res = CliRunner().invoke(app, ["status", "pair-correlation-rh", "--db", db, "--json"])
    assert res.exit_code == 0, res.output
    br = json.loads(res.output)["bracket"]
    assert br["width"] == str(CEILING_SEED - PRIMAL_SEED) and br["consistent"]
    res = CliRunner().invoke(app, ["status", "pair-correlation-rh-ceiling", "--db", db])
    assert "bracket" in res.output and "0.7590000000" in res.output


def test_the_partner_side_is_the_best_head_over_all_the_partners_lineages(repo, primal, ceiling):
    """A ceiling certified in the wide lineage brackets (and guards) the primal like one in the first lineage."""
    wide = load_contract("pair-correlation-rh-ceiling-wide")
    roots(repo, primal, ceiling)
    Session(wide, repo, InProcessRunner()).ensure_root()
    # a weaker L proves; the stand-in certifies 0.70 for it, below the first lineage's 0.759
    summary = Session(wide, repo, Miscertifying("ceiling", F(7, 10))).run(
        Scripted([dict(wide.seed) | {"L": "1.240"}]), SessionLimits(1))
    assert summary.labels == {Label.CORRECT.value: 1}
    b = bracket(repo, primal)
    assert (b.ceiling.contract, b.ceiling.value) == ("pair-correlation-rh-ceiling-wide", F(7, 10))
    assert b.ceiling.commit == repo.head(wide.sha256).hash
    assert bracket(repo, ceiling).ceiling.value == CEILING_SEED  # a lineage's own view keeps its own head
    assert bracket(repo, ceiling).primal.contract == "pair-correlation-rh"

    # a primal between the two ceilings crosses the wide one: refused, naming that lineage and its commit
    head = repo.head(primal.sha256)
    bug = Miscertifying("proportion", F(72, 100))
    respelled = dict(primal.seed) | {"A": "2/1"}  # the seed spelled anew: an exact repeat is not checked again
    summary = Session(primal, repo, bug).run(Scripted([respelled]), SessionLimits(1))
    assert summary.labels == {Label.ERROR.value: 1}
    assert repo.head(primal.sha256).hash == head.hash
    [rej] = [r for r in repo.candidates(primal.sha256) if r.label == Label.ERROR.value]
    text = " ".join(rej.reasons)
    assert "pair-correlation-rh-ceiling-wide" in text and repo.head(wide.sha256).hash in text
