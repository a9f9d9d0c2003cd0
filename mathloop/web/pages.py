"""The read-only view's HTML pages; every value from the store goes through the escaping markup helpers."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any, Mapping, Sequence
from urllib.parse import urlencode

from mathloop.contract.model import REST_ON_LABEL, Contract
from mathloop.domain import Direction, Label, decimal_str
from mathloop.propose.origin import credited_to
from mathloop.store.repository import CandidateRecord, CommitRecord
from mathloop.view.markup import Safe, fill, join
from mathloop.web.queries import CandidateLine, Lineage

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
nav{background:#263238;color:#eceff1;padding:8px 20px;font-size:.9rem}nav a{color:#b3e5fc;margin-right:14px}
nav .ro{float:right;color:#ffe082}
.page{padding:14px 20px}h1{font-size:1.3rem;margin:4px 0 10px}h2{font-size:1.05rem;margin:18px 0 6px}
table{border-collapse:collapse;background:#fff;font-size:.85rem}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eceff1}code,pre{font-size:.8rem}pre{background:#fff;border:1px solid #ddd;padding:8px;overflow:auto;max-height:420px;white-space:pre-wrap;word-break:break-all}
.bounds{font-size:1.05rem;font-weight:600}.given{color:#01579b;font-size:.85rem}
.filters a{margin-right:10px}.filters a.on{font-weight:700;text-decoration:none;color:#000}
.lbl{padding:0 6px;border-radius:8px;font-size:.78rem;border:1px solid #999}
.correct,.progress{background:#c8e6c9}.no_progress{background:#eeeeee}.regression,.error{background:#ffcdd2}
.incomparable{background:#ffe0b2}.malformed{background:#e1bee7}
img.plot{max-width:100%;background:#fff;border:1px solid #ddd}
#candidates code{word-break:break-all;white-space:pre-wrap}#candidates td:nth-child(5){min-width:280px}
#candidates ul,#reasons{margin:0;padding-left:16px}
"""
NAV_CSS = CSS.split("\n")[2] + CSS.split("\n")[3]


def layout(title: str, body: Safe, *, host_note: str = "") -> str:
    """Return a complete page: navigation bar (read-only notice), title, body."""
    return fill('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
                'content="width=device-width, initial-scale=1"><title>{title} — mathloop</title><style>{css}</style>'
                '</head><body>{nav}<div class="page">{body}</div></body></html>\n',
                title=title, css=Safe(CSS), nav=nav_bar(host_note), body=body)


def nav_bar(host_note: str = "", *, styled: bool = False, lineage: tuple[str, str] | None = None) -> Safe:
    """Return the navigation bar (with its own style rules when the page does not carry ours).

    `lineage` = (contract sha, name) adds links to that target's page and candidates.
    """
    style = fill("<style>{c}</style>", c=Safe(NAV_CSS)) if styled else Safe("")
    extra = fill('<a id="nav-target" href="/t/{sha}">{name}</a><a href="/t/{sha}/candidates">candidates</a>',
                 sha=lineage[0], name=lineage[1]) if lineage else Safe("")
    return Safe(style + fill('<nav><a href="/">mathloop</a><a href="/">targets</a><a href="/records">records</a>{extra}'
                             '<span class="ro">read-only view{note}</span></nav>',
                             extra=extra, note=f" · {host_note}" if host_note else ""))


def bound_text(contract: Contract | None, bounds: Mapping[str, Any]) -> str:
    """Return "kappa ≥ 0.40…" for stored bounds, rounded in the safe direction (raw rationals without a contract)."""
    parts = []
    for name, raw in sorted(bounds.items()):
        value = Fraction(raw)
        spec = next((b for b in contract.bounds if b.name == name), None) if contract else None
        if spec is None:
            parts.append(f"{name} = {raw}")
            continue
        down = spec.direction is Direction.MAXIMIZE
        parts.append(f"{name} {'≥' if down else '≤'} {decimal_str(value, spec.digits, round_down=down)}")
    return ", ".join(parts) or "none certified"


def rests_on(contract: Contract | None) -> Safe:
    """Return the line naming what every bound of the contract rests on (Contract.rests_on; empty without a contract)."""
    if contract is None:
        return Safe("")
    return fill('<div class="given rests-on">{label}: {titles}</div>', label=REST_ON_LABEL, titles=contract.rests_on())


def failed_note(failed: Sequence[str]) -> Safe:
    """Return the warning that the head rests on commits that failed their quarantine re-check (empty if none)."""
    if not failed:
        return Safe("")
    return fill('<div class="error failed-recheck">NOT VERIFIED: the head rests on commit(s) {c} that failed the '
                'session\'s re-check (a quarantined worker\'s answer; `mathloop audit` fails this lineage)</div>',
                c=", ".join(h[:12] for h in failed))


def index_page(lines: list[tuple[Lineage, Contract | None]], store: str) -> str:
    rows = []
    for lin, contract in lines:
        head = lin.head
        bounds = bound_text(contract, json.loads(head.bounds)) if head else "no commits yet"
        rows.append(fill('<tr><td><a class="target" href="/t/{sha}">{name}</a></td><td>{impl}</td><td><code>{short}</code></td>'
                         '<td>{n}</td><td><span class="bounds">{bounds}</span>{failed}{given}</td><td>{head}</td>'
                         '<td>{labels}</td></tr>',
                         sha=lin.sha256, name=lin.name, impl=lin.target, short=lin.sha256[:12], n=lin.commits,
                         bounds=bounds, failed=failed_note(lin.failed), given=rests_on(contract),
                         head=(head.created_at[:19] if head else "-"),
                         labels=", ".join(f"{k} {v}" for k, v in sorted(lin.labels.items())) or "-"))
    table = fill('<table id="targets"><tr><th>target</th><th>implementation</th><th>contract</th><th>commits</th>'
                 '<th>certified at the head</th><th>head committed</th><th>labels</th></tr>{rows}</table>',
                 rows=join(rows)) if rows else Safe("<p>This store has no lineages yet: run <code>mathloop run</code>.</p>")
    return layout("targets", fill("<h1>Targets and heads</h1><p>Store <code>{store}</code>, opened read-only.</p>{t}",
                                  store=store, t=table))


def target_page(lin: Lineage, contract: Contract | None, commits: list[CommitRecord], lean: Mapping[str, str],
                problem: str | None, bracket: str | None = None, bracket_steps: Sequence[str] = ()) -> str:
    head = commits[-1] if commits else None
    sha = lin.sha256
    given = contract.rests_on(cite=True) if contract else "-"
    rows = []
    for c in reversed(commits):
        rows.append(fill('<tr><td>{seq}</td><td><a href="/commit/{h}"><code>{short}</code></a></td><td><code>{parent}</code></td>'
                         '<td>{at}</td><td>{label}</td><td>{bounds}</td><td>{lean}</td>'
                         '<td><a href="/t/{sha}/graph?commit={h}">graph</a></td></tr>',
                         seq=c.seq, h=c.hash, short=c.hash[:12], parent="-" if c.seq == 0 else c.parent[:12],
                         at=c.created_at[:19],
                         label=f"{c.label} — FAILED its re-check" if c.hash in lin.failed else c.label, bounds=bound_text(contract, {k: str(v) for k, v in c.bounds.items()}),
                         lean=lean.get(c.hash, "pending"), sha=sha))
    body = fill(
        '<h1>{name}</h1><p>{title}</p>{problem}<p class="bounds" id="head-bounds">{bounds}</p>{failed}{bracket}{steps}'
        '<p class="given">rests on (taken as given): {given}</p>'
        '<p>contract <code>{sha}</code> · {n} commit(s) · head <code>{head}</code></p>'
        '<p><a id="graph-link" href="/t/{sha}/graph">obligation graph</a> · <a href="/t/{sha}/candidates">candidates</a> · '
        '<a href="/t/{sha}/plot.svg">plot (SVG)</a></p>'
        '<h2>Certified bound history</h2><img class="plot" alt="certified bounds by commit and wall time, labels per session" '
        'src="/t/{sha}/plot.svg">'
        '<h2>Commit chain (newest first)</h2><table id="commits"><tr><th>seq</th><th>commit</th><th>parent</th><th>created</th>'
        '<th>label</th><th>certified</th><th>Lean</th><th></th></tr>{rows}</table>',
        name=lin.name, title=contract.title if contract else "", bounds=bound_text(contract, {k: str(v) for k, v in head.bounds.items()}) if head else "no commits yet",
        problem=fill('<p class="given">{p}</p>', p=problem) if problem else Safe(""), given=given or "-", sha=sha,
        bracket=fill('<p class="bounds" id="bracket">bracket of the class\'s best value (ASSUMING RH): {b}</p>',
                     b=bracket) if bracket else Safe(""),
        steps=fill('<details id="bracket-history"><summary>bracket history ({k} moves)</summary><ul>{li}</ul></details>',
                   k=len(bracket_steps), li=join([fill("<li>{t}</li>", t=t) for t in bracket_steps]))
        if bracket_steps else Safe(""),
        n=len(commits), head=head.hash if head else "-", rows=join(rows), failed=failed_note(lin.failed))
    return layout(lin.name, body)


def candidates_page(lin: Lineage, lines: list[CandidateLine], total: int, label: str | None, page: int,
                    per_page: int) -> str:
    sha = lin.sha256
    links = [fill('<a class="{on}" href="/t/{sha}/candidates">all ({n})</a>', on="on" if not label else "", sha=sha,
                  n=sum(lin.labels.values()))]
    for l in Label:
        if l.value in lin.labels:
            links.append(fill('<a class="{on}" href="/t/{sha}/candidates?{q}">{l} ({n})</a>', on="on" if label == l.value else "",
                              sha=sha, q=urlencode({"label": l.value}), l=l.value, n=lin.labels[l.value]))
    rows = []
    for c in lines:
        rows.append(fill('<tr><td><a href="/candidate/{id}">{id}</a></td><td>{at}</td><td><span class="lbl {cls}">{label}</span></td>'
                         '<td>{proposer}</td><td><ul>{reasons}</ul></td><td><code>{payload}</code></td><td>{commit}</td></tr>',
                         id=c.id, at=c.created_at[:19], cls=c.label if c.label in {l.value for l in Label} else "",
                         label=c.label, proposer=c.proposer, reasons=join(fill("<li>{r}</li>", r=r[:600]) for r in c.reasons[:8]),
                         payload=c.payload[:300] + ("…" if len(c.payload) > 300 else ""),
                         commit=fill('<a href="/commit/{h}"><code>{s}</code></a>', h=c.commit_hash, s=c.commit_hash[:12]) if c.commit_hash else "-"))
    pages = []
    last = max(0, (total - 1) // per_page)
    q = {"label": label} if label else {}
    if page > 0:
        pages.append(fill('<a href="/t/{sha}/candidates?{q}">newer</a>', sha=sha, q=urlencode({**q, "page": page - 1})))
    if page < last:
        pages.append(fill('<a href="/t/{sha}/candidates?{q}">older</a>', sha=sha, q=urlencode({**q, "page": page + 1})))
    body = fill('<h1>{name}: candidates</h1><p><a href="/t/{sha}">back to {name}</a></p><p class="filters">{links}</p>'
                '<p>{total} candidate(s){lbl}, page {p} of {pp}, newest first. {pages}</p>'
                '<table id="candidates"><tr><th>id</th><th>created</th><th>label</th><th>proposer</th><th>reasons</th>'
                '<th>payload</th><th>commit</th></tr>{rows}</table>',
                name=lin.name, sha=sha, links=join(links, " "), total=total, lbl=f" labelled {label}" if label else "",
                p=page + 1, pp=last + 1, pages=join(pages, " · "), rows=join(rows))
    return layout(f"{lin.name} candidates", body)


def _pre(value: Any, limit: int = 200_000) -> Safe:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)
    if len(text) > limit:
        text = text[:limit] + f"\n… ({len(text) - limit} more characters)"
    return fill("<pre>{t}</pre>", t=text)


def candidate_page(c: CandidateRecord, lineage_name: str, contract_sha: str) -> str:
    ev = c.evidence
    who, file_sha = credited_to(c.meta, c.proposer)
    results = []
    if ev is not None:
        for r in ev.results:
            results.append(fill('<tr><td>{id}</td><td>{v}</td><td>{rank}</td><td>{t}</td><td><ul>{reasons}</ul></td></tr>',
                                id=r.id, v=r.verdict.value, rank=r.rank, t=r.trust.value,
                                reasons=join(fill("<li>{x}</li>", x=x) for x in r.reasons)))
    body = fill(
        '<h1>candidate {id} <span class="lbl {cls}">{label}</span></h1><p><a href="/t/{sha}/candidates">back to {name}</a></p>'
        '<p>proposer <b>{proposer}</b> · session {session} · created {at} · checked against head <code>{head}</code>{commit}</p>'
        '<p id="credit">credited to <b>{who}</b>{file_sha}</p>'
        '<h2>Reasons</h2><ul id="reasons">{reasons}</ul><h2>Payload (model output: data, never code)</h2>{payload}'
        '<h2>Evidence</h2>{evsum}<table id="results"><tr><th>obligation</th><th>verdict</th><th>rank</th><th>trust</th>'
        '<th>reasons</th></tr>{results}</table><h2>Certified bounds, state, precision</h2>{bounds}'
        '<h2>Artifacts (checked certificates)</h2>{artifacts}<h2>Proposer metadata</h2>{meta}',
        id=c.id, cls=c.label, label=c.label, sha=contract_sha, name=lineage_name, proposer=c.proposer,
        who=who, file_sha=fill(" (sha256 <code>{s}</code>; what its line claims is under untrusted_line_meta, "
                               "unverified)", s=file_sha) if file_sha else "",
        session=c.session_id if c.session_id is not None else "-", at=c.created_at, head=(c.head_commit or "-")[:12],
        commit=fill(' · committed as <a href="/commit/{h}"><code>{s}</code></a>', h=c.commit_hash, s=c.commit_hash[:12]) if c.commit_hash else "",
        reasons=join(fill("<li>{r}</li>", r=r) for r in c.reasons) if c.reasons else Safe("<li>none</li>"),
        payload=_pre(c.payload),
        evsum=fill("<p>checker {ch} {v} · evidence <code>{s}</code></p>", ch=ev.checker, v=ev.checker_version, s=c.evidence_sha) if ev else Safe("<p>no evidence (malformed or checker error)</p>"),
        results=join(results),
        bounds=_pre({"bounds": {k: str(v) for k, v in ev.bounds.items()}, "state": ev.state, "precision": ev.precision,
                     "timings": dict(c.timings)}) if ev else Safe(""),
        artifacts=_pre(ev.artifacts) if ev else Safe(""), meta=_pre(dict(c.meta)))
    return layout(f"candidate {c.id}", body)


def commit_page(c: CommitRecord, contract: Contract | None, lineage_name: str, lean: str | None) -> str:
    body = fill('<h1>commit {seq} of {name}</h1><p><a href="/t/{sha}">back to {name}</a> · '
                '<a href="/t/{sha}/graph?commit={h}">graph at this commit</a> · <a href="/candidate/{cid}">candidate {cid}</a></p>'
                '<table><tr><th>hash</th><td><code>{h}</code></td></tr><tr><th>parent</th><td><code>{parent}</code></td></tr>'
                '<tr><th>created</th><td>{at}</td></tr><tr><th>label</th><td>{label}</td></tr>'
                '<tr><th>certified</th><td class="bounds">{bounds}</td></tr><tr><th>exact</th><td><code>{exact}</code></td></tr>'
                '<tr><th>Lean</th><td>{lean}</td></tr><tr><th>evidence sha256</th><td><code>{ev}</code></td></tr></table>'
                '<h2>Ranks</h2>{ranks}<h2>State</h2>{state}',
                seq=c.seq, name=lineage_name, sha=c.contract_sha, h=c.hash, cid=c.candidate_id,
                parent=c.parent, at=c.created_at, label=c.label,
                bounds=bound_text(contract, {k: str(v) for k, v in c.bounds.items()}),
                exact=", ".join(f"{k} = {v}" for k, v in sorted(c.bounds.items())) or "-", lean=lean or "-",
                ev=c.evidence_sha, ranks=_pre(dict(c.ranks)), state=_pre(dict(c.state)))
    return layout(f"commit {c.hash[:12]}", body)


def error_page(status: int, message: str, detail: Safe | None = None) -> str:
    return layout(str(status), fill("<h1>{s}</h1><p>{m}</p>{d}<p><a href=\"/\">targets</a></p>", s=status, m=message,
                                    d=detail if detail is not None else Safe("")))


