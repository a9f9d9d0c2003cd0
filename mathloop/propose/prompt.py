"""Chat messages for one proposal request, filled from the template files in `prompts/`.

Templates use `string.Template` placeholders only: model output quoted in a prompt (a refused
candidate) is inserted as text and never interpreted.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from string import Template
from typing import Any, Mapping

from mathloop.domain import Direction, decimal_str, fraction_str
from mathloop.domain import Rejection
from mathloop.propose.base import Context

# Quoted model output and state summaries are capped so that one huge candidate cannot fill
# the context window.
_PAYLOAD_CHARS = 400
_STATE_CHARS = 4000
_REASON_CHARS = 300
_REASONS_PER_REJECTION = 4


@lru_cache(maxsize=None)
def template(name: str) -> Template:
    """Return the prompt template `prompts/<name>` shipped with the package."""
    return Template(resources.files("mathloop.propose").joinpath("prompts", name).read_text("utf-8"))


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _json_text(value: Any, limit: int) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return _clip(text, limit)


def _bounds_text(ctx: Context) -> str:
    if ctx.head is None or not ctx.head.bounds:
        return "none yet"
    parts = []
    for name, value in sorted(ctx.head.bounds.items()):
        try:
            spec = ctx.contract.bound_spec(name)
            shown = decimal_str(value, spec.digits, round_down=spec.direction is Direction.MAXIMIZE)  # safe side
            parts.append(f"{name} = {shown} ({spec.direction.value}; exact {fraction_str(value)})")
        except KeyError:
            parts.append(f"{name} = {fraction_str(value)}")
    return "; ".join(parts)


def _min_improvement_text(ctx: Context) -> str:
    specs = ctx.contract.bounds
    if not specs:
        return "any strict progress"
    return ", ".join(f"{b.name} by {fraction_str(b.min_improvement)}" for b in specs)


def _obligations_text(ctx: Context) -> str:
    if not ctx.open_obligations:
        return "none"
    lines = []
    for oid in ctx.open_obligations:
        try:
            o = ctx.contract.obligation(oid)
            lines.append(f"- {oid}: {o.title}. {o.statement}".strip())
        except KeyError:
            lines.append(f"- {oid}")
    return "\n".join(lines)


def rejection_text(r: Rejection) -> str:
    """Return one refused candidate as a negative example (label, candidate, checkers' reasons)."""
    reasons = [_clip(str(x), _REASON_CHARS) for x in r.reasons[:_REASONS_PER_REJECTION]]
    if len(r.reasons) > _REASONS_PER_REJECTION:
        reasons.append(f"... and {len(r.reasons) - _REASONS_PER_REJECTION} more")
    return template("rejection.md").substitute(
        label=str(r.label),
        payload=_json_text(r.payload, _PAYLOAD_CHARS),
        reasons="; ".join(reasons) if reasons else "(none given)",
    ).rstrip("\n")


# Most informative first: checked candidates (their reasons carry certified values) before unparsable ones.
_INFORMATIVE = {"no_progress": 0, "incomparable": 1, "regression": 2, "error": 3, "malformed": 4}


def _in_form(form: Any, payload: Any) -> Any:
    """Return a stored payload in the proposal form (the payload itself when it has no such form)."""
    try:
        shown = form.from_payload(payload) if isinstance(payload, Mapping) else None
    except (ValueError, ArithmeticError, TypeError):
        shown = None
    return payload if shown is None else shown


def _as_edit(form: Any, payload: Any, head: Any) -> Any:
    """Return a stored payload as an edit of the head (edit forms), else None."""
    if getattr(form, "as_edit", None) is None or not isinstance(payload, Mapping) or not isinstance(head, Mapping):
        return None
    try:
        return form.as_edit(payload, head)
    except (ValueError, ArithmeticError, TypeError):
        return None


def history_text(rejections: tuple[Rejection, ...], form: Any, head: Any = None) -> str:
    """Return one line per earlier attempt, in the proposal form, most informative first, each bounded.

    With an edit form and the head, an attempt is shown as the edit of the head that gives it (what a reply writes).
    """
    order = sorted(range(len(rejections)), key=lambda i: (_INFORMATIVE.get(str(rejections[i].label), 5), i))
    lines = []
    for i in order:
        r = rejections[i]
        why = _clip(str(r.reasons[0]), _REASON_CHARS) if r.reasons else "(none given)"
        edit = _as_edit(form, r.payload, head)
        shown = _in_form(form, r.payload) if edit is None else edit
        lines.append(f"- {r.label}: {_json_text(shown, _PAYLOAD_CHARS)} -> {why}")
    return "\n".join(lines)


# The payload grammar's spelling; a form's schema has its own patterns (mostly decimals only), which the schema shows.
_NUMBERS = 'Write every number as a string holding an exact rational, e.g. "13/10", "-2" or "1.3".'
_FORM_NUMBERS = ("Write every value as a string exactly as the schema allows (its pattern, e.g. \"0.25\", or one of "
                 "its enum values).")
# With a form the side conditions and limits hold by construction: the prompt names what is left (about 600 tokens
# fewer, which is most of the prompt-evaluation time of a small model on a CPU).
_FORM_OBLIGATIONS = ("Every side condition and limit holds by construction in the form above; what is left is the "
                     "bound, proved by the checkers.")
_FORM_LIMITS = "those of the form's schema"


def build_messages(ctx: Context, schema: Mapping[str, Any], *, rejections: int, form: Any = None,
                   history: str | None = None) -> list[dict[str, str]]:
    """Return the system and user chat messages for one proposal in this context.

    With a non-identity proposal form, the head and the earlier attempts are shown in that form, the attempts as a
    table most informative first (or `history`, the proposer's own table of its attempts, when given), and the
    model is asked for a small edit of the head (or a structural change); the schema is the one the form offers
    for this head; the obligations and limits the form meets by construction are summarised in one line each.
    """
    parametrised = form is not None and not form.identity
    head = dict(ctx.head.state) if ctx.head else None
    if parametrised:
        schema = form.schema_at(head, ctx.seen)
    system = template("system.md").substitute(schema=json.dumps(schema, sort_keys=True, ensure_ascii=False),
                                              numbers=_FORM_NUMBERS if parametrised else _NUMBERS)
    shown = ctx.rejections[: max(0, rejections)]
    if parametrised:
        head_state = _json_text(_in_form(form, head), _STATE_CHARS) if ctx.head else "(empty)"
        if getattr(form, "head_note", None) is not None:
            head_state += "\n" + form.head_note(head)
        refused = history if history else history_text(shown, form, head) if shown else "none yet"
        head_state += "\n\n" + template("form.md").substitute(explanation=form.explanation.strip()).strip()
    else:
        head_state = _json_text(dict(ctx.head.state), _STATE_CHARS) if ctx.head else "(empty)"
        refused = "\n".join(rejection_text(r) for r in shown) if shown else "none yet"
    user = template("user.md").substitute(
        title=ctx.contract.title,
        statement=ctx.contract.statement.strip(),
        head_commit=ctx.head.commit[:12] if ctx.head else "none: no commit yet",
        head_state=head_state,
        head_bounds=_bounds_text(ctx),
        open_obligations=_FORM_OBLIGATIONS if parametrised else _obligations_text(ctx),
        limits=_FORM_LIMITS if parametrised else _json_text(dict(ctx.contract.limits), _STATE_CHARS),
        rejections=refused,
        min_improvement=_min_improvement_text(ctx),
    )
    return [{"role": "system", "content": system.strip()}, {"role": "user", "content": user.strip()}]
