"""The web view's /records page: the certified leaderboard (view/leaderboard.py) of the served store."""

from __future__ import annotations

from typing import Sequence

from mathloop.view.leaderboard import Row
from mathloop.view.markup import render


def records_page(rows: Sequence[Row], store: str) -> str:
    """Return the leaderboard page: one row per constant, then what was not obtained and why."""
    return render("records.html", title="records", rows=rows, store=store)
