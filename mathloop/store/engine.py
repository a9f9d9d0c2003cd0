"""Build the SQLAlchemy engine for a store: a SQLite file by default, PostgreSQL by URL."""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import event, inspect
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel, create_engine

from mathloop.store import models  # noqa: F401  (registers the tables)
from mathloop.store.migrate import upgrade

DEFAULT_DB = "mathloop.db"
SCHEMA_RETRIES = 6


class StoreError(RuntimeError):
    """The store cannot be opened or is not a mathloop store."""


def database_url(db: str | None) -> str:
    """Return the SQLAlchemy URL for `--db` (a path or a URL), `$MATHLOOP_DB`, or ./mathloop.db.

    >>> database_url("runs/a.db")
    'sqlite:///runs/a.db'
    >>> database_url("postgresql+psycopg://u@127.0.0.1:5432/m")
    'postgresql+psycopg://u@127.0.0.1:5432/m'
    """
    db = db or os.environ.get("MATHLOOP_DB") or DEFAULT_DB
    return db if "://" in db else f"sqlite:///{db}"


def make_engine(db: str | None, *, create: bool = True, readonly: bool = False) -> Engine:
    """Return an engine with the schema created. SQLite gets WAL, foreign keys and a busy timeout.

    With readonly=True the store must exist and nothing is created, upgraded or written through the engine
    (SQLite `mode=ro`, PostgreSQL read-only transactions): what read-only commands (status, log, graph, ...) use.

    Raises:
        StoreError: the SQLite file's directory does not exist, or create=False and no store is there.
    """
    url = database_url(db)
    if readonly:
        return _readonly_engine(url)
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        path = Path(url.removeprefix("sqlite:///"))
        if not path.parent.exists():
            raise StoreError(f"--db {path}: directory {path.parent} does not exist")
        if not create and not path.exists():
            raise StoreError(f"--db {path}: no store there (run `mathloop run` first)")
    try:
        engine = create_engine(url, connect_args={"timeout": 30} if url.startswith("sqlite") else {})
    except Exception as e:  # bad URL, missing driver: report at the edge
        raise StoreError(f"--db {url}: {e}") from None
    if url.startswith("sqlite"):

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record) -> None:  # durability and integrity, per connection
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

    for attempt in range(SCHEMA_RETRIES):
        try:
            SQLModel.metadata.create_all(engine)
            upgrade(engine)  # a store from before chain format 2 gains the new (nullable) columns
            return engine
        except Exception as e:  # another writer creating the same fresh store races us: look again
            if attempt == SCHEMA_RETRIES - 1:
                raise StoreError(f"--db {url}: cannot open store: {e}") from None
            time.sleep(0.05 * (attempt + 1))
    return engine


def _readonly_engine(url: str) -> Engine:
    """Return an engine on an existing store that refuses every write at the database level."""
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        if url == "sqlite:///:memory:" or not path.is_file():
            raise StoreError(f"--db {path}: no store there (run `mathloop run` first)")
        # the URI form is the only way to ask SQLite itself for a read-only connection
        engine = create_engine(f"sqlite:///file:{quote(str(path.resolve()))}?mode=ro&uri=true",
                               connect_args={"timeout": 30})
    elif url.startswith(("postgresql://", "postgresql+")):
        engine = create_engine(url, connect_args={"options": "-c default_transaction_read_only=on"})
    else:
        raise StoreError(f"--db {url}: only SQLite files and PostgreSQL URLs are supported")
    try:
        tables = set(inspect(engine).get_table_names())
    except Exception as e:  # unreachable server, bad credentials, not a database
        raise StoreError(f"--db {url}: cannot open store: {str(e).splitlines()[0]}") from None
    if not {"contracts", "commits", "candidates"} <= tables:
        raise StoreError(f"--db {url}: not a mathloop store (no contracts/commits/candidates tables)")
    return engine
