"""The certified figures README.md and the docs state, from one file (docs/figures.toml), rendered into the pages.

A page holds a figure as `<!-- figure NAME -->TEXT<!-- /figure -->`; `render(NAME)` is what TEXT must be.
Names: every table of figures.toml (its value, rounded in its safe direction), `width` (ceiling − primal, rounded
up) and `bracket` (both ends, the width and the lineages that hold them). `python -m tests.support.doc_figures`
rewrites every span; tests/unit/test_doc_figures.py fails on drift.
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from mathloop.outputs import atomic_write

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ROOT / "docs" / "figures.toml"
SPAN = re.compile(r"<!-- figure ([\w-]+) -->(.*?)<!-- /figure -->", re.S)
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True)
class Figure:
    """One certified figure: its exact value, how it is printed, the lineage and certificate that hold it."""

    name: str
    value: Fraction
    digits: int
    down: bool
    lineage: str
    certificate: Path

    def text(self, digits: int | None = None) -> str:
        """Return the value with `digits` decimals (default its own), rounded in its safe direction."""
        return decimal(self.value, self.digits if digits is None else digits, down=self.down)


def decimal(q: Fraction, places: int, *, down: bool) -> str:
    """Return q with `places` decimals, rounded down or up (never claiming more than q).

    >>> decimal(Fraction(2, 3), 3, down=True), decimal(Fraction(2, 3), 3, down=False)
    ('0.666', '0.667')
    """
    scaled = q * 10**places
    n = scaled.numerator // scaled.denominator if down else -((-scaled.numerator) // scaled.denominator)
    whole, frac = divmod(n, 10**places)
    return f"{whole}.{frac:0{places}d}" if places else str(whole)


def scientific_up(q: Fraction, significant: int) -> str:
    """Return q > 0 as "m·10⁻ᵉ" with `significant` digits, rounded up.

    >>> scientific_up(Fraction(178647489, 10**12), 5)
    '1.7865·10⁻⁴'
    """
    e = 0
    while q * Fraction(10) ** -e >= 10:
        e += 1
    while q * Fraction(10) ** -e < 1:
        e -= 1
    return f"{decimal(q * Fraction(10) ** -e, significant - 1, down=False)}·10{str(e).translate(_SUPERSCRIPT)}"


def figures() -> dict[str, Figure]:
    """Return the figures of docs/figures.toml by name."""
    data = tomllib.loads(FIGURES.read_text(encoding="utf-8"))
    return {name: Figure(name, Fraction(t["value"]), int(t["digits"]), t["rounding"] == "down", t["lineage"],
                         ROOT / t["certificate"]) for name, t in data.items()}


def width() -> Fraction:
    f = figures()
    return f["ceiling"].value - f["primal"].value


def render(name: str) -> str:
    """Return the text a `<!-- figure NAME -->` span must hold."""
    f = figures()
    if name in f:
        return f[name].text()
    if name == "width":
        return scientific_up(width(), 5)
    if name == "bracket":
        lo, hi = f["primal"], f["ceiling"]
        return (f"[{lo.text()}, {hi.text()}], width {render('width')} (lower end: lineage `{lo.lineage}`; "
                f"upper end: lineage `{hi.lineage}`)")
    raise KeyError(f"no figure {name!r} in {FIGURES.name} (known: {', '.join([*f, 'width', 'bracket'])})")


def pages() -> list[Path]:
    """Return README.md and every docs page."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def rewrite(text: str) -> str:
    """Return `text` with every figure span regenerated."""
    return SPAN.sub(lambda m: f"<!-- figure {m.group(1)} -->{render(m.group(1))}<!-- /figure -->", text)


if __name__ == "__main__":
    for page in pages():
        old = page.read_text(encoding="utf-8")
        new = rewrite(old)
        if new != old:
            atomic_write(page, new)
            print(f"rewrote {page.relative_to(ROOT)}", file=sys.stderr)
