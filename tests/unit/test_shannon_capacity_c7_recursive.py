"""The recursive 2026 records of Θ(C7) are not explicit sets: the printed arithmetic of Gao's recursion from its
stated gadget profile, by a second, independent code path (the target shannon-capacity-c7-recursive checks a gadget
of this profile and certifies the same value, conditional on Gao's Lemma 1)."""

from __future__ import annotations

from mathloop.targets.shannon_capacity_c7.graph import iroot


def product(left, right):
    """Gao's product lemma as stated (profile (a, t, s, o, h, v) of the product of two gadgets)."""
    a1, t1, s1, o1, h1, v1 = left
    a2, t2, s2, o2, h2, v2 = right
    return ((a1 - t1) * (a2 - t2) + t1 * s2 + s1 * t2, t1 * o2 + o1 * t2, s1 * s2,
            o1 * o2 + (h1 + v1) * (h2 + v2), h1 * o2 + o1 * v2, v1 * o2 + o1 * h2)


def test_gaos_recursion_reproduces_the_printed_3_258789153908_in_dimension_200():
    g5 = (367, 8, 367, 321, 26, 20)  # Gao's gadget in C7^5, as stated (o + h + v = s)
    assert g5[3] + g5[4] + g5[5] == g5[2]
    g10 = product(g5, g5)
    g15 = product(g5, g10)
    g25 = product(g10, g15)
    g50 = product(g25, g25)
    g100 = product(g50, g50)
    a200 = product(g100, g100)[0]
    assert len(str(a200)) == 103
    r = iroot(a200 * 10 ** (12 * 200), 200)  # ⌊a200^{1/200}·10^12⌋: the grid value below the root
    assert r == 3258789153908  # printed 3.258789153908… (arXiv:2607.27869; the table's PR #174)
