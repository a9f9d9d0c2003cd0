"""The bracket between paired lineages, where views import it from; it lives in mathloop/check/bracket.py."""

from mathloop.check.bracket import Bracket, Limit, Side, bracket, guard, limits, pair_of, pairs

__all__ = ["Bracket", "Limit", "Side", "bracket", "guard", "limits", "pair_of", "pairs"]
