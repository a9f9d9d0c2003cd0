"""The candidate JSON schema a model is asked to follow: the target's own, from its payload spec.

The schema only guides the model (structured output, the prompt); the target's strict parser
stays the only judge of a payload. Every target derives it from the same spec as its parser
(`Target.candidate_schema()`), so there is no second, hand-written schema here.
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol


class FormSource(Protocol):
    """What a reply reader needs of a target: its forms (the `ProposalForms` capability of targets/base.py)."""

    def proposal_form(self) -> Any: ...

    def proposal_forms(self) -> Mapping[str, Any]: ...

    def candidate_schema(self) -> Mapping[str, Any]: ...


def candidate_schema(contract: Any, target: Any) -> dict[str, Any]:
    """Return the candidate JSON schema the target offers models for this contract."""
    return dict(target.candidate_schema())


def schema_keys(schema: Mapping[str, Any]) -> frozenset[str] | None:
    """Return the keys a schema allows at top level, or None when it allows any key."""
    if schema.get("additionalProperties", True) is not False:
        return None
    return frozenset(schema.get("properties", {}))


def proposal_form(target: FormSource, name: str | None = None, who: str = "the target") -> Any:
    """Return the target's proposal form (`proposal_form()`, the identity by default), or its form `name`
    (`proposal_forms()`).

    Raises:
        ValueError: "form: ..." for a name the target does not offer.
    """
    if name is not None:
        offered = dict(target.proposal_forms())
        if name not in offered:
            known = ", ".join(offered) if offered else "none besides its default"
            raise ValueError(f"form: {who} offers no form {name!r} (offered: {known})")
        return offered[name]
    return target.proposal_form()


class ReplyReader:
    """Maps a model's reply (already extracted JSON) to the payload to store and check, through the target's form.

    A reply written as the target's full payload (exactly its keys) is taken as before forms existed and judged by
    the target's parser; any other reply must follow the form. The one definition the model proposer and the
    environment (`env/`) share, so that a reply scores as it would be stored.
    """

    def __init__(self, contract: Any, target: Any, form_name: str | None = None) -> None:
        self.target = target
        form = proposal_form(target, form_name, contract.target)
        self.form = None if form.identity else form
        self.schema = dict(form.schema)
        self.full_keys = schema_keys(candidate_schema(contract, target)) if self.form is not None else None
        if self.form is not None and self.full_keys == schema_keys(self.form.schema):
            self.full_keys = None  # the form restricts the payload's own keys: every reply must follow the form

    def schema_at(self, head: Mapping[str, Any] | None, seen: frozenset[str] = frozenset()) -> dict[str, Any]:
        """Return the schema offered for this head (the form's narrower one where it has one; `seen`: stored
        payload sha256s, whose replies a form may leave out)."""
        return dict(self.form.schema_at(head, seen)) if self.form is not None else self.schema

    def is_full_payload(self, reply: Any) -> bool:
        """Return whether a reply has exactly the full payload's keys (and the form has other keys)."""
        return isinstance(reply, dict) and self.full_keys is not None and set(reply) == self.full_keys

    def spelled_as_stored(self, payload: Any, stored: Any) -> Any:
        """Return `stored` when it is the same candidate as `payload` (equal once parsed), else `payload`.

        A form maps replies to canonical spellings, while the root keeps its contract's spelling of the seed
        ("6374/10000" for 3187/5000): with the seed as `stored`, a copy of it is recognised as the repeat it is
        (measured: a 1.5B model's copy of the pair-correlation-rh seed was checked again before this).
        """
        try:
            return stored if self.target.parse(payload) == self.target.parse(stored) else payload
        except (ValueError, ArithmeticError, TypeError):  # Malformed is a ValueError: nothing to compare
            return payload

    def payload(self, reply: Any, head: Mapping[str, Any] | None = None) -> tuple[Any, bool]:
        """Return (payload, whether the form mapped it); an edit form edits `head` (the head's state).

        Raises ValueError("reply off the form (NAME): why").
        """
        if self.form is None or self.is_full_payload(reply):
            return reply, False
        try:
            return self.form.map(reply, head), True
        except ValueError as e:  # Malformed: the reply is off the form's schema
            raise ValueError(f"reply off the form ({self.form.name}): {e}") from None
