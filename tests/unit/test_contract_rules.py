"""Contracts cannot be weakened: every required obligation, kind, checker and floor is kept, or exit 2."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace

import pytest

from mathloop.contract import ContractError
from mathloop.targets import load_contract
from mathloop.domain import Label
from mathloop.check import runner as runner_mod
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import shipped_contracts, target_class
from tests.integration.cli import invoke
from tests.support.contracts import shipped

SHIPPED = [c.name for c in shipped_contracts() if c.distribution == "mathloop"]
# r-hat(theta) = 1 + (4/5) cos(2 pi/5 ...) - ...: mass > 0 and the tail is fine, but P(pi) = 1 - 4/5 - 4/5 < 0,
# i.e. r < 0 somewhere: only the r-nonnegative obligation refuses it.
NEGATIVE_R = {"h": "1/5", "A": "1", "nodes": ["1", "2/5", "-2/5", "0", "0"]}


def _segments(text: str) -> list[str]:
    """Split a contract's text at its table headers; an [[obligations]] segment owns its [obligations.bound]."""
    parts = re.split(r"(?m)^(?=\[)", text)
    out: list[str] = []
    for p in parts:
        if p.startswith("[obligations.bound]") and out:
            out[-1] += p
        else:
            out.append(p)
    return out


def without(text: str, oid: str) -> str:
    """Return the contract text with obligation `oid` deleted (and removed from every depends_on)."""
    kept = [s for s in _segments(text) if not (s.startswith("[[obligations]]") and re.search(rf'(?m)^id = "{re.escape(oid)}"$', s))]
    assert len(kept) == len(_segments(text)) - 1, f"{oid} not found"
    out = "".join(kept)
    return re.sub(rf'"{re.escape(oid)}",\s*|,\s*"{re.escape(oid)}"|"{re.escape(oid)}"', "", out)


def required_ids(name: str) -> list[str]:
    contract = load_contract(name)
    return [r.id for r in target_class(contract.target).required_obligations]


CASES = [(name, oid) for name in SHIPPED for oid in required_ids(name)]


def test_every_shipped_target_declares_what_its_soundness_needs():
    # the registry lists the shipped contracts; these must stay among them (a lost contract orphans its stores)
    assert set(SHIPPED) >= {"critical-line-zeros", "erdos-minimum-overlap", "erdos-minimum-overlap-fine", "feng-przz",
                            "levinson", "levinson-conrey", "pair-correlation", "pair-correlation-rh",
                            "pair-correlation-rh-wide", "pair-correlation-rh-ceiling", "pair-correlation-rh-ceiling-wide", "shannon-capacity-c7",
                            "sidon-autocorrelation", "sidon-autocorrelation-fine"}
    for name in SHIPPED:
        contract = load_contract(name)
        cls = target_class(contract.target)
        required = cls.required_obligations
        assert {r.id for r in required} >= {o.id for o in contract.checked}, name  # every checked obligation
        # a bound resting on no published theorem (Θ(C7) ≥ |S|^{1/n} from Θ's definition) says so in its class
        has_hypothesis = any(r.kind.value == "hypothesis" for r in required)
        assert has_hypothesis != cls.definition_only, name


@pytest.mark.parametrize("name, oid", CASES, ids=[f"{n}-without-{o}" for n, o in CASES])
def test_deleting_a_required_obligation_is_refused_before_any_check(tmp_path, monkeypatch, name, oid):
    path = tmp_path / f"{name}.toml"
    path.write_text(without(shipped(name).read_text(encoding="utf-8"), oid), encoding="utf-8")
    calls = []
    monkeypatch.setattr(runner_mod.InProcessRunner, "check", lambda *a, **k: calls.append(a))
    seed = tmp_path / "seed.json"
    seed.write_text(json.dumps(dict(load_contract(name).seed)), encoding="utf-8")
    result = invoke("check", "--contract", str(path), "--candidate", str(seed))
    assert result.exit_code == 2
    assert f"obligations.{oid}" in result.output and "required" in result.output
    assert calls == []


@pytest.mark.parametrize("name, old, new, key", [
    ("pair-correlation-rh", 'checker = "cosine_positivity"', 'checker = "mass"', "obligations.r-nonnegative.checker"),
    ("pair-correlation", 'id = "g-nonnegative"\nkind = "check"', 'id = "g-nonnegative"\nkind = "lemma"', "obligations.g-nonnegative.kind"),
    ("pair-correlation-rh", 'class_maximum = "1"', 'class_maximum = "2"', "bounds.proportion.class_maximum"),
    ("levinson-conrey", 'theta_sup = "4/7"', 'theta_sup = "3/5"', "parameters.theta_sup"),
    ("critical-line-zeros", 'id = "blocks"\nkind = "lemma"', 'id = "blocks"\nkind = "check"', "obligations.blocks.kind"),
])
def test_changing_a_kind_or_checker_or_crossing_a_floor_is_refused(tmp_path, name, old, new, key):
    text = shipped(name).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / f"{name}.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ContractError) as e:
        load_contract(path)
    assert e.value.key == key


def test_levinson_above_one_half_needs_conreys_mean_value_theorem(tmp_path):
    text = shipped("levinson").read_text(encoding="utf-8")
    path = tmp_path / "levinson-wider.toml"
    path.write_text(text.replace('theta_sup = "1/2"', 'theta_sup = "4/7"', 1), encoding="utf-8")
    with pytest.raises(ContractError, match="conrey-mean-value"):
        load_contract(path)


def test_rh_contract_without_r_nonnegative_is_refused_by_run_with_nothing_written(tmp_path):
    path = tmp_path / "weak-rh.toml"
    path.write_text(without(shipped("pair-correlation-rh").read_text(encoding="utf-8"), "r-nonnegative"), encoding="utf-8")
    db = tmp_path / "store.db"
    result = invoke("run", "--contract", str(path), "--db", str(db), "--budget", "1", "--no-lean", "--no-progress")
    assert result.exit_code == 2
    assert "obligations.r-nonnegative" in result.output
    assert not db.exists()


def test_rh_contract_without_r_nonnegative_in_local_obligations_is_ignored(tmp_path):
    """A weakened copy in ./obligations/ of the working directory is never picked up: r < 0 stays refused."""
    (tmp_path / "obligations").mkdir()
    weak = without(shipped("pair-correlation-rh").read_text(encoding="utf-8"), "r-nonnegative")
    (tmp_path / "obligations" / "pair-correlation-rh.toml").write_text(weak, encoding="utf-8")
    cand = tmp_path / "negative-r.json"
    cand.write_text(json.dumps(NEGATIVE_R), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "mathloop", "check", "pair-correlation-rh", "--candidate", str(cand),
                           "--json"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] is False and out["bounds"] == {}
    assert any(r.startswith("r-nonnegative:") for r in out["reasons"])


def test_user_contract_is_its_own_lineage_and_the_store_refuses_to_mix(tmp_path, toy_contract, repo: Repository):
    from mathloop.check.runner import InProcessRunner

    repo.ensure_contract(toy_contract)
    ev = InProcessRunner().check(toy_contract, None, {"x": "1/10"})
    root = repo.commit(contract_sha=toy_contract.sha256, session_id=None, parent=None, payload={"x": "1/10"},
                       proposer="t", meta={}, label=Label.PROGRESS, evidence=ev.evidence)
    other = replace(toy_contract, sha256="0" * 64)
    with pytest.raises(ValueError, match="never mix"):
        repo.commit(contract_sha=other.sha256, session_id=None, parent=root, payload={"x": "1/2"}, proposer="t",
                    meta={}, label=Label.PROGRESS, evidence=InProcessRunner().check(toy_contract, None, {"x": "1/2"}).evidence)


def test_user_contract_is_shown_as_such_with_its_hash(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(shipped("levinson-conrey").read_text(encoding="utf-8").replace(
        'min_improvement = "1/1000000000"', 'min_improvement = "1/100000000"', 1), encoding="utf-8")
    contract = load_contract(path)
    assert contract.source == "file" and contract.sha256 != load_contract("levinson-conrey").sha256
    Repository(make_engine(str(tmp_path / "s.db")))  # an empty store
    result = invoke("status", "--contract", str(path), "--db", str(tmp_path / "s.db"), "--json")
    out = json.loads(result.output)
    assert out["contract_sha256"] == contract.sha256 and out["contract_source"] == "file"
    assert out["contract_path"] == str(path)


def test_target_name_and_contract_file_must_agree(tmp_path):
    path = tmp_path / "x.toml"
    path.write_text(shipped("levinson").read_text(encoding="utf-8"), encoding="utf-8")
    result = invoke("status", "pair-correlation", "--contract", str(path), "--db", str(tmp_path / "s.db"))
    assert result.exit_code == 2 and "does not match --contract" in result.output


def test_lean_timeout_is_a_typed_generic_limit_every_target_accepts(tmp_path):
    for name in ("levinson-conrey", "pair-correlation-rh", "critical-line-zeros"):
        text = shipped(name).read_text(encoding="utf-8").replace("[limits]\n", "[limits]\nlean_timeout_s = 90\n", 1)
        path = tmp_path / f"{name}.toml"
        path.write_text(text, encoding="utf-8")
        c = load_contract(path)
        assert c.lean_timeout_s == 90 and "lean_timeout_s" not in c.target_limits
    bad = shipped("levinson-conrey").read_text(encoding="utf-8").replace("[limits]\n", "[limits]\nlean_timeout_s = 0\n", 1)
    (tmp_path / "bad.toml").write_text(bad, encoding="utf-8")
    with pytest.raises(ContractError) as e:
        load_contract(tmp_path / "bad.toml")
    assert e.value.key == "limits.lean_timeout_s"


def test_targets_json_lists_every_shipped_target_with_its_source_and_hash():
    result = invoke("targets", "--json")
    assert result.exit_code == 0
    rows = {r["name"]: r for r in json.loads(result.output)}
    assert set(SHIPPED) <= set(rows)
    for name in SHIPPED:
        assert rows[name]["source"] == "package" and rows[name]["package"] == "mathloop"
        assert rows[name]["contract_sha256"] == load_contract(name).sha256 and rows[name]["implementation"]


def test_a_broken_entry_point_is_refused_naming_it(monkeypatch):
    from mathloop.targets import registry

    registry.registered()
    monkeypatch.setitem(registry.REGISTRY, "broken", registry.Registered("broken", "no_such_module.x:Target", "bad-dist"))
    with pytest.raises(ContractError, match="entry point broken = 'no_such_module.x:Target' of bad-dist cannot be loaded"):
        target_class("broken")
    monkeypatch.setitem(registry.REGISTRY, "not-a-target", registry.Registered("not-a-target", "json:loads", "bad-dist"))
    with pytest.raises(ContractError, match="is not a Target"):
        target_class("not-a-target")
