"""mathloop's prelude, through the real bundled kernel: every name the kernel accelerates agrees with a
non-accelerated copy of its own definition, a wrong definition is caught by that check, and nothing
depends on any axiom."""

from __future__ import annotations

import itertools
import re
import subprocess
from pathlib import Path

import pytest

from mathloop.domain import Verdict
from mathloop.lean import bundled
from mathloop.lean.check import check_source
from mathloop.lean.toolchain import Toolchain, discover

pytestmark = pytest.mark.lean

# The names the Lean 4 kernel replaces by GMP arithmetic when applied to literals (NOTES.md, "Trust").
ACCELERATED = ("add", "sub", "mul", "div", "mod", "gcd", "beq", "ble", "pow", "land", "lor", "xor",
               "shiftLeft", "shiftRight", "log2")
SMALL = range(0, 7)


@pytest.fixture(scope="module")
def kernel() -> Toolchain:
    tc = discover(prefer="bundled")
    if tc.kind != "bundled":
        pytest.skip(f"the bundled kernel is not available here: {tc.reason}")
    return tc


def copy_of_nat(prelude: str) -> str:
    """Return the prelude's `namespace Nat` block renamed to `NatCopy` (no name in it is accelerated)."""
    block = prelude[prelude.index("namespace Nat\n"):prelude.index("end Nat\n")]
    block = re.sub(r"\bNat\.(add|sub|mul|pow|div|mod)\b", r"NatCopy.\1", block)
    block = block.replace("namespace Nat\n", "namespace NatCopy\nopen Nat (zero succ)\n", 1)
    return "noncomputable section\n" + block + "end NatCopy\nend\n"


def agreement_file(prelude: str) -> str:
    """Return a file of theorems `Eq (Nat.f a b) (NatCopy.f a b)` over a grid of small inputs."""
    lines = ["set_option maxRecDepth 100000", copy_of_nat(prelude)]
    for name in ACCELERATED:
        if name == "log2":
            grid = [(a,) for a in range(0, 20)]
        elif name in ("pow", "shiftLeft", "shiftRight"):
            grid = list(itertools.product(SMALL, range(0, 5)))
        else:
            grid = list(itertools.product(SMALL, SMALL))
        for args in grid:
            tag = "_".join(map(str, args))
            call = " ".join(map(str, args))
            lines.append(f"theorem agree_{name}_{tag} : Eq (Nat.{name} {call}) (NatCopy.{name} {call}) := rfl")
    return "\n".join(lines) + "\n"


def test_every_accelerated_name_agrees_with_a_copy_of_its_definition(kernel):
    res = check_source(agreement_file(bundled.prelude_text()), toolchain=kernel, timeout_s=600, name_scan=False)
    assert res.verdict is Verdict.PROVED, (res.reason, res.messages[:3])
    names = {t.split("_")[1] for t, _ in res.axioms}
    assert names == set(ACCELERATED)
    assert res.all_axioms() == (), "theorems over mathloop's prelude must depend on no axiom at all"


def _compile(kernel: Toolchain, text: str, out: Path) -> None:
    out.mkdir(parents=True)
    (out / "Init.lean").write_text(text)
    p = subprocess.run(kernel.argv("-o", str(out / "Init.olean"), "Init.lean"), cwd=out, capture_output=True,
                       text=True, timeout=300, env=kernel.env())
    assert p.returncode == 0, p.stdout + p.stderr


def test_a_wrong_prelude_definition_is_caught_by_the_agreement_check(kernel, tmp_path):
    good = bundled.prelude_text()
    wrong = good.replace("  | succ _, zero => false\n  | succ n, succ m => ble n m",
                         "  | succ _, zero => true\n  | succ n, succ m => ble n m")
    assert wrong != good
    _compile(kernel, wrong, tmp_path / "wrong")
    bad_kernel = Toolchain("bundled", kernel.command, kernel.version, kernel.commit, "wrong",
                           (str(tmp_path / "wrong"),))
    res = check_source(agreement_file(wrong), toolchain=bad_kernel, timeout_s=600, name_scan=False)
    assert res.verdict is Verdict.REFUTED
    # the accelerated (GMP) value and the wrong definition's value disagree: not definitionally equal
    assert "is not definitionally equal to the right-hand side\n  NatCopy." in " ".join(res.messages)


def test_prelude_theorems_and_a_certificate_depend_on_no_axiom(kernel):
    src = ("theorem t1 : Eq (Nat.ble 123456789123456789 123456789123456790) true := rfl\n"
           "theorem t2 : Eq (Int.mul (Int.neg (Int.ofNat 3)) (Int.ofNat 4)) (Int.neg (Int.ofNat 12)) := rfl\n"
           "theorem t3 : And True (Eq (Nat.gcd 12 18) 6) := And.intro True.intro rfl\n")
    res = check_source(src, toolchain=kernel)
    assert res.verdict is Verdict.PROVED and res.all_axioms() == () and len(res.axioms) == 3


def test_redefining_an_accelerated_name_is_rejected_by_lean(kernel):
    src = ("def Nat.lcm (a b : Nat) : Nat := 0\ntheorem ok : True := True.intro\n"
           "protected def Nat.gcd (a b : Nat) : Nat := 0\n")
    res = check_source(src, toolchain=kernel, name_scan=False)  # Lean itself, behind the name scan
    assert res.verdict is Verdict.REFUTED and "already" in " ".join(res.messages)
    assert check_source(src, toolchain=kernel).refused  # the name scan refuses it before Lean runs


def test_the_ctypes_runner_works_where_no_c_compiler_exists(kernel, tmp_path, monkeypatch):
    monkeypatch.setenv("MATHLOOP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MATHLOOP_LEAN_NO_CC", "1")
    b = bundled.prepare()
    assert b.launcher == "ctypes" and (b.prelude_dir / "Init.olean").is_file()
    tc = Toolchain("bundled", b.command, kernel.version, kernel.commit, b.prelude_sha256, (str(b.prelude_dir),),
                   b.launcher)
    assert check_source("theorem t : Eq (Nat.mul 6 7) 42 := rfl\n", toolchain=tc).verdict is Verdict.PROVED
    assert check_source("theorem t : Eq (Nat.mul 6 7) 43 := rfl\n", toolchain=tc).verdict is Verdict.REFUTED
