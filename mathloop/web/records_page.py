"""The web view's /records page: the certified leaderboard (view/leaderboard.py) of the served store."""

from __future__ import annotations

from typing import Sequence

from mathloop.view.leaderboard import Row
from mathloop.view.markup import Safe, fill, join
from mathloop.web.pages import layout


def records_page(rows: Sequence[Row], store: str) -> str:
    """Return the leaderboard page: one row per constant, then what was not obtained and why."""
    trs = []
    for r in rows:
        sign = "≥" if r.direction == "lower" else "≤"
        best = r.best
        mine = fill("{sign} {v}<br><small>{by}</small>{given}", sign=sign, v=best.shown,
                    by=f"{best.by} (published construction)" if best.kind == "published" else best.by,
                    given=fill('<br><small class="conditional">conditional on {h} (taken as given)</small>',
                               h=", ".join(best.conditional_on)) if best.conditional_on else Safe("")) \
            if best else Safe("none certified")
        exact = fill("<br><small><code>{e}</code></small>", e=best.exact[:80] + ("…" if len(best.exact) > 80 else "")) \
            if best and best.exact else Safe("")
        trs.append(fill('<tr class="{cls}"><td><a href="{href}">{sym}</a><br><small>{tid}</small></td>'
                        '<td>{sign} {pv}<br><small>{pwho}, {pdate}</small></td><td>{mine}{exact}</td>'
                        '<td class="beats">{beats}</td><td>{lean}</td><td><code>{cmd}</code></td></tr>',
                        cls="beaten" if r.beats else "", href=r.definition, sym=r.symbol, tid=r.table_id, sign=sign,
                        pv=r.published_value, pwho=r.published_who, pdate=r.published_date, mine=mine, exact=exact,
                        beats="yes" if r.beats else "no", lean=best.lean if best else "—", cmd=r.command or "—"))
    missing = []
    for r in rows:
        for who, why in r.not_obtained:
            missing.append(fill("<li>{sym}, {who}: {why}</li>", sym=r.symbol, who=who, why=why))
    body = fill(
        "<h1>Certified leaderboard</h1><p>Store <code>{store}</code> (read-only) and the records shipped with the "
        "targets. Published best: as printed by the table or an open pull request to it. mathloop certified: the best "
        "value mathloop's exact checkers certify (stored published constructions, mathloop's shipped records, and "
        "this store's heads). Beats: better than the published best by more than one unit in its last printed "
        "place.</p><table id=\"records\"><tr><th>constant</th><th>published best</th><th>mathloop certified</th>"
        "<th>beats</th><th>Lean</th><th>re-certify</th></tr>{rows}</table>"
        "<h2>Published records not obtained</h2><ul id=\"not-obtained\">{missing}</ul>",
        store=store, rows=join(trs), missing=join(missing))
    return layout("records", body)
