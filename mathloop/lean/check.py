"""Run Lean on one self-contained file and read its verdict (refusal scan first, axioms by allowlist).

PROVED only if: the source passes the refusal scan and the name scan (no declaration, export or
open-renaming reuses a protected constant's name), Lean reports no error and no `sorry`, every
declared theorem has an axiom report from the `#print axioms` lines the checker appended itself,
and every axiom is in {propext, Classical.choice, Quot.sound}. Refused source never reaches a
process. Lean also prints every theorem's statement with fully qualified names (`#check` under
`pp.fullNames`), so a report never shows `Nat.add` for `Foo.Nat.add`. A failure to answer
(timeout, crash) raises LeanCrash / LeanTimeout.
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from mathloop.domain import Verdict, sha256_hex
from mathloop.lean import names as lean_names
from mathloop.lean.process import LeanCrash, LeanTimeout, ProcessOutput, run_process
from mathloop.lean.source import scan
from mathloop.lean.toolchain import Toolchain, discover

__all__ = ["ALLOWED_AXIOMS", "LeanCrash", "LeanMessage", "LeanResult", "LeanTimeout", "check_source",
           "declared_theorems", "judge", "parse_messages"]

ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})
CHECK_FILE = "MathloopCheck.lean"
_AXIOMS_RE = re.compile(r"^'(?P<name>[^']+)' depends on axioms: \[(?P<axioms>[^\]]*)\]", re.S)
_NO_AXIOMS_RE = re.compile(r"^'(?P<name>[^']+)' does not depend on any axioms")
# Appended after the file (with the `#print axioms` lines): statements printed with full names.
_PP_OPTIONS = ("set_option pp.fullNames true\nset_option pp.deepTerms true\nset_option pp.maxSteps 1000000\n")
MAX_STATEMENT_CHARS = 4000


@dataclass(frozen=True)
class LeanMessage:
    """One message of `lean --json` (positions as Lean reports them)."""

    severity: str
    line: int
    column: int
    text: str

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.severity}: {self.text}"


@dataclass(frozen=True)
class LeanResult:
    """The checker's answer for one file.

    Attributes:
        verdict: PROVED, REFUTED or UNKNOWN (never ERROR: failures to answer raise).
        reason: one line saying why.
        refused: True when the refusal scan stopped the file before Lean ran.
        file_sha256: sha256 of the source as given (before the appended `#print axioms`).
        axioms: (theorem, axioms it depends on) for every theorem reported.
        statements: (theorem, its statement as Lean prints it with fully qualified names).
        messages: Lean's messages, or the refusal reasons.
        seconds: wall-clock time of the Lean run.
        kind / version / commit / prelude_sha256: which Lean answered.
    """

    verdict: Verdict
    reason: str
    refused: bool = False
    file_sha256: str = ""
    axioms: tuple[tuple[str, tuple[str, ...]], ...] = ()
    statements: tuple[tuple[str, str], ...] = ()
    messages: tuple[str, ...] = ()
    seconds: float = 0.0
    kind: str = ""
    version: str = ""
    commit: str = ""
    prelude_sha256: str = ""

    @property
    def label(self) -> str:
        """Return PROVED | REFUTED | REFUSED | UNKNOWN (REFUSED: stopped by the scan)."""
        return "REFUSED" if self.refused else self.verdict.value

    def all_axioms(self) -> tuple[str, ...]:
        return tuple(sorted({a for _, axs in self.axioms for a in axs}))

    def to_json(self) -> dict:
        return {"verdict": self.label, "axioms": list(self.all_axioms()),
                "reasons": [self.reason, *self.messages], "file_sha256": self.file_sha256,
                "statements": [{"theorem": t, "statement": st} for t, st in self.statements],
                "seconds": self.seconds, "lean": {"kind": self.kind or None, "version": self.version or None,
                                                  "commit": self.commit or None,
                                                  "prelude_sha256": self.prelude_sha256 or None}}


def _position(v: Any) -> int:
    """Return a line/column number from Lean's JSON (0 when absent or not a plausible number)."""
    if isinstance(v, str) and v.isascii() and v.isdigit() and len(v) < 10:  # isdigit alone admits '¹', which int() refuses
        v = int(v)
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 10**9 else 0


def parse_messages(stdout: str) -> list[LeanMessage]:
    """Return the messages of `lean --json` output (one JSON object per line; other lines ignored)."""
    msgs: list[LeanMessage] = []
    for raw in stdout.splitlines():
        try:
            d = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if isinstance(d, dict) and "severity" in d and "data" in d:
            pos = d.get("pos") if isinstance(d.get("pos"), dict) else {}
            msgs.append(LeanMessage(str(d["severity"]), _position(pos.get("line")), _position(pos.get("column")),
                                    str(d["data"])))
    return msgs


def declared_theorems(source: str) -> list[str]:
    """Return the fully qualified names of the `theorem`s a plain-style file declares (namespaces tracked)."""
    return lean_names.theorems(source)


def statements(msgs: Sequence[LeanMessage], theorems: Sequence[str], first_line: int) -> tuple[tuple[str, str], ...]:
    """Return (theorem, statement) from the checker's own `#check` lines (fully qualified names)."""
    out: dict[str, str] = {}
    for m in msgs:
        if m.severity != "information" or m.line < first_line:
            continue
        name, sep, statement = m.text.partition(" : ")
        if sep and name in theorems and name not in out:
            st = " ".join(statement.split())
            out[name] = st if len(st) <= MAX_STATEMENT_CHARS else st[:MAX_STATEMENT_CHARS] + " …"
    return tuple((t, out[t]) for t in theorems if t in out)


def judge(msgs: Sequence[LeanMessage], theorems: Sequence[str], first_line: int) -> tuple[Verdict, str, dict]:
    """Return (verdict, reason, {theorem: axioms}) from Lean's messages."""
    reports: dict[str, tuple[str, ...]] = {}
    for m in msgs:
        if m.severity != "information" or m.line < first_line:
            continue  # only the checker's own `#print axioms` lines count
        text = m.text.strip()
        if (hit := _AXIOMS_RE.match(text)) is not None:
            reports[hit["name"]] = tuple(sorted(a.strip() for a in hit["axioms"].replace("\n", " ").split(",")
                                                if a.strip()))
        elif (hit := _NO_AXIOMS_RE.match(text)) is not None:
            reports[hit["name"]] = ()
    errors = [m for m in msgs if m.severity == "error"]
    if errors:
        return Verdict.REFUTED, f"Lean reported {len(errors)} error(s): {errors[0].text.splitlines()[0]}", reports
    if any("sorry" in m.text for m in msgs if m.severity == "warning"):
        return Verdict.REFUTED, "declaration uses `sorry`", reports
    missing = [t for t in theorems if t not in reports]
    if missing:
        return Verdict.REFUTED, f"no axiom report for {', '.join(missing)}", reports
    bad = sorted({a for t in theorems for a in reports[t] if a not in ALLOWED_AXIOMS})
    if bad:
        return Verdict.REFUTED, f"axioms outside the allowlist: {', '.join(bad)}", reports
    return Verdict.PROVED, f"Lean accepted {len(theorems)} theorem(s); axioms within the allowlist", reports


def _result(tc: Toolchain, verdict: Verdict, reason: str, digest: str, **kw) -> LeanResult:
    return LeanResult(verdict, reason, file_sha256=digest, kind=tc.kind, version=tc.version, commit=tc.commit,
                      prelude_sha256=tc.prelude_sha256, **kw)


def check_source(source: str, theorems: Sequence[str] | None = None, *, toolchain: Toolchain | None = None,
                 timeout_s: float = 600, memory_mb: int | None = 8192, lean_path: Sequence[Path] = (),
                 protected: Iterable[str] = (), name_scan: bool = True) -> LeanResult:
    """Return Lean's verdict on a self-contained source declaring `theorems` (default: every `theorem` in it).

    `protected`: names besides the prelude's that the source may not reuse (the support modules' names
    when it imports them). `name_scan=False` only for mathloop's own trusted test files (the prelude's
    agreement check declares copies of prelude names on purpose); the refusal scan always runs.

    Raises:
        LeanTimeout: the wall-clock limit passed (process group killed).
        LeanCrash: Lean crashed or exited non-zero without saying why.
    """
    digest = sha256_hex(source.encode("utf-8"))
    shadows = lean_names.shadowing(source, lean_names.prelude_names() | set(protected)) if name_scan else ()
    refusals = tuple(sorted(scan(source) + shadows, key=lambda r: (r.line, r.token)))
    if refusals:
        return LeanResult(Verdict.REFUTED, f"refused before running Lean: {refusals[0]}", refused=True,
                          file_sha256=digest, messages=tuple(str(r) for r in refusals))
    names = list(theorems) if theorems is not None else declared_theorems(source)
    if not names:
        return LeanResult(Verdict.REFUTED, "the file declares no theorem", refused=True, file_sha256=digest)
    if not all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.']*", t) for t in names):
        raise ValueError("theorems must be plain dotted Lean names")
    tc = toolchain if toolchain is not None else discover()
    if not tc.available:
        return LeanResult(Verdict.UNKNOWN, tc.reason, file_sha256=digest)
    body = source if source.endswith("\n") else source + "\n"
    first = body.count("\n") + 2
    with tempfile.TemporaryDirectory(prefix="mathloop-lean-") as tmp:
        (Path(tmp) / CHECK_FILE).write_text(body + "\n" + "".join(f"#print axioms {t}\n" for t in names)
                                            + _PP_OPTIONS + "".join(f"#check {t}\n" for t in names), encoding="utf-8")
        out = run_process(tc.argv("--json", CHECK_FILE), cwd=Path(tmp), timeout_s=timeout_s, memory_mb=memory_mb,
                          env=tc.env(*lean_path))
    return _answer(out, tc, digest, names, first)


def _answer(out: ProcessOutput, tc: Toolchain, digest: str, theorems: Sequence[str], first: int) -> LeanResult:
    msgs = parse_messages(out.stdout)
    if out.returncode != 0 and not any(m.severity == "error" for m in msgs):
        raise LeanCrash(f"lean exited {out.returncode} without an error message", out.stdout, out.stderr,
                        out.returncode)
    verdict, reason, reports = judge(msgs, theorems, first)
    return _result(tc, verdict, reason, digest, axioms=tuple(sorted(reports.items())),
                   statements=statements(msgs, theorems, first),
                   messages=tuple(str(m) for m in msgs if m.severity != "information" or m.line < first),
                   seconds=round(out.seconds, 3))
