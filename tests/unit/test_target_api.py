"""The declared target API (targets/base.py): a small required core, named capabilities with defaults, no probing.

docs/targets.md's API section is generated from the code and must not be stale; no module of mathloop discovers a
declared target, proposer or observer member with getattr/hasattr; a target that defines only the core answers
every capability with its default.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from mathloop.propose.base import Proposer
from mathloop.search.loop import Observer
from mathloop.targets import api_doc
from mathloop.targets.base import CAPABILITIES, CandidateFiles, Target, TargetCore
from mathloop.targets.table_constant import TableConstant

ROOT = Path(__file__).resolve().parents[2]
# Sites that read a declared member name with getattr, each with why it is not discovery. Add nothing here.
KNOWN: set[tuple[str, str]] = set()


def _declared() -> set[str]:
    names = {*api_doc.members(TargetCore), *(m for cap in CAPABILITIES for m in api_doc.members(cap))}
    names |= {"stats", "use_child", "started", "finished"}  # Proposer's and Observer's optional members
    # `name` is also a contract's and a form's word; the registry refuses a plug-in class without one (by getattr:
    # an untrusted class that lacks it is refused, not crashed on)
    return names - {"name"}


def _probes() -> set[tuple[str, str]]:
    """Return (file, member) for every getattr/hasattr of a declared member name with a string literal."""
    declared, out = _declared(), set()
    for path in sorted((ROOT / "mathloop").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), rel)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
                    and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                    and node.args[1].value in declared):
                out.add((rel, node.args[1].value))
    return out


def test_docs_targets_md_is_generated_from_the_code():
    page = (ROOT / api_doc.PAGE).read_text(encoding="utf-8")
    assert api_doc.rewritten(page) == page, "docs/targets.md is stale: run `python -m mathloop.targets.api_doc`"


def test_no_module_probes_for_a_declared_target_proposer_or_observer_member():
    assert _probes() - KNOWN == set()


def test_every_capability_member_has_a_default_and_the_core_is_what_is_abstract():
    for cap in CAPABILITIES:
        assert not inspect.isabstract(cap) and api_doc.members(cap), cap
        assert issubclass(Target, cap)
    assert set(Target.__abstractmethods__) == {"parse", "check", "local_proposer"}
    assert set(Target.__abstractmethods__) <= set(api_doc.members(TargetCore))


def test_the_core_is_small_and_no_member_is_declared_twice():
    core = api_doc.members(TargetCore)
    assert len(core) <= 13, core
    every = [*core, *(m for cap in CAPABILITIES for m in api_doc.members(cap))]
    assert len(every) == len(set(every))


def test_a_target_with_only_the_core_answers_every_capability_with_its_default(toy_contract, tmp_path):
    from tests.support.toy_target import ToyTarget

    target = ToyTarget(toy_contract)
    assert all(api_doc.implemented(ToyTarget, cap) == () for cap in CAPABILITIES)
    assert target.published_start() is None and ToyTarget.constant_records() is None
    assert ToyTarget.published_bounds("value") == () and target.lean_render("h", None) is None
    assert target.proposal_form().identity and target.proposal_forms() == {} and target.polish({}, 0) is None
    assert target.export_certificates((), tmp_path) is None and target.rests_on_claimed_parent(None) is False
    (tmp_path / "c.json").write_text('{"x": "1/2"}', encoding="utf-8")
    assert target.read_candidate_file(tmp_path / "c.json") == {"x": "1/2"}
    assert target.candidate_file_note == "" and ToyTarget.open_by_design(toy_contract).goals == frozenset()


def test_a_capability_stands_alone_without_the_core(tmp_path):
    class FileReader(CandidateFiles):
        pass

    (tmp_path / "c.json").write_text("[1, 2]", encoding="utf-8")
    assert FileReader().read_candidate_file(tmp_path / "c.json") == [1, 2]


def test_proposers_and_observers_inherit_their_optional_members():
    class Quiet(Proposer):
        name = "quiet"

        def propose(self, ctx):
            return []

    class Watch(Observer):
        def candidate(self, label, head, summary):
            return None

    assert Quiet().stats() is None and Quiet().use_child(lambda timeout_s: None) is None
    assert Watch().started(None) is None and Watch().finished(None) is None


def test_the_table_constant_targets_keep_only_what_is_their_own():
    constants = [cls for cls in api_doc.own_targets() if issubclass(cls, TableConstant)]
    assert {c.name for c in constants} >= {"spencer-discrepancy", "furstenberg-sarkozy", "shannon-capacity-c7",
                                           "shannon-capacity-c7-recursive", "sum-difference-3b", "sum-difference-3c"}
    for cls in constants:
        assert "validate_contract" not in vars(cls) and "read_candidate_file" not in vars(cls), cls.name
        assert cls.constant_records() is not None and cls.decides_by_goal, cls.name
