"""The certified leaderboard: per table constant, the published best and the best construction mathloop certified.

Sources, all read here and nowhere else: each constant's records file (targets/records.py: the published records,
the value mathloop certifies for each stored construction, mathloop's own shipped records) and, when a store is
given, the head of every lineage of the constant's targets (the best bound a session committed, who proposed it,
its Lean status). "Beats" is decided conservatively: mathloop's value must be better than the published best's
printed digits by more than one unit in their last printed place, so that no rounding of the published value can
make it a tie. `mathloop records` (terminal, --json, --markdown), the web view's /records page, docs/records.md and
the README's table are all rendered from `leaderboard()`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any, Sequence

from mathloop.outputs import atomic_write
from mathloop.targets.base import Target
from mathloop.targets.records import ConstantRecords, Direction, outward


@dataclass(frozen=True)
class Entry:
    """One construction mathloop certified for a constant.

    Attributes:
        value: the certified bound (exact when known, else the records file's 12-digit outward rounding).
        shown: the value rounded outward to 12 digits.
        by: who made it ("Itty, Rosin, Carstensen, Reichman (published)", "mathloop local session", "model M").
        kind: "published", "session", "model" or "program".
        where: the construction file (shipped) or the commit hash (store).
        contract: the contract that certifies it (its lineage).
        lean: Lean status ("checked", "pending", "not rendered", "not run", ...).
        exact: the exact value as a fraction string when known ("" for a shipped published construction).
        date: when (ISO date as known).
    """

    value: Fraction
    shown: str
    by: str
    kind: str
    where: str
    contract: str
    lean: str
    exact: str = ""
    date: str = ""
    path: str = ""  # the installed construction file (absolute), for shipped entries
    conditional_on: tuple[str, ...] = ()  # hypotheses of `contract` the value rests on (recursive constructions)


@dataclass(frozen=True)
class Row:
    """One constant of the table."""

    table_id: str
    symbol: str
    name: str
    direction: str
    definition: str
    bound: str
    targets: tuple[str, ...]
    contracts: tuple[str, ...]
    published_who: str
    published_value: str
    published_date: str
    published_source: str
    published_count: int
    obtained: int
    best: Entry | None
    beats: bool
    not_obtained: tuple[tuple[str, str], ...] = field(default=())  # (who, why) of records without a construction

    @property
    def command(self) -> str | None:
        """Return the command that re-certifies mathloop's best construction (None without one)."""
        if self.best is None:
            return None
        file = self.best.where if "/" in self.best.where else f"<certificate of commit {self.best.where[:12]}>"
        return f"mathloop check {self.best.contract} --candidate {file}"

    def to_json(self) -> dict[str, Any]:
        """Return the row as JSON (exact values as strings)."""
        best = None if self.best is None else {
            "value": self.best.shown, "exact": self.best.exact, "by": self.best.by, "kind": self.best.kind,
            "where": self.best.where, "path": self.best.path, "contract": self.best.contract, "lean": self.best.lean,
            "date": self.best.date, "conditional_on": list(self.best.conditional_on)}
        return {"table_id": self.table_id, "symbol": self.symbol, "name": self.name, "direction": self.direction,
                "definition": self.definition, "bound": self.bound, "targets": list(self.targets),
                "contracts": list(self.contracts),
                "published_best": {"who": self.published_who, "value": self.published_value,
                                   "date": self.published_date, "source": self.published_source},
                "published_records": self.published_count, "constructions_obtained": self.obtained,
                "not_obtained": [{"who": w, "why": y} for w, y in self.not_obtained],
                "mathloop_best": best, "beats_published": self.beats, "command": self.command}


def _ulp(printed: str) -> Fraction:
    return Fraction(1, 10 ** len(printed.partition(".")[2]))


def beats(records: ConstantRecords, value: Fraction) -> bool:
    """Return True when `value` beats the published best by more than one unit in its last printed place.

    >>> from mathloop.targets.records import parse
    >>> r = parse('[constant]\\ntable_id="x"\\nname="x"\\nsymbol="x"\\nbound="b"\\ndirection="lower"\\ndefinition="d"\\n'
    ...           '[[published]]\\nwho="a"\\nvalue="1.5"\\ndate="2026"\\nsource="s"\\nwhy_not="w"', "x")
    >>> beats(r, Fraction("1.6")), beats(r, Fraction("1.61")), beats(r, Fraction("1.4"))
    (False, True, False)
    """
    best = records.best
    ulp = _ulp(best.value)
    if records.constant.direction is Direction.LOWER:
        return value > Fraction(best.value) + ulp
    return value < Fraction(best.value) - ulp


def _kind(proposer: str) -> tuple[str, str]:
    """Return (kind, who) of a store candidate's proposer name."""
    if proposer.startswith("openai"):
        return "model", f"model {proposer.partition(':')[2] or proposer}"
    if proposer.startswith("program"):
        return "program", f"program ({proposer})"
    if proposer == "local":
        return "session", "mathloop local session"
    return "session", f"mathloop session ({proposer})"


def _shipped(cls: type[Target], records: ConstantRecords) -> list[Entry]:
    # the widest contract of the class (listed last) admits every stored construction, e.g. a set in C7^⊠10
    contract = (cls.contract_files or ("",))[-1].removesuffix(".toml")
    from mathloop.targets.records import construction_file

    folder = cls.records_package.replace(".", "/") + "/data/"
    out = [Entry(Fraction(p.certified), p.certified, p.who, "published", folder + p.construction,
                 p.contract or contract, p.lean.value, "", p.date, str(construction_file(cls, p.construction)),
                 tuple(p.conditional_on))
           for p in records.published if p.certified]
    for own in records.mathloop:
        kind = "model" if own.who.startswith("model") else "program" if own.who.startswith("program") else "session"
        out.append(Entry(Fraction(own.value), own.value, own.who, kind, folder + own.construction, contract,
                         own.lean.value, own.exact, own.date, str(construction_file(cls, own.construction))))
    return out


def _stored(repo: Any, targets: Sequence[str], bound: str, direction: Direction) -> list[Entry]:
    from sqlmodel import Session, select

    from mathloop.store.models import ContractRow
    from mathloop.view.graph_data import lean_statuses

    with Session(repo.engine) as s:
        rows = list(s.exec(select(ContractRow).where(ContractRow.target.in_(list(targets)))))
    out = []
    for row in rows:
        head = repo.head(row.sha256)
        if head is None or bound not in head.bounds:
            continue
        cand = repo.candidate(head.candidate_id)
        kind, who = _kind(cand.proposer if cand is not None else "?")
        value = Fraction(head.bounds[bound])
        out.append(Entry(value, outward(value, direction), who, kind, head.hash, row.name,
                         lean_statuses(repo, row.sha256).get(head.hash, "pending"), str(value),
                         head.created_at[:10]))
    return out


def leaderboard(repo: Any | None = None) -> list[Row]:
    """Return one row per table constant that an installed target declares records for, by table id."""
    from mathloop.targets import registered, target_class

    by_constant: dict[str, tuple[ConstantRecords, list[type]]] = {}
    for key, reg in sorted(registered().items()):
        try:
            cls = target_class(key)
        except ValueError:  # a plug-in that does not load: `mathloop doctor` names it
            continue
        records = cls.constant_records()
        if records is not None:
            by_constant.setdefault(records.constant.table_id, (records, []))[1].append(cls)
    rows = []
    for table_id, (records, classes) in sorted(by_constant.items(), key=lambda kv: _id_key(kv[0])):
        c = records.constant
        # the records file is shared by every class of the constant: its entries once, from the first class
        entries = _shipped(classes[0], records)
        if repo is not None:
            entries += _stored(repo, [cls.name for cls in classes], c.bound, c.direction)
        best = None
        for e in entries:  # the best value; among equal values a Lean-checked one, else the first (shipped) one
            if best is None or records.better(e.value, best.value) or (
                    e.value == best.value and e.lean == "checked" and best.lean != "checked"):
                best = e
        top = records.best
        own = [e for e in entries if e.kind != "published"]
        rows.append(Row(
            table_id=table_id, symbol=c.symbol, name=c.name, direction=c.direction.value, definition=c.definition,
            bound=c.bound, targets=tuple(cls.name for cls in classes),
            contracts=tuple(f.removesuffix(".toml") for cls in classes for f in (cls.contract_files or ())),
            published_who=top.who, published_value=top.value, published_date=top.date, published_source=top.source,
            published_count=len(records.published), obtained=sum(1 for p in records.published if p.construction),
            best=best, beats=any(beats(records, e.value) for e in own),
            not_obtained=tuple((p.who, p.why_not) for p in records.published if not p.construction)))
    return rows


def _id_key(table_id: str) -> tuple[int, str]:
    digits = "".join(ch for ch in table_id if ch.isdigit())
    return int(digits or 0), table_id


def write_certificate(repo: Any, row: Row, folder: Path) -> Row:
    """Write the store head that beats the published best as `mathloop-record-<value>.json` in `folder` (the candidate
    payload itself: directly recomputable by `mathloop check`), and return the row pointing at that file."""
    if row.best is None or "/" in row.best.where:
        return row
    commit = repo.get_commit(row.best.where)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"mathloop-record-{row.best.shown}.json"
    atomic_write(path, json.dumps(commit.state, sort_keys=True, indent=1) + "\n")
    return replace(row, best=replace(row.best, where=str(path), path=str(path)))


def _best_cell(row: Row) -> str:
    if row.best is None:
        return "none certified"
    sign = "≥" if row.direction == "lower" else "≤"
    who = f"{row.best.by}'s construction" if row.best.kind == "published" else row.best.by
    given = f"; conditional on {', '.join(row.best.conditional_on)}" if row.best.conditional_on else ""
    return f"{sign} {row.best.shown} ({who}{given})"


def readme_table(rows: Sequence[Row]) -> str:
    """Return the README's table of the constants (markdown), generated from `leaderboard()` without a store."""
    lines = ["| constant | published best | best construction mathloop certified | beats it | Lean |",
             "|---|---|---|---|---|"]
    for r in rows:
        sign = "≥" if r.direction == "lower" else "≤"
        lines.append(f"| {r.symbol} ({r.table_id}) | {sign} {r.published_value} ({r.published_who}, "
                     f"{r.published_date}) | {_best_cell(r)} | {'yes' if r.beats else 'no'} | "
                     f"{r.best.lean if r.best else '—'} |")
    return "\n".join(lines) + "\n"


PAGE_HEAD = """# Records: the certified leaderboard

<!-- Generated by `mathloop records --markdown` from the records files of the installed targets; a test fails when
this page and the generator disagree. Do not edit by hand: edit the targets' data/records*.toml and regenerate. -->

One row per constant of the table *Optimization Constants in Mathematics* (GitHub `teorth/optimizationproblems`)
that an installed target bounds. **Published best**: the best value the table (or an open pull request to it)
records, as printed. **Best construction mathloop certified**: the best value mathloop's own exact checkers
certify, from the published constructions stored with the targets (each re-certified by a test, rounded outward to
12 digits) and from mathloop's own shipped records; `mathloop records --db STORE` adds every lineage's head in that
store. **Beats it**: mathloop's value is better than the published best by more than one unit in its last printed
place; a value marked "conditional on" rests on published theorems named as hypotheses of its contract (taken as
given, not proved by mathloop). **Lean**: the Lean status of that construction's certificate ("checked": a real Lean
kernel accepts its rendered claims against mathloop's own support modules, re-run for every such entry by the Lean
test tier; "not rendered": the target renders no Lean for a construction of this kind or size; "not run": not
Lean-checked as stored; run `mathloop check` and `mathloop lean-check` on a store that commits it).

"""


def page_markdown(rows: Sequence[Row]) -> str:
    """Return docs/records.md: the table, then per constant what is stored, what is not and why, and the command."""
    out = [PAGE_HEAD, readme_table(rows)]
    for r in rows:
        out.append(f"\n## {r.symbol} — {r.name} ({r.table_id})\n\n")
        out.append(f"Definition: <{r.definition}>. Targets: {', '.join(f'`{t}`' for t in r.targets)}; "
                   f"contracts: {', '.join(f'`{c}`' for c in r.contracts)}.\n\n")
        out.append(f"Published best: {r.published_value} — {r.published_who} ({r.published_date}): "
                   f"{r.published_source}.\n\n")
        out.append(f"{r.obtained} of {r.published_count} published records have a stored construction.")
        if r.best is not None:
            out.append(f" Best certified: {r.best.shown} ({_best_cell(r)[2:].partition(' (')[2][:-1]}); re-certify "
                       f"with `{r.command}`.")
            if r.best.conditional_on:
                given = ", ".join(f"`{h}`" for h in r.best.conditional_on)
                out.append(f" This value is **conditional**: it rests on {given}, hypotheses of the contract "
                           f"`{r.best.contract}` (published theorems taken as given, not proved by mathloop); the "
                           "finite parts of the construction are checked exactly.")
        out.append("\n")
        if r.not_obtained:
            out.append("\nNot obtained:\n\n" + "".join(f"- {who}: {why}\n" for who, why in r.not_obtained))
    return "".join(out)
