"""The validated contract of a target: obligations, their DAG, bounds, limits and seed."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from mathloop.domain import Direction, Kind

if TYPE_CHECKING:
    import networkx as nx


# [limits] keys every contract may set, read by the loop, the CLI and the Lean layer (never by a
# target): validated once here, into the typed fields of Contract; targets ignore them.
GENERIC_LIMITS = frozenset({"check_timeout_s", "default_budget", "lean_timeout_s"})
DEFAULT_CHECK_TIMEOUT_S = 120
DEFAULT_BUDGET = 400


class ContractError(ValueError):
    """A contract file is invalid; the message names the file, the key and the reason."""

    def __init__(self, path: Path | str, key: str, reason: str) -> None:
        self.path, self.key, self.reason = str(path), key, reason
        super().__init__(f"{path}: {key}: {reason}")

    def __reduce__(self):  # it crosses the pipe from a checker process
        return (type(self), (self.path, self.key, self.reason))


# How every view says what the bounds rest on: REST_ON_LABEL + Contract.rests_on().
REST_ON_LABEL = "rests on (taken as given)"
NOTHING_GIVEN = "nothing beyond the definitions"


@dataclass(frozen=True)
class BoundSpec:
    """A certified numeric bound carried by a `bound` obligation.

    Attributes:
        name: key under which the value is reported (`bounds.<name>` in JSON output).
        direction: maximize or minimize.
        min_improvement: delta_j of the commit rule; gains below it are `no_progress`.
        class_maximum: the value no valid certificate can exceed (oriented: a maximum for
            maximize); a certified value beyond it is a checker bug and is refused.
        goal: optional value at which the bound obligation counts as discharged (rank 0).
        digits: decimal digits shown when the value is printed (rounded conservatively).
        class_maximum_basis: why the class maximum holds, starting "theorem" or "numerical optimum"
            (None: not stated, shown as not a theorem).
    """

    name: str
    direction: Direction
    min_improvement: Fraction
    class_maximum: Fraction | None = None
    goal: Fraction | None = None
    digits: int = 12
    class_maximum_basis: str | None = None

    @property
    def class_maximum_is_theorem(self) -> bool:
        """Return True only when the contract states that the class maximum is a theorem."""
        return bool(self.class_maximum_basis and self.class_maximum_basis.startswith("theorem"))

    def class_maximum_text(self) -> str | None:
        """Return e.g. "class maximum 0.408960 — a numerical optimum, not a theorem: ...", or None."""
        if self.class_maximum is None:
            return None
        from mathloop.domain import decimal_str  # the safe side: up for a maximum, down for a minimum

        value = decimal_str(self.class_maximum, self.digits, round_down=self.direction is not Direction.MAXIMIZE)
        name = self.class_limit_name
        if self.class_maximum_is_theorem:
            return f"{name} {value} — a theorem: {self.class_maximum_basis.removeprefix('theorem').lstrip(': ')}"
        why = (self.class_maximum_basis or "").removeprefix("numerical optimum").lstrip(": ")
        return f"{name} {value} — a numerical optimum, not a theorem" + (f": {why}" if why else "")

    @property
    def class_limit_name(self) -> str:
        """Return "class maximum" for a maximised bound, "class floor" for a minimised one (the best it can be)."""
        return "class maximum" if self.direction is Direction.MAXIMIZE else "class floor"


@dataclass(frozen=True)
class Obligation:
    """A node of the obligation DAG.

    Attributes:
        id: unique id within the contract.
        kind: hypothesis / input / check / lemma / bound.
        title: short human title.
        statement: what the obligation asserts, in words.
        citation: the published source (required for hypotheses).
        depends_on: ids of upstream obligations.
        checker: the target's check that decides it (None for hypotheses).
        protected: a protected obligation may never get worse in a commit.
        bound: present exactly for `bound` obligations.
    """

    id: str
    kind: Kind
    title: str
    statement: str
    citation: str | None = None
    depends_on: tuple[str, ...] = ()
    checker: str | None = None
    protected: bool = True
    bound: BoundSpec | None = None


@dataclass(frozen=True)
class Contract:
    """A loaded, validated contract. Its sha256 names its lineage in the store.

    Attributes:
        name: the lineage name, the file stem of the contract.
        target: the implementation key in `mathloop.targets` that checks it.
        sha256: hash of the canonical bytes of the parsed file.
        text: the file's text as loaded (stored with the lineage).
        parameters / limits: raw tables; the target validates them into its own types.
        seed: the seed candidate payload (committed as the root after it is checked).
        source: "package" (shipped by an installed distribution), "file" (a user contract named
            with --contract) or "store" (the text a store keeps with its lineage).
        package: the distribution that ships it (None for a user file).
        check_timeout_s / default_budget / lean_timeout_s: the generic limits, typed.
    """

    name: str
    target: str
    title: str
    statement: str
    sha256: str
    path: Path
    text: str
    obligations: tuple[Obligation, ...]
    parameters: Mapping[str, Any] = field(default_factory=dict)
    limits: Mapping[str, Any] = field(default_factory=dict)
    seed: Mapping[str, Any] = field(default_factory=dict)
    source: str = "file"
    package: str | None = None
    check_timeout_s: int = DEFAULT_CHECK_TIMEOUT_S
    default_budget: int = DEFAULT_BUDGET
    lean_timeout_s: int | None = None

    @property
    def origin(self) -> str:
        """Return where the contract came from, for display: "package mathloop", "file PATH" or "the store's copy"."""
        if self.source == "store":
            return "the store's copy"
        return f"package {self.package}" if self.source == "package" else f"file {self.path}"

    @property
    def target_limits(self) -> dict[str, Any]:
        """Return the [limits] a target validates: everything but the generic keys."""
        return {k: v for k, v in self.limits.items() if k not in GENERIC_LIMITS}

    def obligation(self, obligation_id: str) -> Obligation:
        for o in self.obligations:
            if o.id == obligation_id:
                return o
        raise KeyError(obligation_id)

    @property
    def hypotheses(self) -> tuple[Obligation, ...]:
        return tuple(o for o in self.obligations if o.kind is Kind.HYPOTHESIS)

    def rests_on(self, *, cite: bool = False) -> str:
        """Return what every bound of this contract rests on, in one line: the hypotheses' titles (with their
        citations in brackets when `cite`), or "nothing beyond the definitions". Every view shows it after
        REST_ON_LABEL, so that it reads the same everywhere."""
        hs = self.hypotheses
        if not hs:
            return NOTHING_GIVEN
        return "; ".join(f"{h.title} [{h.citation}]" if cite else h.title for h in hs)

    @property
    def checked(self) -> tuple[Obligation, ...]:
        """Obligations a checker decides (everything but hypotheses)."""
        return tuple(o for o in self.obligations if o.kind is not Kind.HYPOTHESIS)

    @property
    def bounds(self) -> tuple[BoundSpec, ...]:
        return tuple(o.bound for o in self.obligations if o.bound is not None)

    def bound_spec(self, name: str) -> BoundSpec:
        for b in self.bounds:
            if b.name == name:
                return b
        raise KeyError(name)

    def graph(self) -> "nx.DiGraph":
        """Return the DAG with an edge upstream -> downstream for every dependency."""
        import networkx as nx  # imported on use: it costs a second at CLI start-up

        g = nx.DiGraph()
        for o in self.obligations:
            g.add_node(o.id, obligation=o)
        for o in self.obligations:
            for dep in o.depends_on:
                g.add_edge(dep, o.id)
        return g

    def hypotheses_for(self, obligation_id: str) -> tuple[Obligation, ...]:
        """Return the hypotheses a given obligation rests on (its hypothesis ancestors)."""
        import networkx as nx

        ancestors = nx.ancestors(self.graph(), obligation_id)
        return tuple(o for o in self.hypotheses if o.id in ancestors)
