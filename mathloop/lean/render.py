"""Plain-style Lean 4 text for one commit: data as `def`s, claims as Bool equalities proved by `rfl`.

Only this module writes Lean syntax by hand. The style is the common subset of the bundled kernel
with mathloop's minimal library and a standard toolchain: no tactics, no operator syntax, named
functions (`Nat.mul`, `Int.ofNat`, `List.cons`), claims `Eq (check data) true`, proofs `rfl`, all in
a `noncomputable section`. The functions the claims evaluate live in the support modules: mathloop's
shared `Mathloop.Exact` and the target's own (package data of the target's package, see
`support_modules`), which every export ships and every check compiles from mathloop's own text.
A rendering names the bounds its statement certifies (bound key -> the `def` that states it), so a
Lean check can refuse a commit whose certified bound is not the one the statement proves.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from mathloop.domain import canonical_json, sha256_hex
from mathloop.lean.support_modules import anchored, path_of

CERTS_ROOT = "Certs"
REC_DEPTH = "set_option maxRecDepth 100000"
_HASH_RE = re.compile(r"^[0-9a-f]{16,64}$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_KEYWORDS = frozenset({
    "def", "theorem", "lemma", "abbrev", "axiom", "example", "instance", "namespace", "end", "open", "import",
    "by", "fun", "let", "have", "show", "from", "at", "if", "then", "else", "match", "with", "do", "where",
    "structure", "class", "inductive", "section", "variable", "universe", "sorry", "Type", "Prop", "Sort",
})


class RenderError(ValueError):
    """The evidence's certificate is malformed or does not prove what it claims (a checker bug)."""


def valid_ident(name: str) -> bool:
    """Return True iff `name` is a plain (non-keyword, ASCII) Lean identifier component.

    >>> valid_ident("kappa_certificate"), valid_ident("1abc"), valid_ident("end")
    (True, False, False)
    """
    return bool(_IDENT.match(name)) and name not in _KEYWORDS


def module_name(commit_hash: str) -> str:
    """Return the Lean module/namespace of a commit: `Certs.C<hash>`.

    >>> module_name("ab" * 32)[:12]
    'Certs.Cababa'
    """
    h = commit_hash.lower()
    if not _HASH_RE.match(h):
        raise RenderError(f"commit hash must be 16-64 lowercase hex digits, got {commit_hash!r}")
    return f"{CERTS_ROOT}.C{h}"


# -- literals ------------------------------------------------------------------------------------

def nat(v: int) -> str:
    """Return a Nat literal.

    >>> nat(12)
    '12'
    """
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise RenderError(f"expected a natural number, got {v!r}")
    return str(v)


def integer(v: int) -> str:
    """Return an Int term without operator syntax.

    >>> integer(-5), integer(7)
    ('(Int.neg (Int.ofNat 5))', '(Int.ofNat 7)')
    """
    return f"(Int.neg (Int.ofNat {-v}))" if v < 0 else f"(Int.ofNat {v})"


def frac(q: Fraction) -> str:
    """Return a `Mathloop.Frac` term (lowest terms, as Fraction keeps it).

    >>> frac(Fraction(-3, 7)), frac(Fraction(2))
    ('(qn 3 7)', '(qp 2 1)')
    """
    q = Fraction(q)
    return f"(qn {-q.numerator} {q.denominator})" if q < 0 else f"(qp {q.numerator} {q.denominator})"


def nat_list(xs: Sequence[int]) -> str:
    """Return a `List Nat` literal built with List.cons.

    >>> nat_list([3, 0])
    '(List.cons 3 (List.cons 0 List.nil))'
    """
    out = "List.nil"
    for x in reversed(list(xs)):
        out = f"(List.cons {nat(x)} {out})"
    return out


def frac_list(qs: Sequence[Fraction]) -> str:
    """Return a `List Frac` term built with `List.cons`.

    >>> frac_list([Fraction(0), Fraction(1, 2)])
    '(List.cons (qp 0 1) (List.cons (qp 1 2) List.nil))'
    """
    out = "List.nil"
    for q in reversed(list(qs)):
        out = f"(List.cons {frac(q)} {out})"
    return out


def _comment_safe(text: str) -> str:
    """Return text that cannot open or close a Lean comment (block comments nest)."""
    return text.replace("/-", "/ -").replace("-/", "- /")


# -- files ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Definition:
    """One `def name : type := value` of the data a certificate is about."""

    name: str
    type: str
    value: str
    doc: str

    def text(self) -> str:
        if not valid_ident(self.name):
            raise RenderError(f"invalid Lean identifier {self.name!r}")
        return f"/-- {_comment_safe(self.doc)} -/\ndef {self.name} : {self.type} := {self.value}"


@dataclass(frozen=True)
class Claim:
    """One claim `abbrev claim_<name> : Prop := Eq (<check>) true` and its theorem `<name>` (by `rfl`)."""

    name: str
    doc: str
    check: str

    def statement_text(self) -> str:
        if not valid_ident(self.name) or not valid_ident(f"claim_{self.name}"):
            raise RenderError(f"invalid Lean identifier {self.name!r}")
        return f"/-- Claim: {_comment_safe(self.doc)} -/\nabbrev claim_{self.name} : Prop :=\n  Eq ({self.check}) true"

    def proof_text(self) -> str:
        return f"/-- Proved by evaluation in the kernel. -/\ntheorem {self.name} : claim_{self.name} := rfl"


@dataclass(frozen=True)
class RenderedCommit:
    """The Lean rendering of one commit.

    Attributes:
        target: the contract's target implementation key.
        commit: the commit hash the module is named after.
        module: namespace and module prefix, `Certs.C<hash>`.
        statement: text of `<module>.Statement` (data and claims; no proofs).
        proof: text of `<module>.Proof` (one `rfl` theorem per claim).
        theorems: fully qualified theorem names, in file order.
        support: the support modules the claims use (in import order).
        sha256: sha256 of the canonical JSON of everything above that is Lean text.
        support_texts: {support module: its text}, the text the rendering was made with.
        bounds: {bound key: value} the statement certifies (each stated by one `def`).
    """

    target: str
    commit: str
    module: str
    statement: str
    proof: str
    theorems: tuple[str, ...]
    support: tuple[str, ...]
    sha256: str
    support_texts: Mapping[str, str] = None  # type: ignore[assignment]
    bounds: Mapping[str, Fraction] = None  # type: ignore[assignment]

    def support_text(self, module: str) -> str:
        """Return the text of one of the rendering's support modules."""
        return (self.support_texts or {})[module]

    def files(self) -> dict[str, str]:
        """Return {relative path: text} of the commit's two modules inside an exported project."""
        base = self.module.replace(".", "/")
        return {f"{base}/Statement.lean": self.statement, f"{base}/Proof.lean": self.proof}

    def file_sha256s(self) -> dict[str, str]:
        """Return {relative path: sha256} of every file the check reads (support modules included)."""
        out = {p: sha256_hex(t.encode("utf-8")) for p, t in self.files().items()}
        for m in self.support:
            out[path_of(m)] = sha256_hex(self.support_text(m).encode("utf-8"))
        return out

    def check_source(self) -> str:
        """Return one file to check against the compiled support modules: imports, statements, proofs."""
        return "\n".join(["".join(f"import {m}\n" for m in self.support), without_imports(self.statement),
                          without_imports(self.proof)])

    def standalone_source(self) -> str:
        """Return one file that needs no support module: their text, the statements, then the proofs."""
        return "\n".join([*(without_imports(self.support_text(m)) for m in self.support),
                          without_imports(self.statement), without_imports(self.proof)])


def artifact_sha256(module: str, statement: str, proof: str, support: Mapping[str, str]) -> str:
    """Return the sha256 a rendering with these texts has (`RenderedCommit.sha256`)."""
    return sha256_hex(canonical_json({"module": module, "statement": statement, "proof": proof,
                                      "support": dict(support)}))


def bound_mismatch(rendered: RenderedCommit, certified: Mapping[str, Any]) -> str | None:
    """Return why the rendered statement does not certify exactly the commit's bounds (None: it does).

    >>> r = RenderedCommit("t", "c", "m", "", "", (), (), "", {}, {"kappa": Fraction(2, 5)})
    >>> bound_mismatch(r, {"kappa": Fraction(2, 5)}) is None, bound_mismatch(r, {"kappa": Fraction(51, 125)})
    (True, 'the Lean statement certifies kappa = 2/5, the commit certifies kappa = 51/125')
    """
    stated = dict(rendered.bounds or {})
    for key in sorted(set(certified) | set(stated)):
        if key not in stated:
            return f"the Lean statement does not state the commit's bound {key}"
        if key not in certified:
            return f"the Lean statement certifies {key}, a bound the commit does not have"
        try:
            value = Fraction(certified[key])
        except (TypeError, ValueError, ZeroDivisionError):
            return f"the commit's bound {key} is not a rational: {certified[key]!r}"
        if value != stated[key]:
            return f"the Lean statement certifies {key} = {stated[key]}, the commit certifies {key} = {value}"
    return None


def without_imports(text: str) -> str:
    """Return a module's text without its `import` lines (to join modules into one file)."""
    return "\n".join(l for l in text.splitlines() if not l.startswith("import ")).strip() + "\n"


def header(kind: str, meta: Mapping[str, str], sections: Sequence[tuple[str, str]]) -> str:
    """Return the leading block comment: metadata, then titled paragraphs (what is proved, what is given)."""
    lines = [f"Mathloop certificate: {kind}"] + [f"{k}: {meta[k]}" for k in sorted(meta)]
    for title, text in sections:
        lines += ["", f"{title}:"] + textwrap.wrap(text, 96, initial_indent="  ", subsequent_indent="  ")
    lines += ["", "Generated by mathloop (deterministic; do not edit)."]
    return "/-\n" + "\n".join(_comment_safe(l) for l in lines) + "\n-/"


def _module(head: str, imports: Sequence[str], namespace: str, blocks: Sequence[str]) -> str:
    parts = [head, "\n".join(f"import {i}" for i in imports), REC_DEPTH, f"namespace {namespace}", "open Mathloop",
             "noncomputable section", *blocks, "end", f"end {namespace}"]
    return "\n\n".join(parts) + "\n"


def render(*, target: str, contract_name: str, contract_sha: str, commit_hash: str, proves: str, given: str,
           not_proved: str, defs: Sequence[Definition], claims: Sequence[Claim], support: Mapping[str, str],
           bounds: Mapping[str, tuple[str, Fraction]] | None = None) -> RenderedCommit:
    """Return the two modules of a commit from its data definitions and claims.

    `support` maps each support module the claims use (import order) to its text: mathloop's shared
    modules must have mathloop's own text. `bounds` maps each bound key the statement certifies to
    (the `def` that states it, its value).

    Raises:
        RenderError: duplicate names, a shared module with another text, or a bound whose `def` does
            not state that value.
    """
    module = module_name(commit_hash)
    names = [c.name for c in claims]
    if len(set(names)) != len(names) or set(names) & {d.name for d in defs}:
        raise RenderError("duplicate Lean names in the rendering")
    problems = [p for p in anchored(support, support) if "mathloop's own" in p]
    if problems:
        raise RenderError(problems[0])
    by_name = {d.name: d for d in defs}
    bounds = dict(bounds or {})
    for key, (name, value) in bounds.items():
        if name not in by_name or by_name[name].value != frac(Fraction(value)):
            raise RenderError(f"bound {key}: no `def {name} : Frac := {frac(Fraction(value))}` in the rendering")
    meta = {"commit": commit_hash, "target": target, "contract": contract_name, "contract_sha256": contract_sha}
    sections = [("What this file proves", proves), ("Published theorems taken as given", given),
                ("What it does not prove", not_proved)]
    statement = _module(header("statements", meta, sections), support, module,
                        [d.text() for d in defs] + [c.statement_text() for c in claims])
    proof = _module(header("proofs", meta, [("Proofs", "Each theorem proves the claim of the same name in "
                                                      "Statement.lean by evaluation in the kernel (rfl).")]),
                    (f"{module}.Statement",), module, [c.proof_text() for c in claims])
    return RenderedCommit(target, commit_hash, module, statement, proof, tuple(f"{module}.{n}" for n in names),
                          tuple(support), artifact_sha256(module, statement, proof, support), dict(support),
                          {k: Fraction(v) for k, (_, v) in bounds.items()})
