"""Strict parsing of untrusted recursive constructions (pydantic, extra keys refused, sizes capped).

A construction names finite **gadgets** (vertex sets of C7^⊠n as digit words, checked exactly), the **rules** and
**codes** of the seven-family calculus (tables of label words, checked for admissibility), **counts** stated without
proof, and a list of **steps** that combine them; `result` names the step whose size and dimension give the bound.

    {"gadgets": [{"name": "G5", "main": ["01234", ...], "pairs": [["...", "..."]], "horizontal": [...],
                  "vertical": [...], "auxiliary": [...]}],
     "rules": [{"name": "S2a", "families": {"B": ["BB", "HD", ...], "N": [...], ...}}],
     "codes": [{"name": "K4a", "words": ["BBBB", ...]}],
     "automorphisms": [{"name": "T", "source": [1, 3, 0, 2, 4], "sign": [-1, 1, 1, -1, 1], "shift": [2, 0, 0, 2, 0]}],
     "exchanges": [{"name": "B1", "pairs": [["<removed word>", "<inserted word>"], ...]}],
     "counts": [{"name": "C1", "value": 27488, "statement": "|J+ minus N(X10^0)|"}],
     "steps": [{"name": "G10", "op": "product", "left": "G5", "right": "G5"}, ...],
     "result": "G200"}

Refused with Malformed("<field>: why") (one line): unknown or missing keys, a digit outside 0..6, words of unequal
length, a name used twice or used before it is defined, more items than the limits. Mathematics (a set that is not
independent, a rule that is not admissible) parses: the checks refute it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from mathloop.targets.base import Malformed
from mathloop.targets.payload_text import check_size, load_payload

LABELS = "BNADOHV"  # the seven families of Buys–Polak–Zuiddam, in their order (B, N, A, D, O, H, V)
MAX_GADGET_N = 6
MAX_SET = 5000
MAX_STEPS = 200
MAX_WORDS = 400
MAX_ARITY = 6
MAX_COUNT_DIGITS = 60

Name = Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_^{}()+,.-]{0,39}$")]
Word = Annotated[str, StringConstraints(pattern=r"^[0-6]{1,6}$")]
LabelWord = Annotated[str, StringConstraints(pattern=r"^[BNADOHV]{1,6}$")]
LongWord = Annotated[str, StringConstraints(pattern=r"^[0-6]{1,60}$")]
MAX_EXCHANGES = 64
Vertices = Annotated[list[Word], Field(max_length=MAX_SET)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Gadget(_Strict):
    """A Gao gadget in C7^⊠n (Gao 2026, Definition 2): main set I, private pairs (centre in I, partner outside),
    the transversals P^H and P^V (one end of every pair each), and the auxiliary set X. Words: digit strings, one
    digit per coordinate."""

    name: Name
    main: Annotated[list[Word], Field(min_length=1, max_length=MAX_SET)]
    pairs: Annotated[list[Annotated[list[Word], Field(min_length=2, max_length=2)]], Field(max_length=MAX_SET)]
    horizontal: Vertices
    vertical: Vertices
    auxiliary: Vertices


class Rule(_Strict):
    """A combining rule: for each output family, the label words (one letter per input) that build it."""

    name: Name
    families: dict[Literal["B", "N", "A", "D", "O", "H", "V"],
                   Annotated[list[LabelWord], Field(max_length=MAX_WORDS)]]


class Code(_Strict):
    """A terminal code: label words (one letter per input) whose product sets form an independent set."""

    name: Name
    words: Annotated[list[LabelWord], Field(min_length=1, max_length=MAX_WORDS)]


class Count(_Strict):
    """A neighbourhood count stated by a paper and not checked here (any step using it leaves the bound open)."""

    name: Name
    value: Annotated[int, Field(ge=0, lt=10**MAX_COUNT_DIGITS)]
    statement: Annotated[str, StringConstraints(min_length=1, max_length=500)]


class AutomorphismSpec(_Strict):
    """A signed coordinate permutation of the gadgets' C7^⊠n: image digit p = sign[p]·w[source[p]] + shift[p] mod 7,
    applied to every coordinate group of a codebook."""

    name: Name
    source: Annotated[list[Annotated[int, Field(ge=0, lt=MAX_GADGET_N)]], Field(min_length=1, max_length=MAX_GADGET_N)]
    sign: Annotated[list[Literal[-1, 1]], Field(min_length=1, max_length=MAX_GADGET_N)]
    shift: Annotated[list[Annotated[int, Field(ge=0, le=6)]], Field(min_length=1, max_length=MAX_GADGET_N)]


class ExchangeList(_Strict):
    """Words exchanged in a codebook: each pair [removed, inserted], words of the codebook's dimension."""

    name: Name
    pairs: Annotated[list[Annotated[list[LongWord], Field(min_length=2, max_length=2)]],
                     Field(min_length=1, max_length=MAX_EXCHANGES)]


class Product(_Strict):
    """Gao's product of two gadgets (Lemma 1)."""

    name: Name
    op: Literal["product"]
    left: Name
    right: Name


class Swap(_Strict):
    """The same gadget with its two transversals exchanged (σ)."""

    name: Name
    op: Literal["swap"]
    of: Name


class Families(_Strict):
    """The seven-family representation of a gadget: (B, N, A, D, O, H, V) = (I∖R, X⁰, X^V, X^H, R, P^H, P^V)."""

    name: Name
    op: Literal["families"]
    of: Name


class ApplyRule(_Strict):
    """A combining rule applied to seven-family representations (Buys–Polak–Zuiddam, Proposition 1)."""

    name: Name
    op: Literal["rule"]
    rule: Name
    inputs: Annotated[list[Name], Field(min_length=1, max_length=MAX_ARITY)]


class ApplyCode(_Strict):
    """A terminal code applied to seven-family representations: an independent set."""

    name: Name
    op: Literal["code"]
    code: Name
    inputs: Annotated[list[Name], Field(min_length=1, max_length=MAX_ARITY)]


class AuxiliaryOf(_Strict):
    """A codebook that is the auxiliary set of an earlier gadget step."""

    auxiliary_of: Name


class Counted(_Strict):
    """A side codebook with a stated `count` of its part outside N(X_L⁰): a step's main set (`main_of`) or auxiliary
    set (`auxiliary_of`), mapped by the automorphism `image` on every coordinate group if given, then changed by the
    `exchanges` if given."""

    count: Name
    main_of: Name | None = None
    auxiliary_of: Name | None = None
    image: Name | None = None
    exchanges: Name | None = None


class Heterogeneous(_Strict):
    """Tandon's heterogeneous product (Theorem 1): codebooks J₀ (neutral), J_H, J_V over X_R⁰, X_R^H, X_R^V."""

    name: Name
    op: Literal["heterogeneous"]
    left: Name
    right: Name
    neutral: AuxiliaryOf
    horizontal: AuxiliaryOf | Counted
    vertical: AuxiliaryOf | Counted


Step = Annotated[Product | Swap | Families | ApplyRule | ApplyCode | Heterogeneous, Field(discriminator="op")]


class Construction(_Strict):
    """The whole file."""

    gadgets: Annotated[list[Gadget], Field(min_length=1, max_length=8)]
    rules: Annotated[list[Rule], Field(max_length=16)] = []
    codes: Annotated[list[Code], Field(max_length=16)] = []
    automorphisms: Annotated[list[AutomorphismSpec], Field(max_length=4)] = []
    exchanges: Annotated[list[ExchangeList], Field(max_length=4)] = []
    counts: Annotated[list[Count], Field(max_length=16)] = []
    steps: Annotated[list[Step], Field(max_length=MAX_STEPS)] = []
    result: Name


@dataclass(frozen=True)
class Limits:
    """The contract's [limits]: largest payload in bytes, largest dimension of the result."""

    max_payload_bytes: int = 400_000
    max_dimension: int = 2000


def _where(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "payload"


def parse_payload(payload: Any, limits: Limits) -> Construction:
    """Return the validated construction for a JSON value (or its text).

    Raises:
        Malformed: one line, naming the field and the reason.
    """
    payload = load_payload(payload, limits.max_payload_bytes)
    if not isinstance(payload, dict):
        raise Malformed("payload: must be a JSON object with gadgets, steps and result")
    try:
        c = Construction.model_validate(payload)
    except ValidationError as e:
        err = e.errors()[0]
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p in
                                                   ("product", "swap", "families", "rule", "code", "heterogeneous",
                                                    "AuxiliaryOf", "Counted")))
        raise Malformed(f"{_where(loc)}: {err['msg']}") from None
    _check_names(c)
    check_size(payload, limits.max_payload_bytes)
    return c


def _check_names(c: Construction) -> None:
    """Refuse a name defined twice, a reference to a name not defined before, or words of mixed length."""
    defined: dict[str, str] = {}
    for i, g in enumerate(c.gadgets):
        _define(defined, g.name, f"gadgets[{i}].name", "gadget")
        n = len(g.main[0])
        for key in ("main", "horizontal", "vertical", "auxiliary"):
            for j, w in enumerate(getattr(g, key)):
                if len(w) != n:
                    raise Malformed(f"gadgets[{i}].{key}[{j}]: {len(w)} digits, the gadget's words have {n}")
        for j, pair in enumerate(g.pairs):
            if len(pair[0]) != n or len(pair[1]) != n:
                raise Malformed(f"gadgets[{i}].pairs[{j}]: the gadget's words have {n} digits")
    for kind, items in (("rule", c.rules), ("code", c.codes), ("count", c.counts)):
        for i, item in enumerate(items):
            _define(defined, item.name, f"{kind}s[{i}].name", kind)
    for i, a in enumerate(c.automorphisms):
        _define(defined, a.name, f"automorphisms[{i}].name", "automorphism")
        k = len(a.source)
        if len(a.sign) != k or len(a.shift) != k or sorted(a.source) != list(range(k)):
            raise Malformed(f"automorphisms[{i}]: source must be a permutation of 0..{k - 1}, with as many signs "
                            f"and shifts")
    for i, e in enumerate(c.exchanges):
        _define(defined, e.name, f"exchanges[{i}].name", "exchanges")
        for j, pair in enumerate(e.pairs):
            if len(pair[0]) != len(pair[1]):
                raise Malformed(f"exchanges[{i}].pairs[{j}]: the two words have different lengths")
    for i, s in enumerate(c.steps):
        for key, value in _references(s):
            if value not in defined:
                raise Malformed(f"steps[{i}].{key}: {value!r} is not defined before this step")
        _define(defined, s.name, f"steps[{i}].name", "step")
    if c.result not in defined:
        raise Malformed(f"result: {c.result!r} is not defined")


def _define(defined: dict[str, str], name: str, where: str, kind: str) -> None:
    if name in defined:
        raise Malformed(f"{where}: {name!r} is defined twice")
    defined[name] = kind


def _references(s: Any) -> list[tuple[str, str]]:
    refs = [(k, getattr(s, k)) for k in ("left", "right", "of", "rule", "code") if hasattr(s, k)]
    refs += [(f"inputs[{j}]", v) for j, v in enumerate(getattr(s, "inputs", []))]
    for key in ("neutral", "horizontal", "vertical"):
        book = getattr(s, key, None)
        if book is not None:
            refs += [(f"{key}.{k}", v) for k, v in book.model_dump().items() if v is not None]
    return refs


def schema(limits: Limits) -> dict[str, Any]:
    """Return the JSON schema offered to models (a guide only: `parse_payload` is the judge)."""
    return Construction.model_json_schema()
