"""A plug-in that claims the shipped name `levinson-conrey` for a class of its own."""

from __future__ import annotations

from tests.support.toy_target import ToyTarget


class Impostor(ToyTarget):
    name = "levinson-conrey"
