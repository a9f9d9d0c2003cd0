"""The names a plain-style Lean file declares, fully qualified, and the ones that reuse a protected name.

The kernel is right about `namespace Foo  def Nat.add ...  theorem t : Eq (Nat.add 2 2) 5` (the
constant is `Foo.Nat.add`), but a report that reads "PROVED: Eq (Nat.add 2 2) 5" is not. So a file
that declares, exports or renames-on-open a name whose last component is the last component of a
protected constant (the prelude's, and the support modules' when the file uses them) is refused, in
any namespace: `Foo.Nat.add`, `Foo.gcd`, `export Foo (gcd)`, `open Foo renaming f → ble` all are.
Over-refusing a harmless name is cheap. Instances are refused too (an `OfNat Nat 5` instance makes
`5` mean 4), as are string, char and quoted-name literals (they could hide a declaration from
this scan). Comments are skipped with Lean's own nesting rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from mathloop.lean.source import Refusal

_ID = r"[^\W\d][\w'!?]*(?:\.[^\W\d][\w'!?]*)*"
_DECL_RE = re.compile(r"(?<![\w.'])(def|theorem|lemma|abbrev|structure|class|inductive|opaque|axiom)\s+"
                      r"(?:inductive\s+)?"
                      rf"({_ID})")
_INSTANCE_RE = re.compile(r"(?<![\w.'])instance(?![\w'])")
_SCOPE_RE = re.compile(rf"(?<![\w.'])(namespace|section|end|mutual)(?![\w'])[ \t]*({_ID})?")
_CTOR_RE = re.compile(rf"^\s*\|\s*({_ID})(?P<rest>[^\n]*)$", re.M)
_FIELD_RE = re.compile(rf"^[ \t]+({_ID})\s*(?:::|:|\()", re.M)
_EXPORT_RE = re.compile(rf"(?<![\w.'])export\s+{_ID}\s*\(([^)]*)\)")
_OPEN_RE = re.compile(rf"(?<![\w.'])open\s+(?:scoped\s+)?{_ID}\s*(?:\(([^)]*)\)|renaming\s+([^\n]*))")
_ARROW_RE = re.compile(rf"({_ID})\s*(?:→|->)\s*({_ID})")
_SPECIAL_RE = re.compile(r"--|/-|[\"«`']")
_BLOCK_RE = re.compile(r"/-|-/")


@dataclass(frozen=True)
class Name:
    """A declared or aliased name: fully qualified, with its kind and 1-based line."""

    name: str
    kind: str
    line: int


def mask(text: str) -> tuple[str, list[Refusal]]:
    """Return (text with comments blanked, line breaks kept; refusals for literals that could hide names).

    >>> mask("def a := 1 -- def b\\n/- def c /- d -/ -/ def e")[0].split()
    ['def', 'a', ':=', '1', 'def', 'e']
    """
    out, refusals, i, n = list(text), [], 0, len(text)

    def blank(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while (hit := _SPECIAL_RE.search(text, i)) is not None:
        i = hit.start()
        c = text[i]
        if text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/-", i):
            depth, j = 1, i + 2
            while depth and (m := _BLOCK_RE.search(text, j)) is not None:
                depth, j = depth + (1 if m.group(0) == "/-" else -1), m.end()
            if depth:
                j = n
                refusals.append(Refusal("/-", text.count("\n", 0, i) + 1, "unterminated comment"))
            blank(i, j)
            i = j
        elif c != "'" or i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_'!?"):
            what = {"\"": "string literal", "«": "quoted name", "`": "name literal"}.get(c, "char literal")
            refusals.append(Refusal(c, text.count("\n", 0, i) + 1,
                                    f"{what}: not needed in plain-style claims (and could hide a declaration)"))
            i += 1
        else:
            i += 1
    return "".join(out), refusals


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _events(code: str) -> list[tuple[int, str, re.Match]]:
    evs = [(m.start(), "scope", m) for m in _SCOPE_RE.finditer(code)]
    evs += [(m.start(), "decl", m) for m in _DECL_RE.finditer(code)]
    evs += [(m.start(), "ctor", m) for m in _CTOR_RE.finditer(code) if "=>" not in m["rest"]]
    evs += [(m.start(), "export", m) for m in _EXPORT_RE.finditer(code)]
    evs += [(m.start(), "open", m) for m in _OPEN_RE.finditer(code)]
    return sorted(evs, key=lambda e: e[0])


def names(text: str) -> list[Name]:
    """Return every name the text declares or aliases, fully qualified (namespaces and `_root_` resolved)."""
    code, _ = mask(text)
    stack: list[tuple[str, str]] = []
    out: list[Name] = []
    parent = ""  # the last inductive/structure/class: constructors and fields live in it

    def qualify(n: str) -> str:
        if n.startswith("_root_."):
            return n[len("_root_."):]
        return ".".join([p for k, p in stack if k == "namespace"] + [n])

    for pos, kind, m in _events(code):
        line = _line(code, pos)
        if kind == "scope":
            word, arg = m.group(1), m.group(2) or ""
            if word == "end":
                if stack:
                    stack.pop()
            elif word == "namespace":
                stack.append(("namespace", arg))
            else:
                stack.append((word, arg))
        elif kind == "decl":
            full = qualify(m.group(2).rstrip("."))
            out.append(Name(full, m.group(1), line))
            parent = full if m.group(1) in ("structure", "class", "inductive") else ""
            if m.group(1) in ("structure", "class"):
                body = code[m.end():].split("\n\n", 1)[0]
                if re.search(r"(?<![\w.'])where(?![\w'])", body):
                    after = body.split("where", 1)[1]
                    out += [Name(f"{full}.{f.group(1)}", "field", line) for f in _FIELD_RE.finditer(after)
                            if f.group(1) not in ("extends",)]
        elif kind == "ctor" and parent:
            out.append(Name(f"{parent}.{m.group(1)}", "constructor", line))
        elif kind == "export":
            ns = qualify("").rstrip(".")
            out += [Name(f"{ns}.{a}" if ns else a, "export", line) for a in m.group(1).split()]
        elif kind == "open":
            if m.group(1) is not None:
                out += [Name(a, "open", line) for a in m.group(1).split()]
            else:
                out += [Name(b, "open renaming", line) for _, b in _ARROW_RE.findall(m.group(2))]
    return out


def theorems(text: str) -> list[str]:
    """Return the fully qualified names of the theorems (and lemmas) the text declares, in order.

    >>> theorems("namespace A\\nnoncomputable section\\ntheorem t : True := True.intro\\nend\\nend A")
    ['A.t']
    """
    return [n.name for n in names(text) if n.kind in ("theorem", "lemma")]


@lru_cache(maxsize=1)
def prelude_names() -> frozenset[str]:
    """Return the fully qualified names mathloop's prelude declares (the constants the kernel trusts)."""
    from mathloop.lean.bundled import prelude_text

    return frozenset(n.name for n in names(prelude_text()))


def declared_in(texts: Iterable[str]) -> frozenset[str]:
    """Return every name the given module texts declare (e.g. the support modules a file imports)."""
    return frozenset(n.name for t in texts for n in names(t))


def shadowing(text: str, protected: Iterable[str]) -> tuple[Refusal, ...]:
    """Return a refusal for every name of `text` that reuses a protected name's last component, every
    instance, and every literal that could hide a name from this scan."""
    last: dict[str, str] = {}
    for p in sorted(protected):
        last.setdefault(p.rpartition(".")[2], p)
    code, out = mask(text)
    for m in _INSTANCE_RE.finditer(code):
        out.append(Refusal("instance", _line(code, m.start()),
                           "instances are not allowed (an `OfNat Nat 5` instance would make `5` mean 4)"))
    for n in names(text):
        hit = last.get(n.name.rpartition(".")[2])
        if hit is not None:
            out.append(Refusal(n.name, n.line, f"{n.kind} `{n.name}` reuses the name of the protected constant "
                                               f"`{hit}` (the report would read as if it were {hit})"))
    return tuple(out)
