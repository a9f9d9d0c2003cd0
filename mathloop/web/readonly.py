"""Open a store so that nothing can be written through it: SQLite `mode=ro`, PostgreSQL read-only transactions."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import Engine

from mathloop.store.engine import StoreError, database_url


def readonly_engine(db: str | None) -> Engine:
    """Return an engine on an existing store that refuses every write at the database level.

    Raises:
        StoreError: no store at that path/URL, an unsupported URL, or not a mathloop store.
    """
    url = database_url(db)
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
