"""The evolve loop's prompt: the problem, the output format, parent programs with their certified values, near
misses with the checker's reasons, recent failures; bounded in characters (sections are dropped, never cut mid-program).

Parents come from `mathloop.search.program_archive.ProgramArchive` (AlphaEvolve-style: the best certified programs
and the newest near misses). Program A, the one edits apply to, is the best certified program; before any program
exists it is the target's starter (`prompts/programs/<target>.txt`) or a program printing the head's state.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from typing import Any, Sequence

from mathloop.domain import Direction
from mathloop.propose.prompt import template

_LINE = 400           # one near miss or failure line, at most
_STATEMENT = 700      # the contract's statement, at most (program A's comments say the rest)
_EDIT = """One or more blocks exactly like this one (no headings, no ``` fences); each SEARCH part is copied exactly from
program A and appears in it once:

<<<<<<< SEARCH
{line}
=======
{line}  # the new line(s) go here
>>>>>>> REPLACE"""


@dataclass(frozen=True)
class PromptLimits:
    """How much of the archive a prompt shows, and its size.

    Attributes:
        max_chars: the whole prompt (system + user), in characters (about 3.5 per token for code).
        parents: programs shown in full besides program A; near_misses / failures: one-line entries.
    """

    max_chars: int = 12_000
    parents: int = 1
    near_misses: int = 4
    failures: int = 3

    def __post_init__(self) -> None:
        if self.max_chars < 2000:
            raise ValueError(f"max_chars: at least 2000 (the problem and the format alone), got {self.max_chars}")


@dataclass(frozen=True)
class ProgramPrompt:
    """The chat messages, and program A (the text SEARCH/REPLACE edits apply to; None when none was shown)."""

    messages: list[dict[str, str]]
    parent: str | None
    parent_sha: str | None


def starter(target_name: str, head_state: Any) -> str:
    """Return the program A of a lineage without programs: the target's starter, or one printing the head's state."""
    path = resources.files("mathloop.propose").joinpath("prompts", "programs", f"{target_name}.txt")
    if path.is_file():
        return path.read_text("utf-8")
    state = json.dumps(head_state, sort_keys=True)
    return f"import json\n\nstate = {state}\nprint(json.dumps(state))\n" if len(state) < 4000 else \
        "import json\n\nprint(json.dumps({}))\n"


def _value(v: Fraction | None) -> str:
    return "none" if v is None else f"{float(v):.10g}"


def _clip(text: str, limit: int) -> str:
    """Return `text` on one line, cut to `limit` characters.

    >>> _clip("a  b\\nc", 10), _clip("abcdefgh", 5), _clip("abc def", 0)
    ('a b c', 'ab...', '')
    """
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[: limit - 3] + "..." if limit > 3 else ""


def output_format(target: Any, schema_chars: int = 1500) -> str:
    """Return the output-format paragraph: the candidate's JSON schema (and the plain forms the target reads)."""
    schema = json.dumps(target.candidate_schema(), sort_keys=True)
    text = f"Print one JSON object that follows this JSON schema:\n{_clip(schema, schema_chars)}"
    if target.candidate_file_note:
        text += "\n" + target.candidate_file_note
    return text


def build(contract: Any, target: Any, head: Any, archive: Any, *, limits: PromptLimits, sandbox: dict[str, Any],
          starter_text: str, off_form: Sequence[str] = ()) -> ProgramPrompt:
    """Return the prompt for one round (see the module docstring); `archive` is a refreshed ProgramArchive and
    `off_form` the reasons of recent replies that gave no program at all."""
    bound = archive.bound
    spec = next(b for b in contract.bounds if b.name == bound)
    word = "small" if spec.direction is Direction.MINIMIZE else "large"
    best_value = head.bounds.get(bound) if head is not None else None
    system = template("program_system.md").substitute(
        python=f"{sys.version_info.major}.{sys.version_info.minor}", packages=", ".join(sandbox["packages"]) or "nothing",
        seconds=sandbox["seconds"], memory=sandbox["memory_mb"])
    best = archive.best(1 + limits.parents)
    a = best[0] if best else None
    parent = a.text if a is not None else starter_text
    parent_sha = a.sha256 if a is not None else None
    head_line = (f"The best certified value so far: {bound} = {_value(best_value)}. Make {bound} as {word} as "
                 f"possible: a program counts only if its candidate certifies a strictly better value.")
    a_title = (f"## Program A (its output certified {bound} = {_value(a.value)})" if a is not None else
               "## Program A (a starting point: no program has certified a value yet)")
    base = dict(title=contract.name + (f" — {contract.title}" if getattr(contract, "title", "") else ""),
                statement=_clip(getattr(contract, "statement", "") or "", _STATEMENT), format=output_format(target),
                goal=head_line)
    task = (f"Improve program A so that its output certifies a better {bound} (as {word} as you can): change its "
            "construction, its parameters or its search, and keep its output format. A copy of program A gains "
            "nothing: change at least one line. Reply with SEARCH/REPLACE edits of program A only.")
    show_a = f"{a_title}\n```python\n{parent.rstrip()}\n```\n"
    sections: list[str] = [show_a]

    def user_text(extra: Sequence[str], a_shown: bool) -> str:
        return template("program_user.md").substitute(
            **base, sections="\n".join(extra), reply=_edit_example(parent) if a_shown else _WHOLE_REPLY,
            task=task if a_shown else _WHOLE.format(bound=bound, word=word))

    def size(extra: Sequence[str], a_shown: bool = True) -> int:
        return len(system) + len(user_text(extra, a_shown))

    if size(sections) > limits.max_chars:  # program A itself does not fit: ask for a whole program, shown no code
        sections, parent, parent_sha = [], None, None
    for statement, schema in ((_STATEMENT, 1500), (300, 600), (0, 200)):  # a small bound shortens the fixed parts
        base.update(statement=_clip(getattr(contract, "statement", "") or "", statement),
                    format=output_format(target, schema))
        if size(sections, parent is not None) <= limits.max_chars:
            break
    optional: list[str] = []
    shown = {a.sha256} if a is not None else set()
    for r in best[1:]:
        optional.append(f"## Program {chr(ord('A') + len(shown))} (its output certified {bound} = {_value(r.value)})"
                        f"\n```python\n{r.text.rstrip()}\n```\n")
        shown.add(r.sha256)
    near = [f"- {_value(r.value) if r.value is not None else 'nothing certified'}: "
            f"{_clip('; '.join(r.reasons) or r.label, _LINE)}" for r in archive.near_misses(limits.near_misses, shown)]
    fails = [f"- {_clip(r.reasons[0] if r.reasons else r.label, _LINE)}" for r in archive.failures(limits.failures)]
    fails += [f"- {_clip(why, _LINE)}" for why in list(off_form)[: limits.failures]]
    if near:
        optional.insert(0, "## Near misses (checked, not kept; newest first)\n" + "\n".join(near) + "\n")
    if fails:
        optional.insert(1 if near else 0, "## Recent replies that gave no usable candidate\n" + "\n".join(fails) + "\n")
    for part in optional:
        if size([*sections, part], parent is not None) <= limits.max_chars:
            sections.append(part)
    user = user_text(sections, parent is not None)
    return ProgramPrompt([{"role": "system", "content": system}, {"role": "user", "content": user}], parent, parent_sha)


_WHOLE = ("Write a whole program whose output certifies {bound} as {word} as you can, in one ```python block.")
_WHOLE_REPLY = "One ```python block holding the whole program, and nothing else."


def _edit_example(parent: str | None) -> str:
    """Return the edit format shown with a line of program A itself (a no-op as written: the model fills it in)."""
    line = next((ln for ln in (parent or "").splitlines() if "=" in ln and not ln.startswith((" ", "#", "\t"))
                 and len(ln) < 60), None) or "x = 1"
    return _EDIT.format(line=line)
