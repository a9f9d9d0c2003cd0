"""What audit reports: one edited or inconsistent row, named by table, row and column."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One thing wrong in the store.

    Attributes:
        seq / commit: the commit concerned (None for rows no commit covers yet).
        problem: what is wrong, in words.
        table / row / field: where: the table, the row's key (commit hash, candidate id, session id,
            artifact sha) and the edited column when it can be named.
        stored / recomputed: the hash stored in the row and the one recomputed from its contents.
    """

    seq: int | None
    commit: str | None
    problem: str
    table: str = "commits"
    row: object = None
    field: str | None = None
    stored: str | None = None
    recomputed: str | None = None

    def where(self) -> str:
        """Return e.g. 'candidates row 17, column label' or 'commits row 3f2a… (seq 2)'."""
        row = self.row if self.row is not None else self.commit
        text = f"{self.table} row {row}"
        if self.table != "commits" and self.commit:
            text += f" (committed as {self.commit[:12]})"
        if self.table == "commits" and self.seq is not None:
            text += f" (seq {self.seq})"
        if self.field:
            text += f", column {self.field}"
        return text
