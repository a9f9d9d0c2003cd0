"""Plug-ins cannot impersonate or take mathloop down: clashing names, raising, exiting and sleeping imports,
and contracts lacking what their target requires are each refused alone, naming the distribution.

Registrations are injected (REGISTRY); tests/integration/test_plugin_attacks.py does the same with real
pip-installed distributions.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from mathloop.contract import ContractError
from mathloop.targets import load_contract, registry, shipped_contracts, target_class
from mathloop.targets.registry import Registered
from tests.integration.cli import invoke

PLUGINS = "tests.support.hostile_plugins"


@pytest.fixture
def inject(monkeypatch):
    """Return a function that registers KEY = "module:Class" for DISTRIBUTION for this test only."""
    registry.registrations()
    monkeypatch.setattr(registry, "_loaded", {})  # what each registration gave: fresh for every test

    def add(key: str, spec: str, distribution: str) -> Registered:
        reg = Registered(key, spec, distribution)
        monkeypatch.setitem(registry.REGISTRY, key if key not in registry.REGISTRY else f"{key} ", reg)
        return reg

    return add


def test_a_plugin_claiming_a_shipped_name_is_refused_naming_both_distributions(inject, tmp_path, monkeypatch):
    monkeypatch.delitem(sys.modules, f"{PLUGINS}.impostor", raising=False)  # doctest collection imports it
    inject("levinson-conrey", f"{PLUGINS}.impostor:Impostor", "evil-kappa")
    with pytest.raises(ContractError) as e:
        target_class("levinson-conrey")
    assert "registered more than once" in e.value.reason and "evil-kappa" in e.value.reason
    assert "distribution mathloop " in e.value.reason and "never chosen silently" in e.value.reason
    assert f"{PLUGINS}.impostor" not in sys.modules  # the impostor's code never ran
    assert "levinson-conrey" not in registry.registered()
    db = str(tmp_path / "s.db")
    run = invoke("run", "levinson-conrey", "--db", db, "--budget", "1")
    assert run.exit_code == 2 and "evil-kappa" in run.output and "registered more than once" in run.output
    assert not Path(db).exists()  # refused before the store is opened: nothing written
    with pytest.raises(ContractError, match="evil-kappa"):  # every contract of the implementation
        load_contract("levinson")
    assert target_class("pair-correlation-rh").name == "pair-correlation-rh"  # the other targets still work


def test_targets_and_doctor_name_the_clash(inject):
    inject("levinson-conrey", f"{PLUGINS}.impostor:Impostor", "evil-kappa")
    rows = {r["name"]: r for r in json.loads(invoke("targets", "--json").output)}
    assert "evil-kappa" in rows["levinson-conrey"]["error"] and "registered more than once" in rows["levinson-conrey"]["error"]
    assert "error" not in rows["pair-correlation-rh"]
    doctor = invoke("doctor", "--json")
    assert doctor.exit_code == 0
    clash = [r for r in json.loads(doctor.output)["targets"] if r["name"] == "levinson-conrey"]
    assert {r["distribution"] for r in clash} == {"mathloop", "evil-kappa"} and {r["status"] for r in clash} == {"conflict"}
    text = invoke("doctor").output
    assert "conflict" in text and "evil-kappa" in text


@pytest.mark.parametrize("module, raised", [("raising", "RuntimeError: plug-in exploded at import [/x] [bold]"),
                                            ("exiting", "SystemExit: 3")])
def test_a_plugin_that_raises_at_import_is_refused_alone_naming_its_distribution(inject, module, raised):
    inject("boom", f"{PLUGINS}.{module}:Boom", "evil-boom")
    with pytest.raises(ContractError) as e:
        target_class("boom")
    assert "evil-boom" in e.value.reason and raised in e.value.reason
    assert target_class("levinson-conrey").name == "levinson-conrey"
    doctor = {r["name"]: r for r in json.loads(invoke("doctor", "--json").output)["targets"]}
    assert doctor["boom"]["status"] == "refused" and raised in doctor["boom"]["reason"]
    assert doctor["levinson-conrey"]["status"] == "ok"
    out = invoke("doctor").output.replace("\n", "")  # rich markup in a plug-in's text is printed, never interpreted
    assert raised in out


def test_a_plugin_that_sleeps_at_import_is_refused_within_the_time_limit(inject, monkeypatch):
    monkeypatch.setenv("MATHLOOP_PLUGIN_IMPORT_TIMEOUT_S", "0.5")
    monkeypatch.setenv("MATHLOOP_TEST_PLUGIN_SLEEP_S", "3")
    inject("sleeper", f"{PLUGINS}.sleeping:Sleeper", "evil-sleep")
    t0 = time.monotonic()
    with pytest.raises(ContractError, match="entry point sleeper .* of evil-sleep cannot be loaded: its import did "
                                            "not finish within 0.5 s"):
        target_class("sleeper")
    assert time.monotonic() - t0 < 2.5
    with pytest.raises(ContractError, match="did not finish"):  # refused once per process: no second wait
        target_class("sleeper")
    assert time.monotonic() - t0 < 2.5
    assert target_class("pair-correlation").name == "pair-correlation"


def test_listing_registrations_and_shipped_contracts_imports_no_plugin(inject, monkeypatch):
    monkeypatch.setenv("MATHLOOP_TEST_PLUGIN_SLEEP_S", "30")
    for name in ("sleeping", "raising"):
        monkeypatch.delitem(sys.modules, f"{PLUGINS}.{name}", raising=False)
    inject("sleeper", f"{PLUGINS}.sleeping:Sleeper", "evil-sleep")
    inject("boom", f"{PLUGINS}.raising:Boom", "evil-boom")
    t0 = time.monotonic()
    names = {c.name for c in shipped_contracts()}
    assert load_contract("levinson-conrey").target == "levinson-conrey"  # a target not the plug-ins'
    assert time.monotonic() - t0 < 5 and "levinson-conrey" in names
    assert f"{PLUGINS}.sleeping" not in sys.modules and f"{PLUGINS}.raising" not in sys.modules


def test_a_plugin_contract_lacking_a_required_obligation_is_refused_naming_the_distribution(inject):
    inject("lacking", f"{PLUGINS}.lacking.target:Lacking", "evil-lacking")
    assert "lacking" in {c.name for c in shipped_contracts()}
    with pytest.raises(ContractError) as e:
        load_contract("lacking")
    assert e.value.key == "obligations.axiom-of-toys" and "is missing" in e.value.reason
    assert "shipped by distribution evil-lacking" in e.value.reason
    rows = {r["name"]: r for r in json.loads(invoke("targets", "--json").output)}
    assert "evil-lacking" in rows["lacking"]["error"] and "error" not in rows["levinson-conrey"]


def test_a_registration_that_is_not_a_target_class_is_refused(inject):
    inject("not-a-class", "json:JSONDecoder", "evil-json")
    with pytest.raises(ContractError, match="of evil-json is not a Target named 'not-a-class'"):
        target_class("not-a-class")
    inject("no-colon", "json", "evil-json")
    with pytest.raises(ContractError, match="not of the form 'module:Class'"):
        target_class("no-colon")
