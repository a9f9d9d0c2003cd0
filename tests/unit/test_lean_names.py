"""Names a Lean file declares, fully qualified, and refusals of names that reuse a protected constant's.

Each should-refuse file reads as if it proved 2 + 2 = 5 (or gcd 4 6 = 5) about the prelude's
constants; each counterpart is a harmless file that must pass the name scan. Refused files never reach
Lean, so no kernel is needed here.
"""

from __future__ import annotations

import pytest

from mathloop.lean.check import check_source
from mathloop.lean.names import mask, names, prelude_names, shadowing, theorems
from mathloop.lean.toolchain import Toolchain

NO_LEAN = Toolchain("unavailable", reason="no Lean in this test")
SHADOW = [
    ("a prelude name inside a namespace",
     "namespace Foo\nnoncomputable section\ndef Nat.add (a b : Nat) : Nat := 5\n"
     "theorem t : Eq (Nat.add 2 2) 5 := rfl\nend\nend Foo\n", "Foo.Nat.add"),
    ("a nested namespace named after the prelude's",
     "namespace Foo\nnamespace Nat\ndef add (a b : Nat) : Nat := 5\nend Nat\n"
     "theorem t : Eq (Nat.add 2 2) 5 := rfl\nend Foo\n", "Foo.Nat.add"),
    ("a name exported into the prelude's namespace",
     "namespace Foo\ndef mygcd (a b : Nat) : Nat := 5\nend Foo\nnamespace Nat\nexport Foo (gcd)\nend Nat\n"
     "theorem t : Eq (Nat.gcd 4 6) 5 := rfl\n", "Nat.gcd"),
    ("a prelude name declared in another namespace and opened",
     "namespace Foo\ndef gcd (a b : Nat) : Nat := 5\nend Foo\nopen Foo\n"
     "theorem t : Eq (gcd 4 6) 5 := rfl\n", "Foo.gcd"),
    ("a prelude name given by open ... renaming",
     "namespace Foo\ndef five (a b : Nat) : Bool := Bool.true\nend Foo\nopen Foo renaming five → ble\n"
     "theorem t : Eq (ble 5 3) Bool.true := rfl\n", "ble"),
    ("an explicit open of a prelude name",
     "namespace Foo\ndef add (a b : Nat) : Nat := 5\nend Foo\nopen Foo (add)\n", "Foo.add"),
    ("a constructor named after a prelude constant",
     "inductive T where\n  | succ : T\n", "T.succ"),
    ("_root_ redeclaration",
     "namespace Foo\ndef _root_.Nat.ble (a b : Nat) : Bool := Bool.true\nend Foo\n", "Nat.ble"),
]
COUNTERPARTS = [
    "theorem t : Eq (Nat.add 2 2) 4 := rfl\n",
    "namespace Foo\nnoncomputable section\ndef myadd (a b : Nat) : Nat := Nat.add a b\n"
    "theorem t : Eq (myadd 2 2) 4 := rfl\nend\nend Foo\n",
    "namespace Foo\ndef five : Nat := 5\nend Foo\nopen Foo (five)\ntheorem t : Eq five 5 := rfl\n",
]


@pytest.mark.parametrize("what,src,name", SHADOW, ids=[s[0] for s in SHADOW])
def test_a_declaration_reusing_a_prelude_name_is_refused_before_lean(what, src, name):
    res = check_source(src, toolchain=NO_LEAN)
    assert res.refused and res.label == "REFUSED", (what, res.reason)
    assert any(f"`{name}` reuses the name of the protected constant" in m for m in res.messages), res.messages


@pytest.mark.parametrize("src", COUNTERPARTS)
def test_harmless_names_pass_the_name_scan(src):
    assert shadowing(src, prelude_names()) == ()
    assert check_source(src, toolchain=NO_LEAN).label == "UNKNOWN"  # reaches the (absent) Lean


def test_an_instance_is_refused():
    src = "instance five : OfNat Nat 5 where\n  ofNat := 4\ntheorem t : Eq (Nat.add 2 2) 5 := rfl\n"
    res = check_source(src, toolchain=NO_LEAN)
    assert res.refused and any("instance" in m for m in res.messages)


@pytest.mark.parametrize("lit", ['"', "'\"'", "«Nat.add»"])
def test_literals_that_could_hide_a_declaration_are_refused(lit):
    src = f"def s := {lit}\nnamespace Foo\ndef x : Nat := 1\nend Foo\n"
    assert check_source(src, toolchain=NO_LEAN).refused


def test_support_module_names_are_protected_when_given():
    src = ("namespace Certs.Cab\nopen Mathloop\ndef zble (a b : Int) : Bool := Bool.true\n"
           "theorem t : True := True.intro\nend Certs.Cab\n")
    assert check_source(src, toolchain=NO_LEAN).label == "UNKNOWN"
    res = check_source(src, toolchain=NO_LEAN, protected={"Mathloop.zble"})
    assert res.refused and "Mathloop.zble" in res.reason


def test_theorems_are_fully_qualified_through_namespaces_and_sections():
    src = ("namespace A\nnoncomputable section\ntheorem t : True := True.intro\nend\nnamespace B\n"
           "theorem u : True := True.intro\nend B\nend A\ntheorem v : True := True.intro\n"
           "-- theorem hidden : True := True.intro\n/- theorem nested /- -/ : True -/\n")
    assert theorems(src) == ["A.t", "A.B.u", "v"]


def test_comments_are_skipped_with_nesting():
    code, refusals = mask("/- a /- b -/ still comment -/ def x := 1")
    assert code.split() == ["def", "x", ":=", "1"] and refusals == []
    assert mask("/- never closed")[1]


def test_prelude_names_include_the_accelerated_constants():
    p = prelude_names()
    assert {"Nat.add", "Nat.ble", "Nat.gcd", "Nat.pow", "Nat.log2", "Eq.refl", "Bool.true", "true"} <= p
    assert [n.name for n in names("structure P where\n  x : Nat\n  y : Nat\n")] == ["P", "P.x", "P.y"]
