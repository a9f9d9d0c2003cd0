"""The obligation graph as one self-contained HTML page: inline SVG, our own CSS and script, no network."""

from __future__ import annotations

import base64
import hashlib

from mathloop.domain import Kind
from mathloop.export.graph import COLOURS, LEAN_CHECKED, STATUSES, NodeStatus
from mathloop.view.graph_data import GraphView
from mathloop.view.layout import positions
from mathloop.view.markup import Safe, fill, join, script_json

W, H, GAP_X, GAP_Y, MARGIN = 210, 70, 28, 56, 24
LEGEND = {"taken as given": "hypothesis (taken as given)", "open": "open", "discharged": "discharged",
          LEAN_CHECKED: "Lean-checked", "refuted": "refuted", "error": "checker error"}

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
header{padding:12px 20px;background:#fff;border-bottom:1px solid #ddd}
header h1{font-size:1.25rem;margin:0 0 4px}
.meta{font-size:.85rem;color:#444}.meta code{font-size:.8rem}
.bounds{font-size:1.05rem;font-weight:600;margin-top:6px}
.given{font-size:.85rem;color:#01579b;margin-top:4px}
main{display:flex;gap:12px;padding:12px;align-items:flex-start}
#canvas{flex:1 1 auto;overflow:auto;background:#fff;border:1px solid #ddd;border-radius:6px;min-width:0}
#canvas svg{display:block;max-width:100%;height:auto}
#panel{flex:0 0 360px;background:#fff;border:1px solid #ddd;border-radius:6px;padding:12px;font-size:.9rem;
 max-height:85vh;overflow:auto;position:sticky;top:8px}
#panel h2{font-size:1rem;margin:0 0 6px}#panel dt{font-weight:600;margin-top:6px}#panel dd{margin:0 0 0 0;white-space:pre-wrap;word-break:break-word}
.legend{display:flex;flex-wrap:wrap;gap:10px;font-size:.8rem;padding:0 20px 8px}
.legend span{display:inline-flex;align-items:center;gap:4px}.legend i{display:inline-block;width:14px;height:14px;border:1px solid #777;border-radius:3px}
g.node{cursor:pointer}g.node:hover rect.box,g.node.sel rect.box{stroke:#0d47a1;stroke-width:3}
g.node text{font-size:12px;pointer-events:none}g.node text.id{font-weight:700;font-size:12.5px}
g.node text.st{font-size:11px;fill:#333}
path.edge{fill:none;stroke:#90a4ae;stroke-width:1.3}
section.all{padding:0 20px 20px;font-size:.85rem}section.all details{margin:3px 0}
section.all summary{cursor:pointer}.pill{display:inline-block;padding:0 6px;border-radius:8px;border:1px solid #999;font-size:.75rem}
ul.reasons{margin:2px 0 2px 18px;padding:0}
"""

JS = """
(function(){
 var data=JSON.parse(document.getElementById('graph-data').textContent);
 var byId={};data.nodes.forEach(function(n){byId[n.id]=n;});
 var panel=document.getElementById('panel');
 function row(dl,k,v){if(v===null||v===undefined||v===''||(Array.isArray(v)&&!v.length))return;
  var dt=document.createElement('dt');dt.textContent=k;var dd=document.createElement('dd');
  if(Array.isArray(v)){var ul=document.createElement('ul');ul.className='reasons';
   v.forEach(function(x){var li=document.createElement('li');li.textContent=x;ul.appendChild(li);});dd.appendChild(ul);}
  else dd.textContent=String(v);dl.appendChild(dt);dl.appendChild(dd);}
 function show(id){var n=byId[id];if(!n)return;
  document.querySelectorAll('g.node.sel').forEach(function(g){g.classList.remove('sel');});
  var g=document.querySelector('g.node[data-id="'+CSS.escape(id)+'"]');if(g)g.classList.add('sel');
  panel.textContent='';var h=document.createElement('h2');h.textContent=n.id+': '+n.title;panel.appendChild(h);
  var dl=document.createElement('dl');panel.appendChild(dl);
  row(dl,'status',n.status);row(dl,'kind',n.kind);row(dl,'statement',n.statement);row(dl,'citation',n.citation);
  row(dl,'checker',n.checker);row(dl,'trust level',n.trust);row(dl,'verdict',n.verdict);row(dl,'rank',n.rank);
  row(dl,'reasons',n.reasons);row(dl,'at this state',n.detail);
  if(n.covered!==null&&n.covered!==undefined)row(dl,'family discharged since the root',(100*n.covered).toFixed(2)+' %');
  if(n.bound){var b=n.bound;row(dl,'certified value',b.value===null?'not certified':(b.direction==='minimize'?'≤ ':'≥ ')+b.value);
   row(dl,'exact',b.exact);row(dl,'class maximum',b.class_maximum===null?'none stated':b.class_maximum+' ('+b.class_maximum_basis+')');
   row(dl,'why the class maximum holds',b.class_maximum_why);
   row(dl,'goal',b.goal);row(dl,'Lean',b.lean_checked?'a real Lean kernel accepted this commit\\'s certificate':'not Lean-checked');}
  row(dl,'depends on',n.depends_on.join(', '));
  if(history.replaceState)history.replaceState(null,'','#'+encodeURIComponent(id));}
 document.querySelectorAll('g.node').forEach(function(g){g.addEventListener('click',function(){show(g.getAttribute('data-id'));});
  g.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();show(g.getAttribute('data-id'));}});});
 var start=decodeURIComponent((location.hash||'').slice(1));
 if(byId[start])show(start);
})();
"""

SCRIPT_CSP_HASH = "sha256-" + base64.b64encode(hashlib.sha256(JS.encode("utf-8")).digest()).decode()


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _node_svg(n: NodeStatus, x: float, y: float) -> Safe:
    fill_c = COLOURS.get(n.status, "#ffffff")
    shape = "4" if n.kind is not Kind.HYPOTHESIS else "14"
    extra = ""
    if n.kind is Kind.BOUND:
        extra = fill('<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="none" stroke="#555"/>',
                     x=x + 3, y=y + 3, w=W - 6, h=H - 6)
    third = n.status + (f" · {n.trust}" if n.trust else "")
    if n.bound is not None and n.bound.value is not None:
        third = (f"{'≤' if n.bound.direction == 'minimize' else '≥'} {n.bound.value} · "
                 + ("Lean ✓" if n.bound.lean_checked else n.status))
    bar = ""
    if n.covered is not None:
        bar = fill('<rect x="{x}" y="{y}" width="{w}" height="5" fill="#eee"/>'
                   '<rect x="{x}" y="{y}" width="{c}" height="5" fill="#2e7d32"/>',
                   x=x + 8, y=y + H - 10, w=W - 16, c=round((W - 16) * n.covered, 1))
    return fill('<g class="node" data-id="{id}" tabindex="0" role="button" aria-label="{aria}">'
                '<rect class="box" x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{fc}" stroke="#555"/>{extra}'
                '<text class="id" x="{tx}" y="{y1}">{idt}</text><text x="{tx}" y="{y2}">{title}</text>'
                '<text class="st" x="{tx}" y="{y3}">{third}</text>{bar}<title>{tip}</title></g>',
                id=n.id, aria=f"{n.id}: {n.status}", x=x, y=y, w=W, h=H, rx=shape, fc=fill_c, extra=Safe(extra),
                tx=x + 8, y1=y + 17, y2=y + 34, y3=y + 51, idt=_short(n.id, 30), title=_short(n.title, 32),
                third=_short(third, 34), bar=Safe(bar), tip=f"{n.title} — {n.status}")


def graph_svg(view: GraphView) -> Safe:
    """Return the DAG as an inline SVG element (nodes clickable when the page's script runs)."""
    g = view.contract.graph()
    pos, routes = positions(g)
    px = lambda p: MARGIN + p[0] * (W + GAP_X)  # noqa: E731
    py = lambda p: MARGIN + p[1] * (H + GAP_Y)  # noqa: E731
    xs = {k: px(p) for k, p in pos.items()}
    ys = {k: py(p) for k, p in pos.items()}
    width = max(xs.values(), default=0) + W + MARGIN
    height = max(ys.values(), default=0) + H + MARGIN
    edges = []
    for a, b in g.edges:
        pts = [(xs[a] + W / 2, ys[a] + H)]
        for p in routes.get((a, b), ()):  # through the gaps of the rows this edge skips
            pts += [(px(p) + W / 2, py(p)), (px(p) + W / 2, py(p) + H)]
        pts.append((xs[b] + W / 2, ys[b] - 2))
        d = f"M{pts[0][0]:.1f},{pts[0][1]:.1f}"
        for (x1, y1), (x2, y2) in zip(pts, pts[1:]):
            my = (y1 + y2) / 2
            d += f" C{x1:.1f},{my:.1f} {x2:.1f},{my:.1f} {x2:.1f},{y2:.1f}" if y2 - y1 > H / 2 + 1 else f" L{x2:.1f},{y2:.1f}"
        edges.append(fill('<path class="edge" d="{d}" marker-end="url(#arrow)"/>', d=d))
    nodes = [_node_svg(n, xs[n.id], ys[n.id]) for n in view.nodes]
    return fill('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
                'role="img" aria-label="obligation graph of {name}"><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" '
                'refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
                'fill="#90a4ae"/></marker></defs>{edges}{nodes}</svg>',
                w=round(width), h=round(height), name=view.contract.name, edges=join(edges), nodes=join(nodes))


def _legend() -> Safe:
    return join(fill('<span><i style="background:{c}"></i>{label}</span>', c=COLOURS.get(s, "#fff"), label=LEGEND[s])
                for s in STATUSES)


def _all_nodes(view: GraphView) -> Safe:
    """Return every node's full record as static, escaped HTML (readable without the script)."""
    items = []
    for n in view.nodes:
        rows = [("statement", n.statement), ("citation", n.citation), ("checker", n.checker), ("trust level", n.trust),
                ("verdict", n.verdict), ("rank", n.rank), ("at this state", n.detail)]
        if n.bound is not None:
            b = n.bound
            rows += [("certified value", b.value or "not certified"),
                     ("class maximum", f"{b.class_maximum} ({b.class_maximum_basis})" if b.class_maximum else "none stated"),
                     ("why the class maximum holds", b.class_maximum_why),
                     ("goal", b.goal), ("Lean", "Lean-checked" if b.lean_checked else "not Lean-checked")]
        body = join(fill("<div><b>{k}:</b> {v}</div>", k=k, v=v) for k, v in rows if v not in (None, ""))
        reasons = fill('<ul class="reasons">{li}</ul>', li=join(fill("<li>{r}</li>", r=r) for r in n.reasons)) if n.reasons else ""
        items.append(fill('<details id="node-{id}"><summary><span class="pill" style="background:{c}">{st}</span> '
                          '<b>{id}</b> — {title}</summary>{body}{reasons}</details>',
                          id=n.id, c=COLOURS.get(n.status, "#fff"), st=n.status, title=n.title, body=body, reasons=Safe(reasons)))
    return join(items)


def graph_body(view: GraphView) -> Safe:
    """Return the page body (header, legend, graph, panel, node list, embedded data, script)."""
    c = view.contract
    given = c.rests_on(cite=True)
    at = (f"commit #{view.seq} ({view.commits} in the lineage): " if view.commit else "") + (view.commit or "no commits yet")
    lean = f" · Lean: {view.lean}" + (f" ({view.lean_detail})" if view.lean_detail else "") if view.lean else ""
    return fill(
        '<header><h1>{title}</h1><div class="meta">target <b>{name}</b> · contract <code>{sha}</code> · '
        '<span id="at">{at}</span>{lean}</div><div class="bounds" id="bounds">{bounds}</div>{bracket}'
        '<div class="given">rests on (taken as given): {given}</div></header>'
        '<div class="legend">{legend}</div><main><div id="canvas">{svg}</div>'
        '<aside id="panel"><h2>Click a node</h2><p>Its statement, citation, checker, trust level, verdict and reasons '
        'appear here.</p></aside></main><section class="all"><h2>All obligations</h2>{all}</section>'
        '<script type="application/json" id="graph-data">{data}</script><script>{js}</script>',
        title=c.title, name=c.name, sha=c.sha256[:16], at=at, lean=lean, bounds=view.bounds_line, given=given,
        bracket=fill('<div class="given" id="bracket">bracket of the class\'s best value, ASSUMING RH (this lineage '
                     'and its partner in this store): {b}</div>', b=view.bracket) if view.bracket else Safe(""),
        legend=_legend(), svg=graph_svg(view), all=_all_nodes(view), data=script_json(view.to_json()), js=Safe(JS))


def graph_fragment(view: GraphView) -> Safe:
    """Return the graph as an embeddable fragment (its style, body and script), e.g. for a notebook cell."""
    return Safe(fill("<style>{css}</style>", css=Safe(CSS)) + graph_body(view))


def graph_html(view: GraphView, *, nav: Safe | None = None) -> str:
    """Return a complete, self-contained HTML document for the graph (no external resource of any kind)."""
    return fill('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
                'content="width=device-width, initial-scale=1"><title>{name} — obligation graph</title>'
                '<style>{css}</style></head><body>{nav}{body}</body></html>\n',
                name=view.contract.name, css=Safe(CSS), nav=nav or Safe(""), body=graph_body(view))
