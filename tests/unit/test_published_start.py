"""`mathloop run --start published`: the best shipped construction is proposed first and credited to its
authors, the local proposer then refines the head; a start payload is only a candidate (a hostile one is refused
by the checker and never committed); a target without published constructions, or a bad --start, exits 2."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from mathloop.check.runner import InProcessRunner
from mathloop.domain import payload_sha
from mathloop.propose.base import Context, Proposal, Proposer
from mathloop.targets.published_start import PublishedFirst
from mathloop.search.loop import Session, SessionLimits
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import build_target, load_contract
from mathloop.targets.base import PublishedStart
from tests.support.contracts import shipped


class Inner(Proposer):
    name = "local"

    def __init__(self) -> None:
        self.calls = 0

    def propose(self, ctx):
        self.calls += 1
        return [Proposal({"heights": ["0", "1", "1", "0"]}, "local", {"start": "head"})] if self.calls == 1 else []


def _ctx(target, seen=frozenset()):
    return Context(contract=target.contract, head=None, open_obligations=(), rejections=(), seen=seen, round=0)


@pytest.fixture(scope="module")
def erdos():
    return build_target(load_contract(shipped("erdos-minimum-overlap")))


def test_the_best_shipped_construction_is_the_records_best_certified_one(erdos):
    start = erdos.published_start()
    assert (start.who, start.value, start.construction) == ("SimpleTES", "0.380868", "simpletes-2400-0.380868.txt")
    v = erdos.check(None, erdos.parse(start.payload)).bounds["C1b"]
    assert F("0.380867675827") < v < F("0.380867675828")


def test_published_construction_is_proposed_first_with_its_credit_then_the_inner_proposals_name_it(erdos):
    start = PublishedStart({"heights": ["1", "2"]}, "Someone", "0.5", "a paper", "file.txt")
    p = PublishedFirst(start, Inner())
    [first] = p.propose(_ctx(erdos))
    assert first.proposer == "published" and first.payload == {"heights": ["1", "2"]}
    assert first.meta["published"] == {"who": "Someone", "value": "0.5", "source": "a paper", "construction": "file.txt"}
    [second] = p.propose(_ctx(erdos))
    assert second.proposer == "local" and second.meta["warm_start"] == "Someone 0.5 (file.txt)"
    assert p.name == "published+local" and p.stats()["warm_start"] == "Someone 0.5 (file.txt)"


def test_a_construction_the_memory_already_checked_is_not_proposed_again(erdos):
    start = PublishedStart({"heights": ["1", "2"]}, "Someone", "0.5", "a paper", "file.txt")
    p = PublishedFirst(start, Inner())
    [prop] = p.propose(_ctx(erdos, frozenset({payload_sha({"heights": ["1", "2"]})})))
    assert prop.proposer == "local"


@pytest.mark.parametrize("payload", [
    {"heights": ["1", "-1", "1"]},            # a negative height: refuted
    {"heights": ["4", "0", "0", "0"]},        # normalised height 2 > 1: refuted
    {"heights": [1, 2]},                      # JSON numbers, not exact strings: malformed
    {"heights": ["1e999999"]},                # beyond the exponent cap: malformed
    {"heights": ["1"] * 70000},               # more steps than the contract allows: malformed
    {"heights": ["0", "0"], "extra": "x"},    # an unknown key: malformed
])
def test_a_hostile_start_is_only_a_candidate_and_never_commits(erdos, tmp_path, payload):
    repo = Repository(make_engine(str(tmp_path / "s.db")))
    p = PublishedFirst(PublishedStart(payload, "Mallory", "0.1", "nowhere", "evil.txt"), Inner())
    summary = Session(erdos.contract, repo, InProcessRunner()).run(p, SessionLimits(1, samples=1))
    head = repo.head(erdos.contract.sha256)
    assert head.seq == 0 and summary.commits == 0  # the seed is still the head
    [cand] = [c for c in repo.candidates(erdos.contract.sha256) if c.proposer == "published"]
    assert cand.label != "progress" and cand.label in ("malformed", "regression", "no_progress", "incomparable")


def test_cli_refuses_start_published_for_a_target_without_constructions_and_an_unknown_start(tmp_path):
    from typer.testing import CliRunner

    from mathloop.cli.app import app

    db = str(tmp_path / "x.db")
    def said(r):  # the one-line error, unwrapped from rich's box
        return " ".join(r.output.replace("│", " ").split())

    r = CliRunner().invoke(app, ["run", "pair-correlation", "--start", "published", "--db", db, "--budget", "1"])
    assert r.exit_code == 2 and "target pair-correlation ships no published construction to start from" in said(r)
    r = CliRunner().invoke(app, ["run", "erdos-minimum-overlap", "--start", "newest", "--db", db, "--budget", "1"])
    assert r.exit_code == 2 and "unknown start 'newest' (head, published)" in said(r)


def test_unreadable_records_or_construction_is_a_one_line_error_naming_the_file(erdos, monkeypatch, tmp_path):
    from mathloop.targets import records as records_mod
    from mathloop.targets.base import Malformed

    head = ('[constant]\ntable_id = "1b"\nname = "x"\nsymbol = "x"\nbound = "C1b"\ndirection = "upper"\n'
            'definition = "d"\n')
    for text, why in [("[[published]\nwho = ", "unreadable published records.*not valid TOML"),
                      (head + '[[published]]\nwho = "X"\nvalue = "1"\ndate = "2026"\nsource = "s"\n'
                       'construction = "gone.txt"\ncertified = "0.5"\n', "gone.txt")]:
        monkeypatch.setattr(records_mod, "load", lambda package, name="records.toml", t=text: records_mod.parse(t, "r"))
        monkeypatch.setattr(records_mod, "construction_file", lambda cls, name: tmp_path / name)
        with pytest.raises(Malformed, match=why) as e:
            erdos.published_start()
        assert "\n" not in str(e.value)


def _records_lineages():
    from mathloop.targets import shipped_contracts

    return [c.name for c in shipped_contracts()
            if build_target(load_contract(shipped(c.name))).constant_records() is not None]


@pytest.mark.parametrize("name", _records_lineages())
def test_every_table_constant_starts_from_the_best_certified_construction_its_contract_admits(name):
    from importlib import resources

    from mathloop.targets.base import Malformed
    from mathloop.targets.records import construction_file

    target = build_target(load_contract(shipped(name)))
    records = target.constant_records()
    own = type(target).__module__.startswith(f"{target.records_package}.")  # whose lineages "" entries are
    fits = []
    for p in records.published:
        if not (p.construction and p.certified) or not (p.contract == name or (own and not p.contract)):
            continue
        with resources.as_file(construction_file(type(target), p.construction)) as path:
            try:
                target.parse(target.read_candidate_file(path))
            except Malformed:
                continue
        fits.append(F(p.certified))
    start = target.published_start()
    assert fits and start is not None, f"{name}: no shipped construction fits its own contract"
    target.parse(start.payload)  # the start is a candidate of this contract
    [chosen] = {F(p.certified) for p in records.published if p.construction == start.construction}
    assert not any(records.better(v, chosen) for v in fits)


@pytest.mark.parametrize("name, construction", [
    ("shannon-capacity-c7", "polak_schrijver_367.txt"),         # n <= 6: Itty et al.'s C7^10 set does not fit
    ("shannon-capacity-c7-wide", "itty_134753.txt"),            # n <= 10: the best explicit set
    ("shannon-capacity-c7-recursive", "tandon-2026-3.258832-recursive.json"),  # its own contract's entries only
])
def test_each_lineage_of_one_constant_starts_from_what_it_can_hold(name, construction):
    assert build_target(load_contract(shipped(name))).published_start().construction == construction


def test_a_table_constant_session_from_the_published_start_commits_it_credited_to_its_authors(tmp_path):
    target = build_target(load_contract(shipped("furstenberg-sarkozy")))
    start = target.published_start()
    repo = Repository(make_engine(str(tmp_path / "s.db")))

    class Nothing(Proposer):
        name = "local"

        def propose(self, ctx):
            return []

    Session(target.contract, repo, InProcessRunner()).run(PublishedFirst(start, Nothing()), SessionLimits(2, samples=1))
    head = repo.head(target.contract.sha256)
    [cand] = [c for c in repo.candidates(target.contract.sha256) if c.proposer == "published"]
    assert head.seq == 1 and cand.label in ("progress", "correct")
    assert cand.meta["published"]["who"] == start.who == "Beigel, Gasarch; Lewko"
