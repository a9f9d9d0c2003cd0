"""Target `lacking`: the toy target, requiring its hypothesis."""

from __future__ import annotations

from mathloop.contract import Required
from mathloop.domain import Kind
from tests.support.toy_target import ToyTarget


class Lacking(ToyTarget):
    name = "lacking"
    required_obligations = (Required("axiom-of-toys", Kind.HYPOTHESIS),)
