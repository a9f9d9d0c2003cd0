"""The Starlette application of the read-only view: GET/HEAD only, autoescaped pages, strict security headers."""

from __future__ import annotations

import re
from typing import Sequence

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from mathloop.contract import ContractError
from mathloop.check.bracket import bracket
from mathloop.view.bracket_history import bracket_history
from mathloop.store.models import CommitRow, ContractRow
from mathloop.store.prefixes import resolve
from mathloop.store.repository import Repository
from mathloop.view.graph_data import graph_view, lean_statuses
from mathloop.view.graph_page import SCRIPT_CSP_HASH, graph_html
from mathloop.view.history import history
from mathloop.web import pages
from mathloop.web.queries import candidates_page, contract_row, lineages, stored_contract

READ_METHODS = ("GET", "HEAD")
PER_PAGE = 50
MAX_ROW_ID = 2**63 - 1  # SQLite's and PostgreSQL's largest integer key: larger ids name no row
MAX_PAGE = 10**9  # far beyond any store; an offset past it would overflow the database's integer
_HEX = re.compile(r"^[0-9a-f]{64}$")
CSP = (f"default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; script-src '{SCRIPT_CSP_HASH}'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "X-Frame-Options": "DENY", "Cache-Control": "no-store"}


class ReadOnlyGuard:
    """ASGI middleware: any method but GET/HEAD answers 405 before routing; every answer gets the headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] not in READ_METHODS:
            resp = PlainTextResponse("405 Method Not Allowed: this view is read-only\n", status_code=405,
                                     headers={"Allow": ", ".join(READ_METHODS), **HEADERS})
            await resp(scope, receive, send)
            return

        async def with_headers(message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.decode().lower() not in {h.lower() for h in HEADERS}]
                headers += [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


def _not_found(message: str, matches: Sequence[tuple[str, str]] = ()) -> HTMLResponse:
    return HTMLResponse(pages.error_page(404, message, matches), status_code=404)


def _bad_request(message: str) -> HTMLResponse:
    return HTMLResponse(pages.error_page(400, message), status_code=400)


def create_app(repo: Repository, store_label: str) -> ASGIApp:
    """Return the ASGI app serving `repo` (whose engine must be read-only)."""

    plot_cache: dict[tuple, str] = {}

    def full(column, text: str, what: str) -> tuple[str | None, Response | None]:
        """Return (the full hash a hash or unique prefix names, None) or (None, the 404 page saying why)."""
        got = resolve(repo.engine, column, text, what=what)
        if got.full is not None:
            return got.full, None
        return None, _not_found(got.problem, [(("/commit/" if what == "commit" else "/t/") + h, h) for h in got.matches])

    def lineage(sha: str):
        if not _HEX.match(sha):
            return None
        return next(iter(lineages(repo, sha)), None)

    def contract_of(sha: str):
        row = contract_row(repo, sha)
        try:
            return (stored_contract(row), None) if row else (None, "unknown lineage")
        except ContractError as e:
            return None, f"the stored contract cannot be loaded here: {e}"

    async def index(request: Request) -> Response:
        out = []
        for l in lineages(repo):
            c, _ = contract_of(l.sha256)
            out.append((l, c))
        return HTMLResponse(pages.index_page(out, store_label))

    async def target(request: Request) -> Response:
        sha, missing = full(ContractRow.sha256, request.path_params["sha"], "lineage")
        if missing is not None:
            return missing
        lin = lineage(sha)
        if lin is None:
            return _not_found("no such lineage in this store")
        contract, problem = contract_of(sha)
        br = bracket(repo, contract) if contract is not None else None
        steps = tuple(s.text() for s in bracket_history(repo, contract)) if br is not None else ()
        return HTMLResponse(pages.target_page(lin, contract, repo.commits(sha), lean_statuses(repo, sha), problem,
                                              br.text() if br is not None else None, steps))

    async def graph(request: Request) -> Response:
        sha, missing = full(ContractRow.sha256, request.path_params["sha"], "lineage")
        if missing is not None:
            return missing
        lin = lineage(sha)
        contract, problem = contract_of(sha)
        if lin is None or contract is None:
            return _not_found(problem or "no such lineage in this store")
        commit = request.query_params.get("commit")
        if commit is not None:
            commit, missing = full(CommitRow.hash, commit, "commit")
            if missing is not None:
                return missing
        try:
            view = graph_view(contract, repo, commit)
        except KeyError:
            return _not_found("no such commit in this lineage")
        return HTMLResponse(graph_html(view, nav=pages.nav_bar(styled=True, lineage=(sha, lin.name))))

    async def plot(request: Request) -> Response:
        sha, missing = full(ContractRow.sha256, request.path_params["sha"], "lineage")
        if missing is not None:
            return missing
        contract, problem = contract_of(sha)
        if lineage(sha) is None or contract is None:
            return _not_found(problem or "no such lineage in this store")
        head = repo.head(sha)
        br = bracket(repo, contract)  # the plot draws the bracket's width: a partner's commit changes it too
        key = (sha, head.hash if head else None, sum(lineage(sha).labels.values()), br.text() if br else None)
        if key not in plot_cache:  # a lineage's plot changes only with a new commit or candidate
            from mathloop.view.plots import history_svg

            if len(plot_cache) > 32:
                plot_cache.clear()
            plot_cache[key] = history_svg(history(contract, repo))
        return Response(plot_cache[key], media_type="image/svg+xml")

    async def candidates(request: Request) -> Response:
        sha, missing = full(ContractRow.sha256, request.path_params["sha"], "lineage")
        if missing is not None:
            return missing
        lin = lineage(sha)
        if lin is None:
            return _not_found("no such lineage in this store")
        label = request.query_params.get("label") or None
        try:
            page = max(0, int(request.query_params.get("page", "0")))
        except ValueError:
            page = 0  # as before: a page that is not a number is the first page
        if page > MAX_PAGE:
            return _bad_request(f"page must be at most {MAX_PAGE}")
        lines, total = candidates_page(repo, sha, label, page * PER_PAGE, PER_PAGE)
        return HTMLResponse(pages.candidates_page(lin, lines, total, label, page, PER_PAGE))

    async def candidate(request: Request) -> Response:
        if request.path_params["id"] > MAX_ROW_ID:  # the database would overflow, not answer "none"
            return _not_found("no such candidate")
        c = repo.candidate(request.path_params["id"])
        if c is None:
            return _not_found("no such candidate")
        row = contract_row(repo, _candidate_contract(repo, c.id))
        return HTMLResponse(pages.candidate_page(c, row.name if row else "?", row.sha256 if row else ""))

    async def commit(request: Request) -> Response:
        h, missing = full(CommitRow.hash, request.path_params["hash"], "commit")
        if missing is not None:
            return missing
        c = repo.get_commit(h)
        if c is None:
            return _not_found("no such commit")
        row = contract_row(repo, c.contract_sha)
        contract, _ = contract_of(c.contract_sha)
        return HTMLResponse(pages.commit_page(c, contract, row.name if row else "?",
                                              lean_statuses(repo, c.contract_sha).get(c.hash, "pending")))

    async def records(request: Request) -> Response:
        from mathloop.view.leaderboard import leaderboard
        from mathloop.web.records_page import records_page

        return HTMLResponse(records_page(leaderboard(repo), store_label))

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)  # no icon, and no 404 in every browser console

    routes = [
        Route("/", index, methods=list(READ_METHODS)),
        Route("/t/{sha}", target, methods=list(READ_METHODS)),
        Route("/t/{sha}/graph", graph, methods=list(READ_METHODS)),
        Route("/t/{sha}/plot.svg", plot, methods=list(READ_METHODS)),
        Route("/t/{sha}/candidates", candidates, methods=list(READ_METHODS)),
        Route("/candidate/{id:int}", candidate, methods=list(READ_METHODS)),
        Route("/commit/{hash}", commit, methods=list(READ_METHODS)),
        Route("/records", records, methods=list(READ_METHODS)),
        Route("/favicon.ico", favicon, methods=list(READ_METHODS)),
    ]

    async def on_404(request: Request, exc: Exception) -> Response:
        return _not_found("no such page")

    app = Starlette(routes=routes, exception_handlers={404: on_404})
    return ReadOnlyGuard(app)


def _candidate_contract(repo: Repository, candidate_id: int) -> str:
    from sqlmodel import Session

    from mathloop.store.models import CandidateRow

    with Session(repo.engine) as s:
        row = s.get(CandidateRow, candidate_id)
        return row.contract_sha if row else ""
