"""Refusal scan: every forbidden construct is refused before any Lean process starts (pairs)."""

from __future__ import annotations

import stat
import sys

import pytest

from mathloop.domain import Verdict
from mathloop.lean.check import check_source
from mathloop.lean.source import MATHLIB_IMPORT_PREFIXES, scan
from mathloop.lean.toolchain import Toolchain

OK = "theorem t : 2 ≤ 3 := by decide"

# (construct, should-refuse source, should-pass counterpart)
PAIRS = [
    ("sorry", "theorem t : 1 = 2 := by sorry", "theorem t : 1 = 1 := by rfl"),
    ("sorryAx", "theorem t : False := sorryAx False", "theorem t : True := trivial"),
    ("admit", "theorem t : 1 = 2 := by admit", "theorem t : 1 = 1 := by decide"),
    ("native_decide", "theorem t : 10 < 11 := by native_decide", "theorem t : 10 < 11 := by decide"),
    ("decide +native", "theorem t : 10 < 11 := by decide +native", "theorem t : 10 < 11 := by decide +kernel"),
    ("ofReduceBool", "theorem t : True := Lean.ofReduceBool _ _ rfl", "theorem t : True := trivial"),
    ("axiom", "axiom bad : False\ntheorem t : False := bad", OK),
    ("unsafe", "unsafe def f : Nat := 0", "def f : Nat := 0"),
    ("implemented_by", "@[implemented_by g] def f : Nat := 0", "def f : Nat := 0"),
    ("attribute", "@[reducible] def f : Nat := 0", "def f : Nat := 0"),
    ("binder_predicate", 'binder_predicate x " > " y:term => `($x > $y)', OK),
    ("#reduce", "#reduce 1", OK),
    ("declare_syntax_cat", "declare_syntax_cat foo", OK),
    ("extern", '@[extern "c_f"] def f : Nat := 0', "def f : Nat := 0"),
    ("#eval", "#eval 1 + 1", "example : 1 + 1 = 2 := rfl"),
    ("run_cmd", "run_cmd pure ()", OK),
    ("#exit", OK + "\n#exit\ntheorem u : False := trivial", OK),
    ("#print", '#print "forged report"', OK),
    ("set_option debug", "set_option debug.skipKernelTC true\n" + OK, "set_option maxRecDepth 4000\n" + OK),
    ("other option", "set_option trace.Meta.synthInstance true\n" + OK, "set_option maxHeartbeats 400000\n" + OK),
    ("syntax", 'syntax "foo" : term', OK),
    ("macro", 'macro "foo" : tactic => `(tactic| rfl)', OK),
    ("macro_rules", "macro_rules | `(tactic| trivial) => `(tactic| rfl)", OK),
    ("elab", 'elab "foo" : tactic => pure ()', OK),
    ("notation", 'notation "ℵ" => 0', OK),
    ("prelude", "prelude\n" + OK, OK),
    ("import Lean", "import Lean\n" + OK, "import Mathloop.Exact\n" + OK),
    ("import Mathlib by default", "import Mathlib\n" + OK, "import Init\n" + OK),
    ("nested comment", "/- outer /- inner -/ sorry -/\n" + OK, "/- outer /- inner -/ fine -/\n" + OK),
    ("comment closed early", "/- a -/ theorem x : False := by sorry /- b -/", "/- a -/ " + OK + " /- b -/"),
    ("inside a string", 'def s : String := "/-" \ntheorem x : False := by sorry -- "-/"', 'def s : String := "/-"\n' + OK),
]


@pytest.mark.parametrize("construct,bad,good", PAIRS, ids=[p[0] for p in PAIRS])
def test_forbidden_construct_is_refused_and_its_counterpart_passes(construct, bad, good):
    assert scan(bad), f"{construct} was not refused"
    assert scan(good) == (), f"{construct} counterpart refused: {scan(good)}"


def test_mathlib_imports_pass_only_with_the_mathlib_allowlist():
    src = "import Mathlib.Analysis.SpecialFunctions.Log.Basic\n" + OK
    assert scan(src) and scan(src, import_prefixes=MATHLIB_IMPORT_PREFIXES) == ()


def test_refusal_names_line_and_reason():
    (r,) = scan("def a : Nat := 1\n\ntheorem t : 1 = 2 := by sorry")
    assert (r.token, r.line) == ("sorry", 3) and "sorry" in str(r)


def test_refused_source_never_starts_a_process(tmp_path):
    marker = tmp_path / "ran"
    fake = tmp_path / "lean"
    fake.write_text(f"#!{sys.executable}\nopen({str(marker)!r}, 'w').write('x')\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    tc = Toolchain("toolchain", (str(fake),), "0.0.0", "0000000")
    for _, bad, _ in PAIRS:
        res = check_source(bad, ["t"], toolchain=tc)
        assert res.verdict is Verdict.REFUTED and res.refused and res.messages
    assert not marker.exists()
