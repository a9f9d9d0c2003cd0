"""Lean claims of shannon-capacity-c7: the kernel proves them for an independent set and refuses an adjacent pair."""

from __future__ import annotations

import pytest

from mathloop.targets import load_contract
from mathloop.lean.render import RenderError, without_imports as _body
from mathloop.lean.support_modules import shared_modules
from mathloop.targets import build_target
from mathloop.targets.shannon_capacity_c7.graph import adjacent, decode, encode
from mathloop.targets.shannon_capacity_c7.lean_claims import lean_parts, render_commit, support_module_text
from tests.support.contracts import shipped


@pytest.fixture(scope="module")
def c7():
    return build_target(load_contract(shipped("shannon-capacity-c7")))


def _cube(k: int, v: int) -> list[int]:
    """Python mirror of c7CubeCodes."""
    if k == 0:
        return [0]
    d = v % 7
    return [c * 7 + x for c in _cube(k - 1, v // 7) for x in (d, (d + 1) % 7)]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_cube_criterion_of_the_support_module_matches_adjacency_exhaustively(n):
    cubes = [set(_cube(n, a)) for a in range(7**n)]
    for a in range(7**n):
        for b in range(7**n):
            assert bool(cubes[a] & cubes[b]) == (a == b or adjacent(decode(a, n), decode(b, n)))


def _source(ev, namespace="T"):
    defs, claims, _ = lean_parts(ev)
    body = [d.text() for d in defs] + [c.statement_text() for c in claims] + [c.proof_text() for c in claims]
    src = "\n".join(["set_option maxRecDepth 100000", _body(shared_modules()["Mathloop.Exact"]), _body(support_module_text()),
                     f"namespace {namespace}\nopen Mathloop\nnoncomputable section", *body, f"end\nend {namespace}\n"])
    return src, [f"{namespace}.{c.name}" for c in claims]


def test_parts_state_the_codes_the_size_and_the_bound(c7):
    ev = c7.check(None, c7.parse({"n": 2, "vertices": [[0, 0], [2, 2], [4, 4]]}))
    defs, claims, r = lean_parts(ev)
    by = {d.name: d.value for d in defs}
    assert by["S"] == f"(List.cons 0 (List.cons {encode((2, 2))} (List.cons {encode((4, 4))} List.nil)))"
    assert by["size"] == "3" and r == ev.bounds["capacity"]
    assert [c.name for c in claims] == ["codes", "independent", "size_of_S", "root_bound"]


def test_refuses_to_render_a_certificate_whose_size_does_not_match(c7):
    ev = c7.check(None, c7.parse({"n": 1, "vertices": [[0], [2], [4]]}))
    bad = type(ev)(**{**ev.__dict__, "artifacts": {"certificate": {**ev.artifacts["certificate"], "size": 4}}})
    with pytest.raises(RenderError, match="size or n"):
        lean_parts(bad)


def test_render_commit_renders_or_says_the_lean_layer_cannot_load_package_modules(c7):
    ev = c7.check(None, c7.parse({"n": 1, "vertices": [[0], [2], [4]]}))
    try:
        import mathloop.lean.support_modules  # noqa: F401  (the Lean layer of issue 19)
    except ImportError:
        assert render_commit(c7.contract, "ab" * 32, ev) is None
    else:
        rendered = render_commit(c7.contract, "ab" * 32, ev)
        assert "Mathloop.ShannonC7" in rendered.support


@pytest.mark.lean
def test_kernel_proves_the_claims_of_an_independent_set_and_refuses_an_adjacent_pair(c7):
    from mathloop.lean.check import check_source
    from mathloop.domain import Verdict

    good = c7.check(None, c7.parse({"n": 2, "vertices": [[0, 0], [1, 2], [2, 4], [3, 6], [4, 1]]}))
    src, names = _source(good)
    res = check_source(src, names)
    if res.verdict is Verdict.UNKNOWN:
        pytest.skip(res.reason)
    assert res.verdict is Verdict.PROVED, res.messages
    # The same rendering with one vertex moved next to another: the kernel must refuse `independent`.
    bad_src = src.replace(f"(List.cons {encode((1, 2))} ", f"(List.cons {encode((1, 1))} ")
    assert bad_src != src
    res = check_source(bad_src, names)
    assert res.verdict is Verdict.REFUTED
