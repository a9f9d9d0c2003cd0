"""Should-prove / should-refuse pairs through a real Lean 4 kernel (marker `lean`).

Rendered commits are PROVED; a mutated digit in any number of an exported file, a false `Nat.ble`
claim, `sorry`, an `axiom`, `native_decide`, `#eval`, `run_cmd` and new syntax are never PROVED.
"""

from __future__ import annotations

import json
from fractions import Fraction
import re

import pytest

from mathloop.domain import Verdict
from mathloop.lean.check import check_source
from mathloop.lean.library import support_path
from mathloop.lean.toolchain import discover
from mathloop.targets.levinson_conrey import lean_claims
from mathloop.targets.pair_correlation.lean_claims import render_commit as render_pc
from tests.integration.cli import mathloop
from tests.support.lean_evidence import lc_evidence, pc_evidence

pytestmark = pytest.mark.lean

def render_lc(contract, h, ev):
    return lean_claims.render_commit(contract, h, ev, Fraction(4, 7))


H = "ab" * 32
_TC = discover()
needs_lean = pytest.mark.skipif(not _TC.available, reason=f"no Lean here: {_TC.reason}")
_NUM = re.compile(r"(?<![\w.])\d+(?![\w.])")


@pytest.fixture(scope="module")
def lc():
    contract, ev = lc_evidence(["0", "3/2", "-1/2"], ["1", "-1"], "13/10")
    return render_lc(contract, H, ev)


@pytest.fixture(scope="module")
def pc():
    contract, ev = pc_evidence(["1", "-3"])
    return render_pc(contract, H, ev)


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Return the spans of numeric literals outside comments."""
    masked = re.sub(r"/-.*?-/", lambda m: " " * len(m.group(0)), text, flags=re.S)
    masked = re.sub(r"^set_option .*$", lambda m: " " * len(m.group(0)), masked, flags=re.M)  # not data
    return [m.span() for m in _NUM.finditer(masked)]


def _mutants(rendered) -> list[str]:
    """Return one Statement text per numeric literal, with that literal's last digit changed."""
    st, out = rendered.statement, []
    for a, b in _code_spans(st):
        last = st[b - 1]
        out.append(st[:b - 1] + str((int(last) + 1) % 10) + st[b:])
    return out


def _body(text: str) -> str:
    return "\n".join(l for l in text.splitlines() if not l.startswith("import ")).strip() + "\n"


@needs_lean
@pytest.mark.parametrize("which", ["lc", "pc"])
def test_rendered_commit_is_proved_with_no_axioms(which, request):
    r = request.getfixturevalue(which)
    res = check_source(r.standalone_source(), r.theorems, toolchain=_TC)
    assert res.verdict is Verdict.PROVED, (res.reason, res.messages[:2])
    res = check_source(r.check_source(), r.theorems, toolchain=_TC, lean_path=(support_path(_TC, r.support_texts),))
    assert res.verdict is Verdict.PROVED, (res.reason, res.messages[:2])
    assert res.all_axioms() == () or set(res.all_axioms()) <= {"propext", "Classical.choice", "Quot.sound"}
    assert {t for t, _ in res.axioms} == set(r.theorems)


@needs_lean
@pytest.mark.parametrize("which", ["lc", "pc"])
def test_changing_any_digit_of_any_number_in_the_statement_is_never_proved(which, request):
    r = request.getfixturevalue(which)
    mutants = _mutants(r)
    assert len(mutants) >= (25 if which == "lc" else 8)
    support = "".join(f"import {m}\n" for m in r.support)
    failures = []
    for start in range(0, len(mutants), 12):  # several mutants per Lean run (Lean stops after 100 errors)
        blocks, ranges, theorems = [support], [], []
        line = support.count("\n") + 1
        for i, text in enumerate(mutants[start:start + 12], start):
            ns = f"Certs.M{i}"
            block = (_body(text) + _body(r.proof)).replace(r.module, ns)
            ranges.append((i, line, line + block.count("\n")))
            line += block.count("\n") + 1
            blocks.append(block)
            theorems += [t.replace(r.module, ns) for t in r.theorems]
        res = check_source("\n".join(blocks), theorems, toolchain=_TC, timeout_s=600, lean_path=(support_path(_TC, r.support_texts),))
        assert res.verdict is not Verdict.PROVED
        err_lines = [int(m.split(":", 1)[0]) for m in res.messages if ": error:" in m]
        for i, lo, hi in ranges:
            if not any(lo <= n <= hi for n in err_lines):
                failures.append(i)
    assert not failures, [re.sub(r"\s+", " ", mutants[i][_code_spans(r.statement)[i][0] - 40:
                                                       _code_spans(r.statement)[i][1] + 5]) for i in failures]


@needs_lean
def test_changing_a_published_constant_in_the_support_library_is_never_proved(lc):
    lib = lc.support_text("Mathloop.LevinsonConrey")
    spans = _code_spans(lib)
    assert len(spans) == 4  # conreyThetaSup = 4/7 and levinsonThetaSup = 1/2: the only numbers there
    for a, b in spans[:2]:  # the constant this commit's claims use (levinsonThetaSup is used by none of them)
        bad = lib[:b - 1] + str((int(lib[b - 1]) + 1) % 10) + lib[b:]
        src = lc.standalone_source().replace(_body(lib), _body(bad))
        assert src != lc.standalone_source()
        assert check_source(src, lc.theorems, toolchain=_TC).verdict is not Verdict.PROVED, lib[a - 30:b]


FALSE_BLE = "theorem t : Eq (Nat.ble 123456789123456789123456790 123456789123456789123456789) true := rfl\n"
TRUE_BLE = "theorem t : Eq (Nat.ble 123456789123456789123456789 123456789123456789123456790) true := rfl\n"
GOOD = "theorem t : Eq (Nat.add 2 2) 4 := rfl\n"
# (what, should-refuse source, verdict it must not have): never PROVED, each through `lean-check --file`.
REFUSE = [
    ("false Nat.ble claim", FALSE_BLE),
    ("sorry", "theorem t : Eq (Nat.add 2 2) 5 := sorry\n"),
    ("axiom", "axiom bad : Eq (Nat.add 2 2) 5\ntheorem t : Eq (Nat.add 2 2) 5 := bad\n"),
    ("native_decide", "theorem t : Eq (Nat.add 2 2) 5 := by native_decide\n"),
    ("#eval", "#eval Nat.add 2 2\n" + GOOD),
    ("run_cmd", "run_cmd pure ()\n" + GOOD),
    ("new syntax", 'syntax "myterm" : term\n' + GOOD),
    ("binder_predicate", 'binder_predicate x " >> " y:term => `(True)\n' + GOOD),
    ("notation", 'notation "two" => 2\n' + GOOD),
    ("redefining an accelerated name", "def Nat.ble (a b : Nat) : Bool := true\n" + GOOD),
    ("wrong claim by rfl", "theorem t : Eq (Nat.mul 3 4) 13 := rfl\n"),
    # The kernel would accept these (the constant is Foo.Nat.add, Foo.gcd, ...); the report must not read 2 + 2 = 5.
    ("Nat.add redefined in a namespace", "namespace Foo\nnoncomputable section\ndef Nat.add (a b : Nat) : Nat := 5\n"
                                         "theorem t : Eq (Nat.add 2 2) 5 := rfl\nend\nend Foo\n"),
    ("gcd exported into Nat", "namespace Foo\nnoncomputable section\ndef gcd (a b : Nat) : Nat := 5\nend\nend Foo\n"
                              "namespace Nat\nexport Foo (gcd)\nend Nat\ntheorem t : Eq (Nat.gcd 4 6) 5 := rfl\n"),
    ("ble by open renaming", "namespace Foo\nnoncomputable section\ndef yes (a b : Nat) : Bool := Bool.true\nend\n"
                             "end Foo\nopen Foo renaming yes → ble\ntheorem t : Eq (ble 5 3) Bool.true := rfl\n"),
]


@needs_lean
@pytest.mark.parametrize("what,src", REFUSE, ids=[r[0] for r in REFUSE])
def test_lean_check_file_never_proves_a_bad_file(what, src, tmp_path):
    f = tmp_path / "F.lean"
    f.write_text(src)
    proc = mathloop("lean-check", "--file", str(f), "--json")
    out = json.loads(proc.stdout)
    assert out["verdict"] in ("REFUTED", "REFUSED") and proc.returncode == 1, (what, out)
    assert out["reasons"]


@needs_lean
@pytest.mark.parametrize("src", [TRUE_BLE, GOOD], ids=["true Nat.ble claim", "plain equality"])
def test_lean_check_file_proves_the_counterparts(src, tmp_path):
    f = tmp_path / "F.lean"
    f.write_text(src)
    proc = mathloop("lean-check", "--file", str(f), "--json")
    out = json.loads(proc.stdout)
    assert (out["verdict"], out["axioms"], proc.returncode) == ("PROVED", [], 0), out


@needs_lean
def test_lean_check_file_prints_every_theorem_fully_qualified(tmp_path):
    f = tmp_path / "F.lean"
    f.write_text("namespace Foo\ntheorem t : Eq (Nat.add 2 2) 4 := rfl\nend Foo\ntheorem u : Eq (Nat.gcd 4 6) 2 := rfl\n")
    out = json.loads(mathloop("lean-check", "--file", str(f), "--json").stdout)
    assert out["verdict"] == "PROVED" and out["statements"] == [
        {"theorem": "Foo.t", "statement": "Eq (Nat.add 2 2) 4"}, {"theorem": "u", "statement": "Eq (Nat.gcd 4 6) 2"}]
    text = mathloop("lean-check", "--file", str(f)).stdout
    assert "theorem Foo.t : Eq (Nat.add 2 2) 4" in text


def test_lean_check_file_refuses_before_lean_runs_and_exits_1(tmp_path):
    f = tmp_path / "F.lean"
    f.write_text("theorem t : False := sorry\n")
    proc = mathloop("lean-check", "--file", str(f), "--json")
    assert json.loads(proc.stdout)["verdict"] == "REFUSED" and proc.returncode == 1
    missing = mathloop("lean-check", "--file", str(tmp_path / "nope.lean"), "--json")
    assert missing.returncode == 2 and "no such file" in missing.stderr


@needs_lean
def test_doctor_reports_the_lean_in_use():
    proc = mathloop("doctor", "--json")
    lean = json.loads(proc.stdout)["lean"]
    assert lean["available"] is True and lean["kind"] in ("bundled", "toolchain") and lean["version"]
    if lean["kind"] == "bundled":
        assert lean["version"] == "4.35.0" and lean["prelude_sha256"]
