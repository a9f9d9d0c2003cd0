"""A plug-in target renders Lean through the same door as the shipped ones: its own package's `lean/` modules.

The plug-in here is a package written to a temporary directory (`toyplug`, module `Mathloop.Toy`);
its commit is checked against its own module and mathloop's shared `Mathloop.Exact`, by a real
kernel where one exists (marker `lean`).
"""

from __future__ import annotations

import sys
import textwrap
from fractions import Fraction

import pytest

from mathloop.domain import Evidence
from mathloop.lean import support_modules
from mathloop.lean.commit import check_commit
from mathloop.lean.support_modules import SupportError, class_modules, select
from mathloop.lean.toolchain import Toolchain, discover
from tests.support.lean_evidence import StubContract

NO_LEAN = Toolchain("unavailable", reason="no Lean in this test")
H = "cd" * 32
TOY = textwrap.dedent("""\
    /- A plug-in's support module: one comparison in exact arithmetic. -/
    import Mathloop.Exact

    namespace Mathloop

    noncomputable section

    /-- x is at least 2/5. -/
    def toyAtLeastTwoFifths (x : Frac) : Bool := qle (qp 2 5) x

    end

    end Mathloop
    """)


@pytest.fixture
def toyplug(tmp_path, monkeypatch):
    """Return the plug-in's target class, from a package `toyplug` with `lean/Mathloop/Toy.lean`."""
    pkg = tmp_path / "toyplug"
    (pkg / "lean" / "Mathloop").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "lean" / "Mathloop" / "Toy.lean").write_text(TOY)
    (pkg / "target.py").write_text(textwrap.dedent('''\
        from fractions import Fraction
        from mathloop.lean.render import Claim, Definition, frac, render
        from mathloop.lean.support_modules import class_modules, package_modules, select
        from mathloop.targets.base import LeanRendering

        class Toy(LeanRendering):  # the Lean rendering capability alone
            name = "toy"

            def __init__(self, contract):
                self.contract = contract

            @classmethod
            def lean_support(cls):
                return class_modules(cls)

            def lean_render(self, h, ev):
                x = Fraction(ev.state["x"])
                c = self.contract
                return render(target=c.target, contract_name=c.name, contract_sha=c.sha256, commit_hash=h,
                              proves="x >= 2/5", given="nothing", not_proved="anything else",
                              defs=[Definition("x", "Frac", frac(x), "The certified value.")],
                              claims=[Claim("at_least", "x >= 2/5", "toyAtLeastTwoFifths x")],
                              support=select(("Mathloop.Exact", "Mathloop.Toy"), package_modules(__package__)),
                              bounds={"toy": ("x", x)})
        '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    for m in [m for m in sys.modules if m.startswith("toyplug")]:
        monkeypatch.delitem(sys.modules, m)
    support_modules._package.cache_clear()  # package data is cached per package name
    from toyplug.target import Toy

    yield Toy
    support_modules._package.cache_clear()


def _evidence(x: str, bound: str | None = None) -> Evidence:
    return Evidence("toy", "1", (), {"toy": Fraction(bound or x)}, {"x": x}, {})


def test_a_plugin_ships_its_support_modules_from_its_own_package(toyplug):
    assert toyplug.lean_support() == {"Mathloop.Toy": TOY}
    r = toyplug(StubContract("toy", "toy")).lean_render(H, _evidence("1/2"))
    assert r.support == ("Mathloop.Exact", "Mathloop.Toy") and "Mathloop/Toy.lean" in r.file_sha256s()


def test_a_plugin_commit_goes_to_lean_and_a_forged_bound_is_refuted(toyplug):
    target = toyplug(StubContract("toy", "toy"))
    assert check_commit(target, H, _evidence("1/2"), toolchain=NO_LEAN).status == "unavailable"
    out = check_commit(target, H, _evidence("1/2", bound="3/5"), toolchain=NO_LEAN)
    assert out.status == "refuted" and "toy = 1/2" in out.reasons[0]


def test_a_plugin_cannot_ship_the_shared_module(toyplug, tmp_path):
    (tmp_path / "toyplug" / "lean" / "Mathloop" / "Exact.lean").write_text("-- forged\n")
    support_modules._package.cache_clear()
    with pytest.raises(SupportError, match="shared module"):
        class_modules(toyplug)


def test_a_plugin_cannot_ship_a_module_of_a_shipped_target(toyplug, tmp_path):
    (tmp_path / "toyplug" / "lean" / "Mathloop" / "LevinsonConrey.lean").write_text("-- forged\n")
    support_modules._package.cache_clear()
    with pytest.raises(SupportError, match="Mathloop.LevinsonConrey is a module of mathloop's Lean library"):
        class_modules(toyplug)


def test_a_rendering_naming_a_module_nobody_ships_is_a_support_error():
    with pytest.raises(SupportError, match="Mathloop.Nowhere"):
        select(("Mathloop.Exact", "Mathloop.Nowhere"), {})


@pytest.mark.lean
def test_a_plugin_commit_is_checked_by_a_real_kernel_and_a_false_one_is_refuted(toyplug):
    tc = discover()
    if not tc.available:
        pytest.skip(f"no Lean here: {tc.reason}")
    target = toyplug(StubContract("toy", "toy"))
    ok = check_commit(target, H, _evidence("1/2"), toolchain=tc)
    assert ok.status == "checked", ok.reasons
    bad = check_commit(target, H, _evidence("1/3"), toolchain=tc)
    assert bad.status == "refuted", bad.reasons
