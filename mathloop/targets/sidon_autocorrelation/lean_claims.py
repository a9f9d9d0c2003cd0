"""Lean claims of a step-function commit (C1a here; C1b reuses the helpers): the kernel recomputes the
finite check from the integer heights.

Data: the heights as naturals a_i (over their common denominator), n, Σa, the stated coefficient
list c of the product (a·a for C1a; a·b with b the scaled complement for C1b), its maximum and the
stated value (a `Frac`, the bound the statement certifies). Claims (functions in the support module
Mathloop.StepFunctions, this package's lean/Mathloop/StepFunctions.lean): c is the coefficient list
(Kronecker substitution, one GMP product), max c = peak, Σa = total, len a = n, and the value is in
lowest terms and equals the value formula. The breakpoint argument (value.py) is taken as given.

Up to LIST_MAX_STEPS steps the data are lists of chunks, exactly as the first commits were rendered
and checked (an attestation pins its rendering's text, so that text may never change); larger
candidates hold them as balanced trees of chunks (Mathloop.StepTrees: the same checks, with a kernel
recursion no deeper than a chunk plus the tree's height and an O(n log n) packing).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

from mathloop.domain import Evidence
from mathloop.lean.render import Claim, Definition, RenderedCommit, RenderError, frac, nat, nat_list

MODULE = "Mathloop.StepFunctions"
TREE_MODULE = "Mathloop.StepTrees"
SUPPORT = ("Mathloop.Exact", MODULE)  # shared Exact, then lean/Mathloop/StepFunctions.lean
TREE_SUPPORT = (*SUPPORT, TREE_MODULE)  # and lean/Mathloop/StepTrees.lean for tree-held data
CHUNK = 64               # list literals are split so no term nests deeper than this (plus the chunk count)
LIST_MAX_STEPS = 4096    # up to this many steps the data are lists (the rendering stored attestations pin)
MAX_LEAN_STEPS = 65536   # larger candidates are not rendered (the contracts' max_steps; 30,000 steps: 1.5-3 min)
# Tree-form files above this size are not rendered: 60,000 steps of 37-bit heights (6.6 MB) took 253 s and peaked
# at 5.7 GB of the check's 8 GB memory limit; the checker refuses files above 8 MB outright (lean/source.py).
MAX_TREE_BYTES = 7_000_000


@dataclass(frozen=True)
class DataForm:
    """How a rendering holds the step data (lists or trees of chunks) and the names of the checks over it.

    Attributes:
        support: the support modules the claims use, in import order.
        tree: True when each data list is an `NTree` of its chunks, False when it is their concatenation.
        length, total, all_le, kronecker, max_is, complement: the support functions the claims apply.
    """

    support: tuple[str, ...]
    tree: bool
    length: str
    total: str
    all_le: str
    kronecker: str
    max_is: str
    complement: str

    def data(self, name: str, xs: Sequence[int], doc: str) -> list[Definition]:
        """Return the definitions holding xs as `name` (its chunks name_0 .. name_k, then `name`)."""
        return chunked_tree(name, xs, doc) if self.tree else chunked(name, xs, doc)


LISTS = DataForm(SUPPORT, False, "nlen", "nsum", "allLe", "kronecker", "maxIs", "overlapComplement")
TREES = DataForm(TREE_SUPPORT, True, "tlen", "tsum", "tallLe", "tkronecker", "tmaxIs", "toverlapComplement")


def data_form(n: int) -> DataForm:
    """Return the form of an n-step certificate's data: lists up to LIST_MAX_STEPS steps, else trees."""
    return LISTS if n <= LIST_MAX_STEPS else TREES


def chunked(name: str, xs: Sequence[int], doc: str) -> list[Definition]:
    """Return definitions name_0 .. name_k of CHUNK entries each and `name` = their concatenation."""
    parts = [list(xs[i:i + CHUNK]) for i in range(0, len(xs), CHUNK)] or [[]]
    defs = [Definition(f"{name}_{j}", "List Nat", nat_list(p), f"{doc} (entries {j * CHUNK}..)") for j, p in enumerate(parts)]
    whole = "List.nil"
    for j in reversed(range(len(parts))):
        whole = f"(napp {name}_{j} {whole})"
    return defs + [Definition(name, "List Nat", whole, doc)]


def balanced(leaves: Sequence[str]) -> str:
    """Return an `NTree` literal with the given leaf lists in order, each subtree halving the leaves.

    >>> balanced(["x_0", "x_1", "x_2"])
    '(NTree.node (NTree.node (NTree.leaf x_0) (NTree.leaf x_1)) (NTree.leaf x_2))'
    """
    if len(leaves) == 1:
        return f"(NTree.leaf {leaves[0]})"
    half = (len(leaves) + 1) // 2
    return f"(NTree.node {balanced(leaves[:half])} {balanced(leaves[half:])})"


def chunked_tree(name: str, xs: Sequence[int], doc: str) -> list[Definition]:
    """Return definitions name_0 .. name_k of CHUNK entries each and `name` = the balanced tree of them."""
    parts = [list(xs[i:i + CHUNK]) for i in range(0, len(xs), CHUNK)] or [[]]
    defs = [Definition(f"{name}_{j}", "List Nat", nat_list(p), f"{doc} (entries {j * CHUNK}..)") for j, p in enumerate(parts)]
    return defs + [Definition(name, "NTree", balanced([f"{name}_{j}" for j in range(len(parts))]),
                              f"{doc} (a tree of its chunks, left to right)")]


def kronecker_bits(n: int, ma: int, mb: int, c: Sequence[int]) -> int:
    """Return B with n·ma·mb < 2^B and every c_k < 2^B."""
    return max(n * ma * mb, max(c, default=0)).bit_length() + 1


def integer_heights(evidence: Evidence) -> tuple[list[int], int]:
    """Return (a_i as naturals over the common denominator, the denominator) from the commit's state."""
    hs = [Fraction(h) for h in evidence.state["heights"]]
    art = evidence.artifacts["value"]
    den = int(art["denominator"])
    a = [h.numerator * (den // h.denominator) for h in hs]
    if any(x < 0 for x in a) or any(h * den != x for h, x in zip(hs, a)):
        raise RenderError("state heights do not match the certified denominator (a checker bug)")
    return a, den


PROVES_1A = ("From the integer heights a (the step heights over their common denominator), the kernel checks: "
             "len a = n, c is the coefficient list of (Σ a_i X^i)^2 (Kronecker substitution), max c = peak, "
             "Σ a = total, and C1a = 2n·peak/total^2.")
GIVEN_1A = ("The definition of C1a (teorth/optimizationproblems constants/1a.md) and the breakpoint lemma: for the "
            "step function with heights a on n equal steps of [-1/4, 1/4], max f*f/(∫f)^2 = 2n·max_k c_k/(Σa)^2 "
            "(f*f is piecewise linear with breakpoints on the grid; proof in sidon_autocorrelation/value.py).")
NOT_PROVED_1A = "The breakpoint lemma and the definition of C1a are not formalised; this is exact integer arithmetic."


def render_step_commit(target: Any, commit_hash: str, evidence: Evidence,
                       build: Callable[[list[int], Fraction, DataForm], tuple[list[Definition], list[Claim]]],
                       texts: tuple[str, str, str]) -> RenderedCommit | None:
    """Return a step-function commit's Lean rendering, or None (no value, too many steps, or a tree-form file
    above MAX_TREE_BYTES).

    `build(a, value, form)` returns the definitions and claims for the integer heights a in that data form
    (raising RenderError when the certified value does not re-verify); `texts` are (proves, given, not proved).
    """
    from mathloop.lean.render import render
    from mathloop.lean.support_modules import select

    value = evidence.bounds.get(target.bound_name)
    if value is None or "value" not in evidence.artifacts:
        return None
    value = Fraction(value)
    a, _ = integer_heights(evidence)
    if len(a) > MAX_LEAN_STEPS:
        return None
    form = data_form(len(a))
    defs, claims = build(a, value, form)
    proves, given, not_proved = texts
    rendered = render(target=target.contract.target, contract_name=target.contract.name,
                      contract_sha=target.contract.sha256, commit_hash=commit_hash, proves=proves, given=given,
                      not_proved=not_proved, defs=defs, claims=claims,
                      support=select(form.support, target.lean_support()),
                      bounds={target.bound_name: (target.bound_name, value)})
    # Too large a file is not rendered: a size refusal would read as a refutation, a memory crash would leave the
    # commit pending. (List-form renderings stay exactly as their stored attestations recorded them.)
    if form.tree and len(rendered.check_source().encode("utf-8")) > MAX_TREE_BYTES:
        return None
    return rendered


def _build_1a(a: list[int], value: Fraction, form: DataForm) -> tuple[list[Definition], list[Claim]]:
    from mathloop.targets.sidon_autocorrelation.value import square_coefficients

    c = square_coefficients(a)
    if Fraction(2 * len(a) * max(c), sum(a) ** 2) != value:
        raise RenderError("the certified C1a does not equal 2n·max c/(Σa)^2 (a checker bug)")
    return sidon_lean(a, c, value, form)


def render_commit(target: Any, commit_hash: str, evidence: Evidence) -> RenderedCommit | None:
    """Return the C1a commit's Lean rendering, or None (see render_step_commit).

    Raises:
        RenderError: the evidence's numbers do not re-verify (a checker bug).
    """
    return render_step_commit(target, commit_hash, evidence, _build_1a, (PROVES_1A, GIVEN_1A, NOT_PROVED_1A))


def sidon_lean(a: Sequence[int], c: Sequence[int], value: Fraction,
               form: DataForm | None = None) -> tuple[list[Definition], list[Claim]]:
    """Return the definitions and claims of a C1a certificate (heights a, square coefficients c, value),
    its data in `form` (default: the form for len(a) steps)."""
    f = form or data_form(len(a))
    n, peak, total, ma = len(a), max(c), sum(a), max(a)
    B = kronecker_bits(n, ma, ma, c)
    defs = [Definition("n", "Nat", nat(n), "Number of steps."),
            *f.data("a", a, "Heights over their common denominator."),
            *f.data("c", c, "Stated coefficients of (Σ a_i X^i)^2."),
            Definition("ma", "Nat", nat(ma), "A bound on every height."),
            Definition("B", "Nat", nat(B), "Kronecker shift: n·ma^2 < 2^B and every c_k < 2^B."),
            Definition("peak", "Nat", nat(peak), "max c."),
            Definition("total", "Nat", nat(total), "Σ a."),
            Definition("C1a", "Frac", frac(value), "The certified upper bound on C1a.")]
    claims = [Claim("steps", "a has n entries.", f"Nat.beq ({f.length} a) n"),
              Claim("square", "c is the coefficient list of (Σ a_i X^i)^2.", f"{f.kronecker} B a a c ma ma"),
              Claim("peak_is_max", "max c = peak.", f"{f.max_is} peak c"),
              Claim("total_is_sum", "Σ a = total (> 0).", f"band (Nat.beq ({f.total} a) total) (Nat.blt 0 total)"),
              Claim("value", "C1a = 2n·peak/total^2 (in lowest terms), the certified upper bound on C1a.",
                    "band (qvalid C1a) (qeq C1a (qp (Nat.mul (Nat.mul 2 n) peak) (Nat.mul total total)))")]
    return defs, claims
