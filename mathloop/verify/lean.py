"""The Lean 4 kernel checker: find a toolchain, refuse bad source, run Lean, read its verdict.

The answer is a value (LeanResult): PROVED, REFUTED (with Lean's messages or the refusal
reasons) or UNKNOWN (no working toolchain, with the reason). A failure to answer (timeout, crash)
raises LeanCrash / LeanTimeout; the caller turns that into `error` in one place.
Accepted only if: no error message, no `sorry` warning, every declared theorem has an axiom report
from the lines the checker appended itself, and every axiom is in the allowlist.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from mathloop.domain import Verdict, sha256_hex
from mathloop.verify.lean_process import LeanCrash, LeanTimeout, ProcessOutput, run_process
from mathloop.verify.lean_source import DEFAULT_IMPORT_PREFIXES, scan

__all__ = ["ALLOWED_AXIOMS", "LeanCrash", "LeanMessage", "LeanResult", "LeanTimeout", "Toolchain",
           "check_source", "discover", "parse_messages", "project_dir"]

ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})
CHECK_FILE = "MathloopCheck.lean"
_AXIOMS_RE = re.compile(r"^'(?P<name>[^']+)' depends on axioms: \[(?P<axioms>[^\]]*)\]", re.S)
_NO_AXIOMS_RE = re.compile(r"^'(?P<name>[^']+)' does not depend on any axioms")
_UNAVAILABLE_HINTS = ("no default toolchain", "toolchain not installed", "could not resolve host",
                      "failed to install", "is not installed")


def project_dir() -> Path:
    """Return the repository's `lean/` Lake project (support library and pinned toolchain)."""
    return Path(__file__).resolve().parents[2] / "lean"


@dataclass(frozen=True)
class Toolchain:
    """A working Lean, or the reason there is none.

    Attributes:
        kind: "lake" (run `lake env lean`), "lean" (run `lean` directly) or "unavailable".
        executable: absolute path of the executable used.
        version: `lean --version` output (first line), e.g. "Lean (version 4.28.0, ...)".
        reason: why it is unavailable (empty when available).
        tried: every candidate tried, with what happened.
    """

    kind: str
    executable: str = ""
    version: str = ""
    reason: str = ""
    tried: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        return self.kind != "unavailable"


@dataclass(frozen=True)
class LeanMessage:
    """One message of `lean --json` (positions as Lean reports them)."""

    severity: str
    line: int
    column: int
    text: str
    kind: str = ""

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.severity}: {self.text}"


@dataclass(frozen=True)
class LeanResult:
    """The checker's answer for one file.

    Attributes:
        verdict: PROVED, REFUTED or UNKNOWN (never ERROR: failures to answer raise).
        reason: one line saying why.
        lean_version: the toolchain's version string ("" if none ran).
        file_sha256: sha256 of the checked source as given (before the appended `#print axioms`).
        axioms: (theorem, axioms it depends on) for every theorem reported.
        messages: Lean's messages, or the refusal reasons when the source was refused.
        seconds: wall-clock time of the Lean run (0 when none ran).
    """

    verdict: Verdict
    reason: str
    lean_version: str = ""
    file_sha256: str = ""
    axioms: tuple[tuple[str, tuple[str, ...]], ...] = ()
    messages: tuple[str, ...] = ()
    seconds: float = 0.0
    refused: bool = field(default=False)


def _version_probe_result(p: subprocess.CompletedProcess) -> tuple[bool, str]:
    """Return (works?, first output line) of a `--version` probe: an elan shim without a toolchain
    exits non-zero or says so, and anything that does not name Lean is not a Lean."""
    out = (p.stdout + "\n" + p.stderr).strip()
    first = out.splitlines()[0] if out else ""
    if p.returncode != 0 or any(h in out.lower() for h in _UNAVAILABLE_HINTS) or "lean" not in out.lower():
        return False, f"exit {p.returncode}: {first or 'no output'}"
    return True, first


def _probe(exe: str, args: Sequence[str]) -> tuple[bool, str]:
    """Return (works?, first line of output or the failure) for `exe args --version`."""
    try:
        p = subprocess.run([exe, *args, "--version"], capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL, cwd=tempfile.gettempdir())
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"{type(e).__name__}: {e}"
    return _version_probe_result(p)


def _probe_in(lake: str, project: Path) -> tuple[bool, str]:
    """Return (works?, version) of `lake env lean --version` run inside the project copy."""
    try:
        p = subprocess.run([lake, "env", "lean", "--version"], capture_output=True, text=True, timeout=120,
                           stdin=subprocess.DEVNULL, cwd=str(project))
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"{type(e).__name__}: {e}"
    return _version_probe_result(p)


def _candidate(exe: str) -> tuple[Toolchain | None, str]:
    name = Path(exe).name.lower()
    if name.startswith("lake"):
        ok, out = _probe(exe, ["env", "lean"])
        return (Toolchain("lake", exe, out) if ok else None), f"{exe} env lean --version: {out}"
    ok, out = _probe(exe, [])
    return (Toolchain("lean", exe, out) if ok else None), f"{exe} --version: {out}"


def discover() -> Toolchain:
    """Return the first working toolchain: $MATHLOOP_LEAN, else `lake`, else `lean` on PATH.

    An elan shim without an installed toolchain ("no default toolchain configured") is unavailable,
    not an error.
    """
    tried: list[str] = []
    env = os.environ.get("MATHLOOP_LEAN")
    candidates = [env] if env else []
    candidates += [p for p in (shutil.which("lake"), shutil.which("lean")) if p]
    if env and not (Path(env).is_file() and os.access(env, os.X_OK)):
        tried.append(f"MATHLOOP_LEAN={env}: not an executable file")
        candidates.remove(env)
    for exe in candidates:
        tc, note = _candidate(exe)
        tried.append(note)
        if tc is not None:
            return Toolchain(tc.kind, tc.executable, tc.version, "", tuple(tried))
    if not tried:
        tried.append("MATHLOOP_LEAN unset; no `lake` or `lean` on PATH")
    return Toolchain("unavailable", reason="no working Lean 4 toolchain: " + "; ".join(tried), tried=tuple(tried))


def _position(v: Any) -> int:
    """Return a line/column number from Lean's JSON (0 when absent or not a plausible number)."""
    if isinstance(v, str) and v.isdigit() and len(v) < 10:
        v = int(v)
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 10**9 else 0


def parse_messages(stdout: str) -> tuple[list[LeanMessage], list[str]]:
    """Return (messages, non-JSON lines) of `lean --json` output (one JSON object per line)."""
    msgs: list[LeanMessage] = []
    other: list[str] = []
    for raw in stdout.splitlines():
        line = raw.strip()
        if not line:
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError:
            other.append(line)
            continue
        if not isinstance(d, dict) or "severity" not in d or "data" not in d:
            other.append(line)
            continue
        pos = d.get("pos") if isinstance(d.get("pos"), dict) else {}
        msgs.append(LeanMessage(str(d["severity"]), _position(pos.get("line")), _position(pos.get("column")),
                                str(d["data"]), str(d.get("kind", "") or "")))
    return msgs, other


def _axiom_reports(msgs: Sequence[LeanMessage], first_line: int) -> dict[str, tuple[str, ...]]:
    """Return {theorem: axioms} from the `#print axioms` lines at or after `first_line`."""
    out: dict[str, tuple[str, ...]] = {}
    for m in msgs:
        if m.severity != "information" or m.line < first_line:
            continue
        text = m.text.strip()
        if (hit := _AXIOMS_RE.match(text)) is not None:
            out[hit["name"]] = tuple(sorted(a.strip() for a in hit["axioms"].replace("\n", " ").split(",") if a.strip()))
        elif (hit := _NO_AXIOMS_RE.match(text)) is not None:
            out[hit["name"]] = ()
    return out


def _judge(msgs: list[LeanMessage], other: list[str], theorems: Sequence[str], first_line: int) -> tuple[Verdict, str, dict]:
    """Return (verdict, reason, axiom reports) from Lean's messages."""
    # Only reports at or after the checker's own `#print axioms` lines count (first_line - 1 also
    # accepts a 0-based line count; the line before them is a blank line the checker added).
    reports = _axiom_reports(msgs, first_line - 1)
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


def _workdir(root: Path, source: str, theorems: Sequence[str], project: Path) -> tuple[Path, int]:
    """Write a copy of the project plus the check file; return (file, first appended line)."""
    # lean-toolchain too: an elan-managed `lake` then runs the pinned Lean, not whatever is default.
    for name in ("lakefile.toml", "lakefile.lean", "lean-toolchain"):
        if (project / name).is_file():
            shutil.copy2(project / name, root / name)
    if (project / "Mathloop").is_dir():
        shutil.copytree(project / "Mathloop", root / "Mathloop")
    body = source if source.endswith("\n") else source + "\n"
    first = body.count("\n") + 2
    appended = "\n" + "".join(f"#print axioms {t}\n" for t in theorems)
    path = root / CHECK_FILE
    path.write_text(body + appended, encoding="utf-8")
    return path, first


def check_source(source: str, theorems: Sequence[str], *, toolchain: Toolchain | None = None,
                 timeout_s: float = 600, memory_mb: int | None = 8192, project: Path | None = None,
                 import_prefixes: tuple[str, ...] = DEFAULT_IMPORT_PREFIXES) -> LeanResult:
    """Return Lean's verdict on a self-contained source declaring `theorems` (fully qualified).

    The source is scanned first; refused source never reaches a process. The file runs in a
    copy of the project in a temporary directory (`lake env lean --json`, or `lean --json`).

    Raises:
        LeanTimeout: the wall-clock limit passed (process tree killed).
        LeanCrash: Lean crashed or exited non-zero without saying why.
    """
    digest = sha256_hex(source.encode("utf-8"))
    refusals = scan(source, import_prefixes=import_prefixes)
    if refusals:
        return LeanResult(Verdict.REFUTED, f"refused before running Lean: {refusals[0]}", file_sha256=digest,
                          messages=tuple(str(r) for r in refusals), refused=True)
    if not theorems or not all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", t) for t in theorems):
        raise ValueError("theorems must be a non-empty list of plain dotted Lean names")
    tc = toolchain if toolchain is not None else discover()
    if not tc.available:
        return LeanResult(Verdict.UNKNOWN, tc.reason, file_sha256=digest)
    with tempfile.TemporaryDirectory(prefix="mathloop-lean-") as tmp:
        path, first = _workdir(Path(tmp), source, theorems, project or project_dir())
        if tc.kind == "lake":
            ok, version = _probe_in(tc.executable, Path(tmp))
            if not ok:
                return LeanResult(Verdict.UNKNOWN, f"the project's toolchain is not available: {version}",
                                  file_sha256=digest)
            tc = Toolchain(tc.kind, tc.executable, version, "", tc.tried)
        if tc.kind == "lake" and re.search(r"^import Mathloop", source, re.M):
            built = run_process([tc.executable, "build", "Mathloop"], cwd=Path(tmp), timeout_s=timeout_s,
                                memory_mb=memory_mb)
            if built.returncode != 0:
                raise LeanCrash("`lake build Mathloop` failed", built.stdout, built.stderr, built.returncode)
        cmd = [tc.executable, "env", "lean", "--json", path.name] if tc.kind == "lake" else [tc.executable, "--json", path.name]
        out = run_process(cmd, cwd=Path(tmp), timeout_s=timeout_s, memory_mb=memory_mb)
    return _result(out, tc, digest, theorems, first)


def _result(out: ProcessOutput, tc: Toolchain, digest: str, theorems: Sequence[str], first: int) -> LeanResult:
    msgs, other = parse_messages(out.stdout)
    if out.returncode != 0 and not any(m.severity == "error" for m in msgs):
        raise LeanCrash(f"{Path(tc.executable).name} exited {out.returncode} without an error message",
                        out.stdout, out.stderr, out.returncode)
    verdict, reason, reports = _judge(msgs, other, theorems, first)
    return LeanResult(verdict, reason, tc.version, digest, tuple(sorted(reports.items())),
                      tuple(str(m) for m in msgs), round(out.seconds, 3))
