"""Build the SQLAlchemy engine for a store: a SQLite file by default, PostgreSQL by URL."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import event, inspect
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool
from sqlmodel import SQLModel, create_engine

from mathloop.outputs import OutputError, check_folder
from mathloop.store import models  # noqa: F401  (registers the tables)
from mathloop.store.migrate import upgrade
from mathloop.store.races import while_created_elsewhere

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

    With readonly=True (create is then ignored) the engine never creates a file, a table or a column and
    never writes: see readonly_engine.

    Raises:
        StoreError: the SQLite file's directory does not exist, or create=False (or readonly) and no store
            is there, or (readonly) it is not a mathloop store.
    """
    if readonly:
        return readonly_engine(db)
    url = database_url(db)
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        path = Path(url.removeprefix("sqlite:///"))
        _not_a_directory(path)
        if not path.parent.exists():
            raise StoreError(f"--db {path}: directory {path.parent} does not exist")
        if not create and not path.exists():
            raise StoreError(f"--db {path}: no store there (run `mathloop run` first)")
        if not path.exists():  # a new store: its folder must take a file (not read-only, not someone else's)
            try:
                check_folder(path)
            except OutputError as e:
                raise StoreError(f"--db {e}") from None
    try:
        engine = create_engine(url, connect_args={"timeout": 30} if url.startswith("sqlite") else {})
    except Exception as e:  # bad URL, missing driver: report at the edge
        raise StoreError(f"--db {url}: {e}") from None
    if url.startswith("sqlite"):

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: sqlite3.Connection, _record: object) -> None:  # durability and integrity, per connection
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

    try:
        for attempt in while_created_elsewhere(SCHEMA_RETRIES):  # another writer creating the same fresh store
            with attempt:
                SQLModel.metadata.create_all(engine)
                upgrade(engine)  # a store from before chain format 2 gains the new (nullable) columns
    except Exception as e:
        raise StoreError(f"--db {url}: cannot open store: {(str(e).splitlines() or [type(e).__name__])[0]}") from None
    return engine


def _not_a_directory(path: Path) -> None:
    """Raise StoreError when `--db` names a directory: a store is one SQLite file (or a PostgreSQL URL)."""
    if path.is_dir():
        raise StoreError(f"--db {path}: is a directory, not a store file (name a file in it, e.g. "
                         f"--db {path / 'mathloop.db'})")


def _sqlite_readonly(path: Path) -> Callable[[], sqlite3.Connection]:
    """Return a connection factory for a SQLite store that writes nothing, not even beside the file.

    `mode=ro` alone still creates `-wal`/`-shm` files beside a WAL store (and leaves them); `immutable=1`
    does not. So: while a `-wal` file exists (a writer is live, or crashed with unapplied pages) each new
    connection is `mode=ro` and reads through it (the files are already there); otherwise `immutable=1`.
    Connections are not pooled, so a writer that starts later is seen by the next connection.
    """
    uri = f"file:{quote(str(path.resolve()))}"
    wal = Path(f"{path}-wal")

    def connect() -> sqlite3.Connection:
        mode = "mode=ro" if wal.exists() else "mode=ro&immutable=1"
        conn = sqlite3.connect(f"{uri}?{mode}", uri=True, timeout=30, check_same_thread=False)
        conn.execute("PRAGMA query_only=ON")
        return conn

    return connect


def readonly_engine(db: str | None) -> Engine:
    """Return an engine on an existing store that refuses every write at the database level.

    SQLite: a read-only (or immutable) connection that leaves the file and its directory byte-identical;
    PostgreSQL: every transaction read-only. No schema is created or upgraded: readers of tables or
    columns an older store lacks must check for them (store/raw.has_table).

    Raises:
        StoreError: no store at that path/URL, an unsupported URL, or not a mathloop store.
    """
    url = database_url(db)
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        _not_a_directory(path)
        if url == "sqlite:///:memory:" or not path.is_file():
            raise StoreError(f"--db {path}: no store there (run `mathloop run` first)")
        engine = create_engine("sqlite://", creator=_sqlite_readonly(path), poolclass=NullPool)
    elif url.startswith(("postgresql://", "postgresql+")):
        try:
            engine = create_engine(url, connect_args={"options": "-c default_transaction_read_only=on"})
        except Exception as e:  # bad URL, missing driver
            raise StoreError(f"--db {url}: {e}") from None
    else:
        raise StoreError(f"--db {url}: only SQLite files and PostgreSQL URLs are supported")
    try:
        tables = set(inspect(engine).get_table_names())
    except Exception as e:  # unreachable server, bad credentials, not a database
        raise StoreError(f"--db {url}: cannot open store: {str(e).splitlines()[0]}") from None
    if not {"contracts", "commits", "candidates"} <= tables:
        raise StoreError(f"--db {url}: not a mathloop store (no contracts/commits/candidates tables)")
    return engine
