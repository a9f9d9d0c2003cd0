"""Bring a store written by an older mathloop up to the current schema: add missing tables, nullable columns
and indexes.

Old rows keep NULL in the new columns, which audit reads as chain format 1 (see store/chain.py), and
have no rows in the new tables (chain format 3: `lineage_anchors`, `session_openings`), which audit reads
as chain format 2; nothing is rewritten, so an old store's hashes still verify. A lineage gets its anchor
the first time a current writer opens it (Repository.anchor).
"""

from __future__ import annotations

from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel


def missing(engine: Engine) -> list[str]:
    """Return the tables and columns the models declare but the database lacks (reads only)."""
    insp = inspect(engine)
    tables = set(insp.get_table_names())
    out = []
    for table in SQLModel.metadata.sorted_tables:
        if table.name not in tables:
            out.append(f"table {table.name}")
            continue
        have = {c["name"] for c in insp.get_columns(table.name)}
        out += [f"{table.name}.{c.name}" for c in table.columns if c.name not in have]
    return out


def upgrade(engine: Engine) -> list[str]:
    """Add every column and index the models declare but the database lacks; return what was added."""
    added: list[str] = []
    insp = inspect(engine)
    existing_tables = set(insp.get_table_names())
    with engine.begin() as conn:
        for table in SQLModel.metadata.sorted_tables:
            if table.name not in existing_tables:
                table.create(conn, checkfirst=True)
                added.append(f"table {table.name}")
                continue
            have = {c["name"] for c in insp.get_columns(table.name)}
            for col in table.columns:
                if col.name in have:
                    continue
                if not col.nullable or col.primary_key:  # pragma: no cover - new columns are always nullable
                    raise RuntimeError(f"store upgrade: column {table.name}.{col.name} must be nullable")
                ddl = col.type.compile(dialect=engine.dialect)
                conn.execute(text(f'ALTER TABLE {table.name} ADD COLUMN "{col.name}" {ddl}'))
                added.append(f"{table.name}.{col.name}")
            indexes = {i["name"] for i in insp.get_indexes(table.name)}
            for index in table.indexes:
                if index.name not in indexes:
                    index.create(conn, checkfirst=True)
                    added.append(f"index {index.name}")
    return added
