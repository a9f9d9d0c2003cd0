"""Bound-history plots: certified value vs commit and vs wall time, reference lines, labels per session."""

from __future__ import annotations

from pathlib import Path

from mathloop.contract.model import REST_ON_LABEL
from mathloop.domain import Label
from mathloop.view.graph_figure import new_figure, save_atomically
from mathloop.view.history import History

LABEL_COLOURS = {Label.CORRECT.value: "#1b5e20", Label.PROGRESS.value: "#66bb6a", Label.NO_PROGRESS.value: "#bdbdbd",
                 Label.REGRESSION.value: "#ef9a9a", Label.INCOMPARABLE.value: "#ffcc80", Label.MALFORMED.value: "#ce93d8",
                 Label.ERROR.value: "#d32f2f"}
REF_STYLE = {"class maximum": dict(color="#c62828", ls="--"), "goal": dict(color="#2e7d32", ls=":"),
             "published": dict(color="#1565c0", ls="-."), "partner": dict(color="#6a1b9a", ls="--")}


def _plain(text: str) -> str:
    """Return text that matplotlib draws literally (a `$` would start mathtext)."""
    return text[:40].replace("$", r"\$")


def history_figure(h: History):
    """Return a matplotlib figure: one row per bound (vs commit, vs wall time), then label counts per session."""
    names = [b.name for b in h.contract.bounds]
    widths = [(b.at, b.width) for b in h.bracket if b.width is not None]
    rows = len(names) + 1 + (1 if widths else 0)
    fig = new_figure(11, 2.9 * rows)
    axes = fig.subplots(rows, 2, squeeze=False)
    for i, name in enumerate(names):
        pts = h.bounds.get(name, ())
        spec = h.contract.bound_spec(name)
        for j, (ax, xs) in enumerate(((axes[i][0], [p.seq for p in pts]), (axes[i][1], [p.at for p in pts]))):
            if pts:  # floats only to draw: the certified values are the exact rationals in the store
                ax.step(xs, [float(p.value) for p in pts], where="post", marker="o" if len(pts) <= 60 else None, ms=3,
                        color="#0d47a1",
                        label=f"certified {name}")
            else:
                ax.text(0.5, 0.5, "no certified value yet", ha="center", va="center", transform=ax.transAxes)
            vals = [float(p.value) for p in pts]
            lo, hi = (min(vals), max(vals)) if vals else (None, None)
            span = max(hi - lo, abs(hi) * 0.05, 1e-12) if vals else 0.0
            off_scale = []
            for ref in h.references.get(name, ()):
                v = float(ref.value)
                if vals and not (lo - 3 * span <= v <= hi + 3 * span):
                    off_scale.append(f"{ref.label} {v:.10g} ({'above' if v > hi else 'below'} the plotted range)")
                    continue
                ax.axhline(v, lw=1.1, label=f"{ref.label} {v:.10g}", **REF_STYLE[ref.kind])
            for note in off_scale:  # named in the legend, without a line
                ax.plot([], [], " ", label=note)
            ax.set_ylabel(f"{name} ({'≤' if spec.direction.value == 'minimize' else '≥'})")
            ax.set_xlabel("commit (seq)" if j == 0 else "wall time (UTC)")
            if j == 0:
                from matplotlib.ticker import MaxNLocator

                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.grid(alpha=0.3)
            if j == 1:
                from matplotlib.dates import DateFormatter

                ax.xaxis.set_major_formatter(DateFormatter("%m-%d %H:%M:%S"))
                ax.tick_params(axis="x", labelrotation=20, labelsize=7)
            ax.legend(fontsize=7, loc="best", framealpha=0.85)
        axes[i][0].set_title(f"{h.contract.name}: certified {name} by commit", fontsize=9)
        axes[i][1].set_title(f"{h.contract.name}: certified {name} by wall time", fontsize=9)
    gs = axes[-1][0].get_gridspec()
    if widths:  # the bracket's width after every move of either side, over wall time
        for ax in axes[len(names)]:
            ax.remove()
        wax = fig.add_subplot(gs[len(names), :])
        from datetime import datetime

        wax.step([datetime.fromisoformat(a) for a, _ in widths], [float(w) for _, w in widths], where="post",
                 marker="o", ms=3, color="#6a1b9a", label="certified ceiling - certified primal")
        wax.set_yscale("log")
        wax.set_ylabel("bracket width")
        wax.set_xlabel("wall time (UTC)")
        wax.set_title(f"bracket of the class's best value (ASSUMING RH): width {float(widths[-1][1]):.4e}", fontsize=9)
        wax.grid(alpha=0.3)
        wax.legend(fontsize=7, loc="best")
    for ax in axes[-1]:
        ax.remove()
    bars = fig.add_subplot(gs[-1, :])
    labels = [l.value for l in Label if any(l.value in s.labels for s in h.sessions)]
    xs = list(range(len(h.sessions)))
    bottom = [0] * len(xs)
    for label in labels:
        ys = [s.labels.get(label, 0) for s in h.sessions]
        bars.bar(xs, ys, bottom=bottom, width=0.6, color=LABEL_COLOURS.get(label, "#999"), label=label)
        bottom = [a + b for a, b in zip(bottom, ys)]
    bars.set_xticks(xs, [(f"#{s.id} {_plain(s.proposer or '')}" if s.id is not None else "no session") for s in h.sessions],
                    fontsize=7, rotation=0 if len(xs) < 20 else 90)
    bars.set_xlim(-0.75, max(len(xs), 4) - 0.25)
    bars.set_xlabel("session")
    bars.set_ylabel("candidates")
    bars.set_title("labels per session", fontsize=9)
    if labels:
        bars.legend(fontsize=7, ncol=len(labels))
    else:
        bars.text(0.5, 0.5, "no candidates yet", ha="center", va="center", transform=bars.transAxes)
    text = f"{REST_ON_LABEL}: {h.contract.rests_on()}"  # what every bound rests on, said in every view
    fig.text(0.5, 0.995, (text if len(text) <= 180 else text[:179] + "…").replace("$", r"\$"), ha="center", va="top",
             fontsize=7, color="#555")
    # fixed margins: tight_layout would lay every tick label out twice (half the drawing time on long lineages)
    fig.subplots_adjust(left=0.08, right=0.98, top=1 - 0.16 / rows, bottom=0.22 / rows, hspace=0.55, wspace=0.18)
    return fig


def write_history(h: History, out: Path, fmt: str) -> None:
    """Write the history figure to `out` (png or svg); nothing half-written on failure."""
    from matplotlib import rc_context

    with rc_context({"svg.fonttype": "none"}):  # SVG text stays text: smaller, faster, searchable
        save_atomically(history_figure(h), out, fmt, tight=False)


def history_svg(h: History) -> str:
    """Return the history figure as SVG text (for the web view)."""
    import io

    from matplotlib import rc_context

    buf = io.StringIO()
    with rc_context({"svg.fonttype": "none"}):
        history_figure(h).savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


def history_png(h: History, dpi: int = 110) -> bytes:
    """Return the history figure as PNG bytes (for notebooks: `display(Image(history_png(h)))`)."""
    import io

    buf = io.BytesIO()
    history_figure(h).savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()
