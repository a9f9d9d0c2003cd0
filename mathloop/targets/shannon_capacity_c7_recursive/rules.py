"""The seven-family calculus of Buys–Polak–Zuiddam: admissibility of rules and codes (exact), and Proposition 1's sizes.

A seven-family of C7^⊠n is seven independent sets F_B, …, F_V with the eleven separations of `gadget.SEPARATED`. A
rule of arity k lists, for each output family λ, label words w ∈ {B,…,V}^k; its output family λ is the union of
the product sets F¹_{w₁} × … × Fᵏ_{w_k} over those words. Two words are *separated* when some position holds two
labels that must be separated. A rule is admissible (their Definition 6) when (i) the words of one output family are
pairwise separated and (ii) every word of λ is separated from every word of μ whenever λ and μ must be separated.
Then (their Proposition 1, taken as given) the output is a seven-family with |F_λ| = Σ_w Π_i |Fⁱ_{w_i}|. A terminal
code is a list of pairwise separated words; the union of its product sets is independent.
"""

from __future__ import annotations

from itertools import combinations

from mathloop.targets.shannon_capacity_c7_recursive.gadget import perpendicular
from mathloop.targets.shannon_capacity_c7_recursive.schema import LABELS

MAX_REPORTED = 3


def separated(w1: str, w2: str) -> bool:
    """Return True when some position holds two labels that must be separated."""
    return any(perpendicular(a, b) for a, b in zip(w1, w2))


def rule_failures(name: str, families: dict[str, list[str]], arity: int) -> list[str]:
    """Return why a rule is not admissible for `arity` inputs (empty when admissible), at most a few lines."""
    fails = [f"rule {name}: word {w} of family {k} has {len(w)} letters, not {arity}"
             for k, words in families.items() for w in words if len(w) != arity]
    if fails:
        return fails[:MAX_REPORTED]
    for k, words in families.items():
        if len(set(words)) != len(words):
            fails.append(f"rule {name}: family {k} lists a word twice")
        fails += [f"rule {name}: words {a} and {b} of family {k} are not separated"
                  for a, b in combinations(words, 2) if not separated(a, b)]
    for x, y in combinations(LABELS, 2):
        if perpendicular(x, y):
            fails += [f"rule {name}: word {a} of {x} and {b} of {y} are not separated"
                      for a in families.get(x, []) for b in families.get(y, []) if not separated(a, b)]
    return fails[:MAX_REPORTED] + ([f"rule {name}: {len(fails) - MAX_REPORTED} more"] if len(fails) > MAX_REPORTED
                                   else [])


def code_failures(name: str, words: list[str], arity: int) -> list[str]:
    """Return why a terminal code is not a code for `arity` inputs (empty when its words are pairwise separated)."""
    fails = [f"code {name}: word {w} has {len(w)} letters, not {arity}" for w in words if len(w) != arity]
    if not fails:
        if len(set(words)) != len(words):
            fails.append(f"code {name}: a word is listed twice")
        fails += [f"code {name}: words {a} and {b} are not separated" for a, b in combinations(words, 2)
                  if not separated(a, b)]
    return fails[:MAX_REPORTED] + ([f"code {name}: {len(fails) - MAX_REPORTED} more"] if len(fails) > MAX_REPORTED
                                   else [])


def word_size(word: str, inputs: list[tuple[int, ...]]) -> int:
    """Return Π_i |Fⁱ_{w_i}|: the size of one word's product set."""
    size = 1
    for label, sizes in zip(word, inputs):
        size *= sizes[LABELS.index(label)]
    return size


def apply_rule(families: dict[str, list[str]], inputs: list[tuple[int, ...]]) -> tuple[int, ...]:
    """Return the output family sizes (B, N, A, D, O, H, V) by Proposition 1."""
    return tuple(sum(word_size(w, inputs) for w in families.get(k, [])) for k in LABELS)


def apply_code(words: list[str], inputs: list[tuple[int, ...]]) -> int:
    """Return the size of the independent set a terminal code builds."""
    return sum(word_size(w, inputs) for w in words)
