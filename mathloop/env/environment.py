"""The verifier as an environment: the prompt a model is shown, and the checked score of its reply.

`Environment(target, reference)` fixes a target and a reference state (the contract's seed, or a
commit of a store). `prompt()` returns the chat messages that `--proposer openai` would send at
that state (same templates, same builder); `score(text)` extracts the candidate with the model
proposer's strict extraction, checks it with the target's checkers in a child process under the
contract's timeout, labels it against the reference with the gate's decision, and returns a frozen
`Score`. Scoring never writes a store and never creates a file; committing stays the gate's,
through `mathloop run`.

    >>> with Environment("levinson-conrey") as env:                         # doctest: +SKIP
    ...     env.score('{"P": ["0", "1"], "Q": ["1", "-1"], "R": "6/5"}').label
    <Label.PROGRESS: 'progress'>
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from mathloop.contract import Contract
from mathloop.targets import load_contract
from mathloop.domain import Label, fraction_str, sha256_hex
from mathloop.check.checker import build_checker
from mathloop.check.executors import LocalPool
from mathloop.env.prompting import context_at, messages_at
from mathloop.env.reference import Reference, StoreCommit, reference_state
from mathloop.env.rewards import RewardTable, certified_gain
from mathloop.propose.base import Context, payload_sha
from mathloop.propose.extract import MAX_REPLY_CHARS, NotJSON, extract_json
from mathloop.propose.schemas import ReplyReader
from mathloop.targets import build_target

_CACHE_ENTRIES = 65_536


@dataclass(frozen=True)
class Score:
    """The checked verdict on one completion.

    Attributes:
        label: correct / progress / no_progress / regression / incomparable, or malformed / error.
        reward: the reward table's value for the label (plus the scaled certified gain, if configured).
        bounds: certified bounds of the candidate's state (exact, in each bound's own direction).
        reasons: why it did not pass the gate (the checkers' and the gate's words); empty on progress.
        evidence_sha256: sha256 of the evidence's canonical bytes (as the store records it), or None.
        payload_sha256: sha256 of the extracted payload's canonical JSON, or None when none was found.
    """

    label: Label
    reward: float
    bounds: Mapping[str, Fraction]
    reasons: tuple[str, ...]
    evidence_sha256: str | None
    payload_sha256: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the score as JSON-able data (bounds as exact "p/q" strings)."""
        return {"label": self.label.value, "reward": self.reward,
                "bounds": {k: fraction_str(v) for k, v in sorted(self.bounds.items())},
                "reasons": list(self.reasons), "evidence_sha256": self.evidence_sha256,
                "payload_sha256": self.payload_sha256}


@dataclass(frozen=True)
class _Judged:
    """What the checkers and the gate said about one payload (the reward is applied on top)."""

    label: Label
    bounds: Mapping[str, Fraction]
    reasons: tuple[str, ...]
    evidence_sha256: str | None
    gain: Fraction


# One cache per process: (contract sha, reference key, payload sha) -> _Judged. Errors are not cached
# (a timeout on a loaded machine is not a property of the candidate).
_cache: OrderedDict[tuple[str, str, str], _Judged] = OrderedDict()
_cache_lock = threading.Lock()


def clear_cache() -> None:
    """Forget every cached verdict of this process (for benchmarks and tests)."""
    with _cache_lock:
        _cache.clear()


class Environment:
    """A target and a reference state to score completions against; see the module docstring.

    Args:
        target: a target name (`levinson-conrey`), a contract path, or a loaded Contract.
        reference: None (the contract's seed) or StoreCommit(db, commit) (a commit of a store).
        rewards: the reward table (labels -> floats).
        workers: child processes checking a batch in parallel.
        rejections: recently refused candidates shown in the prompt (store references only).
        timeout_s: seconds per check; default the contract's limits.check_timeout_s.
        pool: share another environment's checker processes (see `at()`); `workers` is then ignored.
        start_method: accepted for older callers and ignored (checker children are fresh interpreters).

    Raises:
        ContractError: unknown target or invalid contract.
        ReferenceError: the seed does not check, or the store commit is not in the lineage.
    """

    def __init__(self, target: str | Contract, reference: StoreCommit | None = None, *,
                 rewards: RewardTable | None = None, workers: int = 1, rejections: int = 0,
                 timeout_s: float | None = None, start_method: str | None = None,
                 pool: LocalPool | None = None) -> None:
        if rejections < 0:
            raise ValueError(f"rejections: must be >= 0, got {rejections}")
        self.contract = target if isinstance(target, Contract) else load_contract(target)
        self.target = build_target(self.contract)
        self.rewards = rewards or RewardTable()
        self.reader = ReplyReader(self.contract, self.target)  # the target's proposal form, as the model proposer
        self.schema = self.reader.schema
        self._owns_pool = pool is None
        if pool is None:
            pool = LocalPool(workers, float(timeout_s or self.contract.check_timeout_s))
        self._pool = pool
        # The one checking object: the pool's children check, `decide` judges (bracket limits from a store reference).
        self._checker = build_checker(self.contract, self.target, runner=pool, timeout_s=pool.timeout_s)
        self._count_lock = threading.Lock()
        self.checks_run = 0  # child-process checks while scoring (cache hits and malformed replies need none)
        try:
            if self._owns_pool:
                pool.warm(self.contract)  # every child up and warm now, not inside the first batch
            self.reference: Reference = reference_state(self.contract, reference, self._checker.check,
                                                        rejections=rejections)
        except BaseException:
            self.close()
            raise
        self._ref_key = self.reference.key

    def __repr__(self) -> str:
        return f"Environment({self.contract.name!r}, reference={self.reference.id!r})"

    def __enter__(self) -> "Environment":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the checker processes this environment started (idempotent; shared pools stay up)."""
        if self._owns_pool:
            self._pool.close()

    def at(self, reference: StoreCommit | None, *, rejections: int = 0) -> "Environment":
        """Return an environment at another reference state that shares this one's checker processes."""
        return Environment(self.contract, reference, rewards=self.rewards, rejections=rejections, pool=self._pool)

    @property
    def timeout_s(self) -> float:
        return self._pool.timeout_s

    # -- what a model is shown ---------------------------------------------------------------
    def context(self) -> Context:
        """Return the proposer context at the reference state (one sample, no memory of other rounds)."""
        return context_at(self.contract, self.reference.head, self.reference.rejections)

    def prompt(self) -> list[dict[str, str]]:
        """Return the system and user messages `--proposer openai` sends at the reference state."""
        return messages_at(self.contract, self.schema, self.reference.head, self.reference.rejections,
                           self.reader.form)

    # -- scoring -----------------------------------------------------------------------------
    def score(self, text: Any) -> Score:
        """Return the checked score of one completion (its reply text)."""
        return self.score_batch([text])[0]

    def score_batch(self, texts: Sequence[Any]) -> list[Score]:
        """Return one score per completion; distinct payloads are checked in parallel, each once."""
        found = [self._extract(t) for t in texts]
        todo: dict[str, Any] = {}
        for item in found:
            if isinstance(item, tuple) and self._cached(item[0]) is None:
                todo.setdefault(item[0], item[1])
        judged = dict(zip(todo, self._pool.map(lambda kv: self._judge(*kv), todo.items())))
        return [item if isinstance(item, Score) else self._score(judged.get(item[0]) or self._cached(item[0]), item[0])
                for item in found]

    def _extract(self, text: Any) -> tuple[str, Any] | Score:
        """Return (payload sha, payload) found in a reply, or its malformed Score."""
        if not isinstance(text, str):
            return self._malformed(f"completion is not text ({type(text).__name__})")
        try:
            payload = extract_json(text, max_chars=MAX_REPLY_CHARS).value
        except NotJSON as e:  # the same wording the model proposer records
            return self._malformed(f"no usable JSON: {e}")
        try:
            # the full candidate, as the model proposer stores it (an edit form edits the reference head)
            payload, _ = self.reader.payload(payload, self.reference.head.state)
        except ValueError as e:
            return self._malformed(str(e))
        return payload_sha(payload), payload

    def _malformed(self, why: str) -> Score:
        return Score(Label.MALFORMED, self.rewards.value(Label.MALFORMED), {}, (why,), None, None)

    def _score(self, j: _Judged, sha: str) -> Score:
        return Score(j.label, self.rewards.value(j.label, j.gain), dict(j.bounds), j.reasons, j.evidence_sha256, sha)

    def _cache_key(self, sha: str) -> tuple[str, str, str]:
        return (self.contract.sha256, self._ref_key, sha)

    def _cached(self, sha: str) -> _Judged | None:
        with _cache_lock:
            j = _cache.get(self._cache_key(sha))
            if j is not None:
                _cache.move_to_end(self._cache_key(sha))
            return j

    def _judge(self, sha: str, payload: Any) -> _Judged:
        ref = self.reference
        with self._count_lock:
            self.checks_run += 1
        out, d = self._checker.judge(ref.head.state, payload, ref.scores, ref.limits)
        if d is None:
            label = Label.MALFORMED if out.malformed is not None else Label.ERROR
            j = _Judged(label, {}, (out.malformed or out.error or "checker gave no answer",), None, Fraction(0))
        else:
            gain = certified_gain(self.contract, ref.scores, out.evidence) if d.commits else Fraction(0)
            j = _Judged(d.label, dict(out.evidence.bounds), d.reasons, sha256_hex(out.evidence.canonical_bytes()), gain)
        if j.label is not Label.ERROR:
            with _cache_lock:
                _cache[self._cache_key(sha)] = j
                while len(_cache) > _CACHE_ENTRIES:
                    _cache.popitem(last=False)
        return j
