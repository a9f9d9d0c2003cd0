"""Refuse untrusted Lean source before any process starts.

Model-written Lean is untrusted input. The scan deliberately does not try to parse Lean's nested
comments, strings and char literals: a forbidden token anywhere in the text (including inside a
comment or a string) refuses the file. Over-refusing a harmless comment is cheap; mis-parsing a
comment boundary and letting `sorry` or `set_option debug.skipKernelTC` through is not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_SOURCE_BYTES = 8_000_000
DEFAULT_IMPORT_PREFIXES: tuple[str, ...] = ("Init", "Mathloop", "Certs")
MATHLIB_IMPORT_PREFIXES: tuple[str, ...] = (*DEFAULT_IMPORT_PREFIXES, "Mathlib", "MathloopReal")
# genCtorIdx false: an inductive declared over mathloop's prelude cannot get its auxiliary `ctorIdx` (the
# prelude has no PULift); the option only skips that definition.
SAFE_OPTIONS = frozenset({"maxRecDepth", "maxHeartbeats", "autoImplicit", "relaxedAutoImplicit", "genCtorIdx"})

# Matched as substrings (so `sorryAx`, `unsafeCast`, `decide +native` are caught too).
_SUBSTRINGS: tuple[tuple[str, str], ...] = (
    ("sorry", "`sorry` proves anything"),
    ("admit", "`admit` proves anything"),
    ("native", "native evaluation (`native_decide`, `decide +native`) trusts the compiler"),
    ("ofReduceBool", "trusts the compiler"),
    ("ofReduceNat", "trusts the compiler"),
    ("trustCompiler", "trusts the compiler"),
    ("axiom", "new axioms (and `#print axioms` forgeries) are not allowed"),
    ("unsafe", "`unsafe` code is not allowed"),
    ("implemented_by", "`implemented_by` replaces a definition's code"),
    ("extern", "`extern` replaces a definition's code"),
    ("#eval", "`#eval` runs code at elaboration time"),
    ("#exit", "`#exit` stops checking the rest of the file"),
    ("#print", "`#print` can forge the axiom report (the checker appends its own)"),
    ("#guard_msgs", "`#guard_msgs` rewrites messages"),
    ("run_cmd", "`run_cmd` runs code at elaboration time"),
    ("run_tac", "`run_tac` runs code at elaboration time"),
    ("run_elab", "`run_elab` runs code at elaboration time"),
    ("run_meta", "`run_meta` runs code at elaboration time"),
    ("debug.", "debug options can skip kernel checks"),
    ("@[", "attributes can change how definitions are compiled or elaborated"),
)
# Matched as whole words: commands that declare new syntax or elaborators, or change the prelude.
_WORDS: tuple[str, ...] = (
    "syntax", "macro", "macro_rules", "elab", "elab_rules", "notation", "infix", "infixl", "infixr",
    "prefix", "postfix", "declare_syntax_cat", "initialize", "builtin_initialize", "prelude",
    "opaque", "binder_predicate", "binder_tactic", "declare_simp_like_tactic", "declare_config_elab",
    "register_option", "register_builtin_option", "register_simp_attr", "register_label_attr",
    "attribute", "deriving", "add_decl_doc",
)
# Any other `#command` (`#reduce`, `#check`, `#synth`, ...): the checker appends its own `#print axioms`.
_HASH_COMMAND_RE = re.compile(r"(?<![\w.'])#[A-Za-z_]+")
_WORD_RE = re.compile(r"(?<![\w.'])(" + "|".join(map(re.escape, _WORDS)) + r")(?![\w'])")
_IMPORT_RE = re.compile(r"(?<![\w.'])import(?![\w'])([^\n]*)")
_OPTION_RE = re.compile(r"(?<![\w.'])set_option(?![\w'])\s*(\S*)")
_MODULE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


@dataclass(frozen=True)
class Refusal:
    """Why a source was refused: the offending token, its 1-based line, and the reason."""

    token: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: `{self.token}`: {self.reason}"


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _import_refusals(text: str, prefixes: tuple[str, ...]) -> list[Refusal]:
    out = []
    for m in _IMPORT_RE.finditer(text):
        words = m.group(1).split()
        # Lean 4 imports one module per `import` (optionally `all`/`runtime`); anything else is refused.
        while words and words[0] in ("all", "runtime"):
            words = words[1:]
        mod = words[0] if words else ""
        if len(words) != 1 or not _MODULE_RE.match(mod):
            out.append(Refusal("import", _line(text, m.start()), f"unrecognised import {m.group(1).strip()!r}"))
        elif not any(mod == p or mod.startswith(p + ".") for p in prefixes):
            out.append(Refusal(f"import {mod}", _line(text, m.start()),
                               f"import outside the allowlist ({', '.join(prefixes)})"))
    return out


def _option_refusals(text: str) -> list[Refusal]:
    out = []
    for m in _OPTION_RE.finditer(text):
        name = m.group(1)
        if name not in SAFE_OPTIONS and not name.startswith("linter."):
            out.append(Refusal(f"set_option {name}", _line(text, m.start()), "option outside the allowlist"))
    return out


def scan(text: str, *, import_prefixes: tuple[str, ...] = DEFAULT_IMPORT_PREFIXES) -> tuple[Refusal, ...]:
    """Return every reason to refuse `text` (empty tuple: nothing forbidden was found).

    >>> [r.token for r in scan("theorem t : True := by sorry")]
    ['sorry']
    >>> scan("theorem t : 2 ≤ 3 := by decide")
    ()
    """
    if len(text.encode("utf-8")) > MAX_SOURCE_BYTES:
        return (Refusal("<size>", 1, f"source larger than {MAX_SOURCE_BYTES} bytes"),)
    out: list[Refusal] = []
    if "\x00" in text:
        out.append(Refusal("<NUL>", _line(text, text.index("\x00")), "NUL byte in source"))
    for token, reason in _SUBSTRINGS:
        start = 0
        while (pos := text.find(token, start)) >= 0:
            out.append(Refusal(token, _line(text, pos), reason))
            start = pos + len(token)
    for m in _WORD_RE.finditer(text):
        out.append(Refusal(m.group(1), _line(text, m.start()), "declaring syntax, elaborators or a prelude is not allowed"))
    for m in _HASH_COMMAND_RE.finditer(text):
        if not any(m.group(0) == t for t, _ in _SUBSTRINGS):
            out.append(Refusal(m.group(0), _line(text, m.start()), "commands starting with `#` are not allowed"))
    out += _import_refusals(text, import_prefixes)
    out += _option_refusals(text)
    return tuple(sorted(out, key=lambda r: (r.line, r.token)))
