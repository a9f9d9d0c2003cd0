"""Hypothesis fuzzing of every parser at the edge: only the documented refusal escapes, nothing is committed.

Parsers and their one documented refusal: each target's `parse` (Malformed), contract TOML loading
(ContractError), replay lines (none: a bad line is a malformed proposal), model replies
(`extract_json`: NotJSON; the whole reply path: none), the base URL (ValueError), certificate
manifests and candidate files through `mathloop check` (exit 1 or 2, never a traceback), Lean's
`--json` messages (none: odd lines are returned as non-message lines).

The default tier runs a few dozen derandomised examples per parser; `-m slow` runs the deep profile
(600, also derandomised; `MATHLOOP_FUZZ_EXPLORE=1 pytest -m slow tests/adversarial/test_fuzz_parsers.py`
draws fresh ones).
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mathloop.targets import load_contract
from mathloop.contract.model import ContractError
from mathloop.propose.base import Context
from mathloop.propose.chat import ChatReply
from mathloop.propose.extract import NotJSON, extract_json
from mathloop.propose.openai_proposer import OpenAIOptions, build_openai_proposer, check_base_url
from mathloop.propose.redact import Redactor
from mathloop.propose.replay import ReplayProposer
from mathloop.targets import build_target, registered, target_class
from mathloop.targets.base import Malformed
from tests.adversarial.test_secret_never_leaks import KEY, leaked
from tests.integration.cli import invoke

from mathloop.lean.check import parse_messages

def _parser_contracts() -> tuple[str, ...]:
    """Return the shipped contracts of mathloop's own targets that bound no table constant, from the registry (the
    table constants' parsers: tests/adversarial/test_hostile_constants.py)."""
    return tuple(f.removesuffix(".toml") for key, reg in sorted(registered().items()) if reg.own
                 for f in target_class(key).contract_files if target_class(key).constant_records() is None)


CONTRACTS = _parser_contracts()
_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
           HealthCheck.function_scoped_fixture]
# A generous per-example deadline (the machine is shared; a slow example is not a bug, a hang is), and a
# wall-clock bound per test (pytest-timeout) so that a parser that hangs fails instead of stalling CI.
FAST = settings(max_examples=30, deadline=timedelta(seconds=5), derandomize=True, database=None,
                suppress_health_check=_HEALTH)
# Derandomised like every property test (tests/conftest.py), unless MATHLOOP_FUZZ_EXPLORE=1. 200 draws per
# parser keep CI's slow tier near its time budget; MATHLOOP_FUZZ_DEEP=600 (or more) digs deeper by hand.
DEEP = settings(max_examples=int(os.environ.get("MATHLOOP_FUZZ_DEEP", "200")), deadline=timedelta(seconds=10),
                suppress_health_check=_HEALTH)
pytestmark = pytest.mark.timeout(900)


def tiers(strategy: Any, examples: int | None = None) -> Callable:
    """Decorate a property once; return (default-tier test, slow deep test) as a pair to unpack."""
    def wrap(prop: Callable) -> tuple[Callable, Callable]:
        fast = FAST if examples is None else settings(FAST, max_examples=examples)
        return fast(given(strategy)(prop)), pytest.mark.slow(DEEP(given(strategy)(prop)))
    return wrap


# --- strategies ------------------------------------------------------------------------------------

NUMBERISH = st.one_of(
    st.from_regex(r"\A-?[0-9]{1,30}(/[0-9]{1,30})?\Z"),
    st.from_regex(r"\A-?[0-9]{1,3}\.[0-9]{0,40}([eE][+-]?[0-9]{1,4})?\Z"),
    st.integers(4290, 4400).map(lambda n: "7" * n),  # around Python's int-string limit
    st.integers(1, 40).map(lambda n: "1/" + "0" * n),
    st.sampled_from(["NaN", "inf", "-inf", "1/0", "0/0", "", " ", "1e999999", "٣", "1_000", "0x10", "+-1", "½"]),
)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.integers(), NUMBERISH,
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12))
JSON = st.recursive(SCALARS, lambda kids: st.one_of(st.lists(kids, max_size=6),
                                                   st.dictionaries(st.text(max_size=6), kids, max_size=5)),
                    max_leaves=25)


@st.composite
def mutated_seed(draw: Any, seed: dict) -> Any:
    """Return the contract's seed payload with a few keys replaced, dropped or added (or arbitrary JSON)."""
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON)
    payload = json.loads(json.dumps(seed))
    keys = sorted(payload) or ["x"]
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(keys + ["extra"]))
        action = draw(st.integers(0, 3))
        if action == 0:
            payload.pop(key, None)
        elif action == 1 and isinstance(payload.get(key), list) and payload[key]:
            i = draw(st.integers(0, len(payload[key]) - 1))
            payload[key][i] = draw(st.one_of(NUMBERISH, JSON))
        elif action == 2 and isinstance(payload.get(key), list):
            payload[key] = payload[key] + draw(st.lists(NUMBERISH, max_size=40))
        else:
            payload[key] = draw(st.one_of(NUMBERISH, JSON))
    return payload


_TARGETS = {name: (build_target(load_contract(name)), dict(load_contract(name).seed)) for name in CONTRACTS}


@st.composite
def target_and_payload(draw: Any) -> tuple[str, Any]:
    name = draw(st.sampled_from(CONTRACTS))
    return name, draw(mutated_seed(_TARGETS[name][1]))


# --- candidate JSON through each target's parse ------------------------------------------------------

@tiers(target_and_payload(), examples=120)
def _parse_refuses_only_with_malformed(case: tuple[str, Any]) -> None:
    name, payload = case
    target = _TARGETS[name][0]
    try:
        target.parse(payload)
    except Malformed as e:
        assert str(e), f"{name}: a refusal without a reason"


test_target_parse_refuses_only_with_malformed, test_target_parse_refuses_only_with_malformed_deep = \
    _parse_refuses_only_with_malformed


def _leaf_paths(x: Any, path: tuple = ()) -> Any:
    yield path
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _leaf_paths(v, (*path, k))
    elif isinstance(x, list):
        for i, v in enumerate(x[:3]):
            yield from _leaf_paths(v, (*path, i))


@pytest.mark.parametrize("name", CONTRACTS)
def test_numbers_past_the_digit_limit_are_refused_as_malformed(name: str) -> None:
    # Python-level callers (the reward API) can pass ints JSON never would; str() of one raises ValueError.
    target, seed = _TARGETS[name]
    huge = "7" * 4301
    values = (10**5000, -(10**5000), huge, f"1/{huge}", f"{huge}/7", f"0.{huge}", f"1e{huge}", [huge], {"x": huge})
    paths = list(_leaf_paths(seed))[1:]
    for path in paths:
        for value in values:
            payload = json.loads(json.dumps(seed))
            node = payload
            for k in path[:-1]:
                node = node[k]
            node[path[-1]] = value
            with pytest.raises(Malformed):
                target.parse(payload)
    assert paths


def test_the_target_parsers_accept_their_own_seeds():  # the should-accept twin of the property above
    for name, (target, seed) in _TARGETS.items():
        assert target.parse(seed) is not None, name


# --- a fuzzed candidate through the whole loop never commits -----------------------------------------

@pytest.fixture(scope="module")
def lc_session(tmp_path_factory):
    from mathloop.search.loop import Session
    from mathloop.check.runner import InProcessRunner
    from mathloop.store.engine import make_engine
    from mathloop.store.repository import Repository

    contract = load_contract("levinson-conrey")
    repo = Repository(make_engine(str(tmp_path_factory.mktemp("fuzz") / "fuzz.db")))
    repo.ensure_contract(contract)
    session = Session(contract, repo, InProcessRunner(), repo.start_session(contract.sha256, "fuzz", 0, {}))
    return session, session.ensure_root()


@FAST
@given(mutated_seed({"P": ["0", "1"], "Q": ["1", "-1"], "R": "13/10"}))
def test_a_fuzzed_candidate_is_recorded_and_never_committed(lc_session, payload):
    from mathloop.propose.base import Proposal

    session, root = lc_session
    head, label = session.step(root, Proposal(payload, "fuzz", {}))
    assert head.hash == root.hash and label.value in {"malformed", "no_progress", "regression", "incomparable", "error"}
    assert session.repo.head(session.contract.sha256).hash == root.hash


# --- contract TOML ---------------------------------------------------------------------------------

_CONTRACT_TEXT = {name: load_contract(name).path.read_text(encoding="utf-8") for name in CONTRACTS}


@st.composite
def mutated_contract(draw: Any) -> str:
    lines = _CONTRACT_TEXT[draw(st.sampled_from(CONTRACTS))].splitlines()
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.integers(0, 3))
        if action == 0:
            del lines[i]
        elif action == 1 and "=" in lines[i]:
            key = lines[i].split("=", 1)[0]
            value = draw(st.one_of(NUMBERISH.map(json.dumps), st.text(max_size=20),
                                   JSON.map(lambda v: json.dumps(v, ensure_ascii=False))))
            lines[i] = f"{key}= {value}"
        elif action == 2:
            lines.insert(i, draw(st.text(max_size=30)))
        else:
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        if not lines:
            break
    return "\n".join(lines)


@tiers(mutated_contract(), examples=60)
def _contract_loading_refuses_only_with_contract_error(text: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "fuzzed.toml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            load_contract(path)
        except ContractError as e:
            assert "fuzzed.toml" in str(e)


test_contract_loading_refuses_only_with_contract_error, test_contract_loading_refuses_only_with_contract_error_deep = \
    _contract_loading_refuses_only_with_contract_error

# Integers past Python's int-string digit limit (4300 digits) make int(), Fraction() and tomllib raise a
# bare ValueError; the deep fuzz found one at limits.max_degree. Every value of every shipped contract is
# tried with each spelling, so a parser added later is covered without waiting for fuzzing to find it.
_HUGE = "7" * 4301
_HUGE_VALUES = (_HUGE, json.dumps(_HUGE), json.dumps(f"1/{_HUGE}"))


@pytest.mark.parametrize("name", CONTRACTS)
def test_integers_past_the_digit_limit_are_refused_with_contract_error(name: str, tmp_path: Path) -> None:
    lines = _CONTRACT_TEXT[name].splitlines()
    tried = 0
    for i, line in enumerate(lines):
        if "=" not in line or line.lstrip().startswith("#"):
            continue
        for value in _HUGE_VALUES:
            path = tmp_path / "huge.toml"
            path.write_text("\n".join([*lines[:i], f"{line.split('=', 1)[0]}= {value}", *lines[i + 1:]]), encoding="utf-8")
            try:
                load_contract(path)
            except ContractError as e:
                assert "huge.toml" in str(e)
            tried += 1
    assert tried >= 5 * len(_HUGE_VALUES)


# --- replay lines ----------------------------------------------------------------------------------

LINE_BYTES = st.one_of(st.binary(max_size=80), JSON.map(lambda v: json.dumps(v).encode()),
                       st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")))


def _ctx(samples: int) -> Context:
    from tests.unit.test_openai_proposer import context

    return context(samples=samples)


@tiers(st.lists(LINE_BYTES, max_size=12))
def _replay_lines_never_raise_and_stay_storable(lines: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "f.jsonl"
        path.write_bytes(b"\n".join(lines))
        props = ReplayProposer(path).propose(_ctx(100))
    for p in props:
        assert p.malformed is None or p.malformed.startswith("f.jsonl line ")
        json.dumps([p.payload, dict(p.meta)], ensure_ascii=False).encode("utf-8")


test_replay_lines_never_raise_and_stay_storable, test_replay_lines_never_raise_and_stay_storable_deep = \
    _replay_lines_never_raise_and_stay_storable


# --- model replies ---------------------------------------------------------------------------------

REPLY = st.one_of(
    st.text(max_size=200),
    JSON.map(json.dumps),
    st.tuples(st.text(max_size=30), JSON.map(json.dumps), st.text(max_size=30)).map("".join),
    st.tuples(st.sampled_from(["{", "}", "[", "]", '"', "\\", "```json\n", "NaN", "1" * 4400]),
              st.integers(1, 50)).map(lambda t: t[0] * t[1]),
)


@tiers(REPLY, examples=80)
def _extract_json_refuses_only_with_not_json(text: str) -> None:
    try:
        extract_json(text)
    except NotJSON as e:
        assert str(e)


test_extract_json_refuses_only_with_not_json, test_extract_json_refuses_only_with_not_json_deep = \
    _extract_json_refuses_only_with_not_json


_PROPOSER: list[Any] = []


def _model_proposer() -> Any:
    if not _PROPOSER:
        from tests.unit.test_openai_proposer import StubTarget, stub_contract

        import os
        os.environ.setdefault("OPENAI_API_KEY", KEY)
        _PROPOSER.append(build_openai_proposer(stub_contract(), StubTarget(), OpenAIOptions(
            model="m", base_url="http://127.0.0.1:9/v1")))
    return _PROPOSER[0]


SPELLINGS = st.sampled_from([
    lambda k: k, lambda k: "".join(f"\\u{ord(c):04x}" for c in k), lambda k: "\\u0073" + k[1:],
    lambda k: k[:10] + "\u200b" + k[10:], lambda k: "".join(f"%{ord(c):02X}" for c in k), lambda k: k[3:20],
])


@tiers(st.tuples(REPLY, st.integers(0, 200), SPELLINGS, st.text(max_size=20)), examples=80)
def _a_reply_becomes_a_storable_proposal_without_the_key(case: tuple[str, int, Any, str]) -> None:
    text, at, spell, finish = case
    prop = _model_proposer()
    secret = prop.endpoint.redact._secret
    content = text[:at] + spell(secret) + text[at:]
    redact = prop.endpoint.redact
    reply = ChatReply(redact(content), redact(finish), 1, 1, True, 0.0, 1, "json_schema", redact(spell(secret)))
    p = prop._proposal(reply, 0, _ctx(1))
    recorded = json.dumps([p.payload, dict(p.meta), p.malformed], default=str, ensure_ascii=False)
    recorded.encode("utf-8")
    assert leaked(recorded, secret) == []


test_a_reply_becomes_a_storable_proposal_without_the_key, test_a_reply_becomes_a_storable_proposal_without_the_key_deep = \
    _a_reply_becomes_a_storable_proposal_without_the_key


@tiers(st.tuples(st.text(max_size=60), SPELLINGS, st.text(max_size=60)), examples=80)
def _the_redactor_hides_every_spelling_anywhere(case: tuple[str, Any, str]) -> None:
    before, spell, after = case
    assert leaked(Redactor(KEY)(before + spell(KEY) + after)) == []


test_the_redactor_hides_every_spelling_anywhere, test_the_redactor_hides_every_spelling_anywhere_deep = \
    _the_redactor_hides_every_spelling_anywhere


@tiers(st.text(max_size=60), examples=60)
def _base_url_refuses_only_with_value_error(url: str) -> None:
    for candidate in (url, "http://" + url, "https://127.0.0.1:" + url):
        try:
            check_base_url(candidate)
        except ValueError as e:
            assert str(e).startswith("base_url: ")


test_base_url_refuses_only_with_value_error, test_base_url_refuses_only_with_value_error_deep = \
    _base_url_refuses_only_with_value_error


# --- Lean's --json messages --------------------------------------------------------------------------

LEAN_LINE = st.one_of(
    st.text(max_size=60),
    st.fixed_dictionaries({"severity": JSON, "data": JSON}, optional={"pos": JSON, "kind": JSON,
                                                                      "endPos": JSON}).map(json.dumps),
    st.fixed_dictionaries({"severity": st.sampled_from(["error", "information"]), "data": st.text(max_size=40),
                           "pos": st.fixed_dictionaries({"line": SCALARS, "column": SCALARS})}).map(json.dumps),
)


@tiers(st.lists(LEAN_LINE, max_size=8))
@example(lines=[json.dumps({"severity": "error", "data": "", "pos": {"line": None, "column": "¹"}})])  # found by CI's deep tier
def _lean_messages_never_raise(lines: list[str]) -> None:
    msgs = parse_messages("\n".join(lines))
    assert all(isinstance(m.line, int) and isinstance(m.column, int) and isinstance(m.text, str) for m in msgs)


test_lean_messages_never_raise, test_lean_messages_never_raise_deep = _lean_messages_never_raise


# --- certificate manifests and candidate files through `mathloop check` -----------------------------

MANIFEST = st.fixed_dictionaries({"files": st.one_of(JSON, st.lists(st.one_of(
    JSON, st.fixed_dictionaries({"file": st.one_of(st.text(max_size=12), JSON), "sha256": JSON}))))},
    optional={"format": JSON, "contract": JSON, "head": JSON})


def _check_exit(name: str, filename: str, data: bytes) -> int:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / filename
        path.write_bytes(data)
        res = invoke("check", name, "--candidate", str(path), "--json")
    return res.exit_code


@tiers(MANIFEST, examples=5)  # each example is a whole `check` run; the deep tier tries 600
def _a_fuzzed_manifest_is_refused_with_an_exit_code(manifest: dict) -> None:
    assert _check_exit("critical-line-zeros", "manifest.json", json.dumps(manifest).encode()) in (1, 2)


test_a_fuzzed_manifest_is_refused_with_an_exit_code, test_a_fuzzed_manifest_is_refused_with_an_exit_code_deep = \
    _a_fuzzed_manifest_is_refused_with_an_exit_code


@tiers(st.tuples(st.sampled_from(CONTRACTS), st.one_of(st.binary(max_size=60),
                                                       JSON.map(lambda v: json.dumps(v).encode()))), examples=8)
def _a_fuzzed_candidate_file_is_refused_with_an_exit_code(case: tuple[str, bytes]) -> None:
    name, data = case
    assert _check_exit(name, "candidate.json", data) in (1, 2)


test_a_fuzzed_candidate_file_is_refused_with_an_exit_code, test_a_fuzzed_candidate_file_is_refused_with_an_exit_code_deep = \
    _a_fuzzed_candidate_file_is_refused_with_an_exit_code


def test_fraction_strings_near_the_int_limit_are_what_the_fuzzer_thinks():
    assert Fraction("7" * 4300) > 0  # inside the limit: parsers must bound digits themselves
    with pytest.raises(ValueError):
        Fraction("7" * 4301)


# --- raw HTTP replies from a hostile server ------------------------------------------------------------

_HTTP_HEADS = st.sampled_from([b"", b"HTTP/1.1 200 OK\r\n", b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n",
                               b"HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n", b"HTTP/1.1 500 X\r\n\r\n",
                               b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                               b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 30\r\n\r\n"])
RAW_HTTP = st.tuples(_HTTP_HEADS, st.one_of(st.binary(max_size=120),
                                            JSON.map(lambda v: json.dumps({"choices": [{"message": v}]}).encode())))


@tiers(RAW_HTTP, examples=15)
def _any_raw_http_reply_is_a_proposal_or_a_stop_within_the_deadline(case: tuple[bytes, bytes]) -> None:
    import time

    from mathloop.propose.base import StopSession
    from tests.support.hostile_server import HostileServer
    from tests.unit.test_openai_proposer import proposer

    def behaviour(seen: Any, wire: Any) -> None:
        wire.send(case[0] + case[1])
        wire.close()

    with HostileServer([], default=behaviour) as srv:
        t0 = time.monotonic()
        try:
            props = proposer(srv, request_timeout=0.4, max_retries=0, max_consecutive_failures=1).propose(_ctx(1))
            json.dumps([[p.payload, dict(p.meta)] for p in props], default=str, ensure_ascii=False).encode("utf-8")
        except StopSession:
            pass
        assert time.monotonic() - t0 < 2.0


test_any_raw_http_reply_is_a_proposal_or_a_stop_within_the_deadline, \
    test_any_raw_http_reply_is_a_proposal_or_a_stop_within_the_deadline_deep = \
    _any_raw_http_reply_is_a_proposal_or_a_stop_within_the_deadline
