"""The `critical-line-zeros` target: chunks of Gram blocks, checked rigorously, closed by Turing."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Sequence

import flint

from mathloop.contract.model import Contract, ContractError
from mathloop.contract.rules import Required
from mathloop.domain import Direction, Evidence, Kind, Trust, Verdict, decimal_str, fraction_str
from mathloop.targets.base import ChainCheck, CheckerCrash, Malformed, Target
from mathloop.targets.evidence import Outcome, assemble
from mathloop.targets.critical_line_zeros.certificate import CERTIFICATE_FORMAT, Chunk, Prefix, Recipe, parse_chunk, parse_prefix
from mathloop.targets.critical_line_zeros.gc_pause import gc_paused
from mathloop.targets.critical_line_zeros.gram import expected_sign, gram_decimal, gram_floor
from mathloop.targets.critical_line_zeros.hardy_z import FAST_PREC, arb_of, definite, theta
from mathloop.targets.critical_line_zeros.turing import Closure, close, s_bound_holds

if TYPE_CHECKING:  # numpy (rs_rigorous, the proposer) and the checker are imported on use: `status` lists targets
    from mathloop.targets.critical_line_zeros.proposer import LocalProposer
    from mathloop.targets.critical_line_zeros.settings import Settings
    from mathloop.targets.critical_line_zeros.verify import ChunkOutcome

_CHECKERS = ("blocks", "turing", "height", "count")


class CriticalLineZeros(Target):
    """Every zero of zeta with 0 < t <= T is on the critical line, T pushed up chunk by chunk."""

    name: ClassVar[str] = "critical-line-zeros"
    decides_by_goal: ClassVar[bool] = True  # its bound obligation is UNKNOWN short of the contract's goal
    contract_files: ClassVar[tuple[str, ...]] = ("critical-line-zeros.toml",)  # in obligations/
    version: ClassVar[str] = "2"
    checks: ClassVar[Mapping[str, Trust]] = {c: Trust.RIGOROUS for c in _CHECKERS}
    # N(T) and "all zeros up to T on the line" rest on Riemann–von Mangoldt, Turing's method with
    # Trudgian's constants and Arb's enclosures; the blocks and Turing's closure make them true.
    required_obligations: ClassVar[tuple[Required, ...]] = (
        Required("riemann-von-mangoldt", Kind.HYPOTHESIS),
        Required("turing-trudgian", Kind.HYPOTHESIS),
        Required("arb-enclosures", Kind.HYPOTHESIS),
        Required("blocks", Kind.LEMMA, "blocks"),
        Required("turing", Kind.CHECK, "turing"),
        Required("height", Kind.BOUND, "height", "height", Direction.MAXIMIZE),
        Required("count", Kind.BOUND, "count", "count", Direction.MAXIMIZE),
    )
    progress_measures: ClassVar[tuple[str, ...]] = ("blocks",)  # rank = Gram intervals left up to the cap (gate: OpenByDesign)

    def __init__(self, contract: Contract) -> None:
        from mathloop.targets.critical_line_zeros.settings import read_settings

        super().__init__(contract)
        self.settings: Settings = read_settings(contract)

    @classmethod
    def validate_contract(cls, contract: Contract) -> None:
        """Raise ContractError unless checkers, bounds, parameters, limits and seed fit this target."""
        super().validate_contract(contract)
        used = [o.checker for o in contract.checked]
        for c in _CHECKERS:
            if used.count(c) != 1:
                raise ContractError(contract.path, "obligations", f"checker {c!r} must be used by exactly one obligation")
        for name in ("height", "count"):
            o = next(o for o in contract.checked if o.checker == name)
            if o.kind is not Kind.BOUND or o.bound is None or o.bound.name != name or o.bound.direction.value != "maximize":
                raise ContractError(contract.path, f"obligations.{o.id}", f"must be a bound named {name!r} to maximize")
        seed = cls.parsed_seed(contract)
        if seed.start != -1 or seed.parent is not None:
            raise ContractError(contract.path, "seed", "the seed chunk must start at g_-1 and carry no parent_state")

    def parse(self, payload: Any) -> Chunk | Recipe:
        """Return the typed chunk. Raises Malformed with the field and reason."""
        return parse_chunk(payload, self.settings.limits)

    def local_proposer(self, seed: int, ahead: bool = True) -> LocalProposer:
        """Return the local proposer; with `ahead` (ranges only), each next round is proposed in a child meanwhile,
        once the loop hands it one (LocalProposer.use_child)."""
        from mathloop.targets.critical_line_zeros.proposer import LocalProposer

        s = self.settings
        return LocalProposer(s.limits.max_gram_index, s.chunk_gram_intervals, s.check.ladder, seed, s.check.workers or None,
                             predict=self.predicted_state, ranges=s.limits.max_range_gram_intervals > 0,
                             ahead=self.contract if ahead else None)

    def predicted_state(self, prefix: Prefix) -> dict[str, Any]:
        """Return the state check() gives for a chunk that verifies and leaves `prefix` (T from g_q, no Z)."""
        closure = close(prefix.tail)
        height = gram_floor(closure.closed_at, self.settings.check.height_digits) if closure else None
        return _full_state(prefix, closure, height)

    def check(self, parent_state: Mapping[str, Any] | None, candidate: Chunk | Recipe) -> Evidence:
        """Return the evidence for the prefix extended by `candidate` (deterministic).

        With parent_state None the chunk extends its own recorded parent_state (an exported
        certificate), and the state says so (`conditional_on_parent`); else the empty prefix.
        """
        with gc_paused():
            return self._check(parent_state, candidate)

    def _check(self, parent_state: Mapping[str, Any] | None, candidate: Chunk | Recipe) -> Evidence:
        from mathloop.targets.critical_line_zeros.verify import ChunkOutcome, verify_chunk

        limits = self.settings.limits
        conditional = None
        payload = candidate.payload() if self.settings.check.digest_blocks else {}
        if parent_state is None:
            prefix = candidate.parent or Prefix()
            conditional = candidate.parent.sha() if candidate.parent else None
        else:
            try:
                prefix = parse_prefix("parent_state", _compact(parent_state), limits)
            except Malformed as e:
                raise CheckerCrash(f"stored parent state unreadable: {e}") from None
        if parent_state is not None and candidate.parent is not None and candidate.parent != prefix:
            outcome = ChunkOutcome(prefix, f"certificate was made for the prefix ending at g_{candidate.parent.last_gram_index} "
                                   f"({candidate.parent.blocks_verified} blocks), but the parent ends at g_{prefix.last_gram_index} "
                                   f"({prefix.blocks_verified} blocks)")
        elif isinstance(candidate, Recipe):
            outcome, candidate = self._check_range(candidate, prefix)
        else:
            outcome = verify_chunk(candidate, prefix, self.settings.check)
        # A refuted candidate certifies nothing (not even the parent's height: bounds resting on a REFUTED
        # obligation are refused by check/rules.py, and the label would be `error` instead of its own).
        closure = close(outcome.prefix.tail) if outcome.reason is None else None
        height, z_at_height = self._height(closure) if closure else (None, None)
        return self._evidence(candidate, outcome, closure, height, z_at_height, conditional, payload)

    def _check_range(self, rec: Recipe, prefix: Prefix) -> tuple[ChunkOutcome, Chunk]:
        """Return the outcome of a range candidate and the explicit chunk derived from it (derive.py)."""
        from mathloop.targets.critical_line_zeros.derive import derive
        from mathloop.targets.critical_line_zeros.verify import verify_chunk

        p = self.settings.check
        if rec.start != prefix.last_gram_index:  # refused before any evaluation
            chunk = Chunk(rec.start, (), rec.parent)
            return verify_chunk(chunk, prefix, p), chunk
        chunk, gram = derive(rec, p.ladder, p.fast_z)
        return verify_chunk(chunk, prefix, p, gram), chunk

    def _height(self, c: Closure) -> tuple[Fraction, list]:
        """Return T just below g_q with N(T) = q + 1, and the certified Z(T) ball."""
        digits = self.settings.check.height_digits
        t = gram_floor(c.closed_at, digits)
        ball = definite("q", t, self.settings.check.ladder)
        # Sample points lie below T, so the last zero before g_q lies below T iff Z(T) has g_q's sign.
        if ball.sign != expected_sign(c.closed_at):
            raise CheckerCrash(f"Z at the rational T just below g_{c.closed_at} has the wrong sign; cannot place T")
        with flint.ctx.workprec(128):
            th = theta(arb_of(t)) / flint.arb.pi()
        if not s_bound_holds(c.closed_at + 1, th, float(t)):
            raise CheckerCrash(f"count {c.closed_at + 1} at T={_dec(t)} violates Trudgian's |S(T)| bound: checker bug")
        return t, [fraction_str(t), ball.mid, ball.rad, ball.prec]

    def _evidence(self, chunk: Chunk, out: ChunkOutcome, closure: Closure | None, height: Fraction | None,
                  z_at_height: list | None, conditional: str | None, candidate_payload: Mapping[str, Any]) -> Evidence:
        cap, pre = self.settings.limits.max_gram_index, out.prefix
        open_intervals = max(0, cap - pre.last_gram_index)
        outcomes = {o.checker: self._outcome(o.checker, out, closure, height, open_intervals, o.bound.goal if o.bound else None)
                    for o in self.contract.checked}
        bounds = {"height": height, "count": Fraction(closure.closed_at + 1)} if closure and height is not None else {}
        state = _full_state(pre, closure, height)
        if conditional:
            state["conditional_on_parent"] = conditional
        if out.reason:
            artifacts: dict[str, Any] = {"refutation": {"start": chunk.start, "blocks": len(getattr(chunk, "blocks", ())), "reason": out.reason}}
        elif self.settings.check.digest_blocks:
            from mathloop.targets.critical_line_zeros.digest import DIGEST_FORMAT, digest_artifact

            given = {k: v for k, v in candidate_payload.items() if k != "parent_state"}
            cert = digest_artifact(out.artifact, given, self.settings.check.digest_blocks)
            cert["format"] = DIGEST_FORMAT
            cert["turing"] = dict(closure.to_json(), height=fraction_str(height), z_at_height=z_at_height) if closure else None
            artifacts = {"chunk": cert}
        else:
            cert = dict(out.artifact)
            cert["format"] = CERTIFICATE_FORMAT
            cert["turing"] = dict(closure.to_json(), height=fraction_str(height), z_at_height=z_at_height) if closure else None
            artifacts = {"chunk": cert}
        p = self.settings.check
        precision = {
            "arb_prec_ladder": list(p.ladder),
            "height_digits": p.height_digits,
            "crosscheck": {"tool": "mpmath.siegelz", "dps": p.crosscheck_dps, "stride": p.crosscheck_stride, "compared": out.crosschecked},
            "python_flint": flint.__version__,
        }
        if p.fast_z:
            decided, fell_back = out.fast
            from mathloop.targets.critical_line_zeros import rs_rigorous

            method = "riemann-siegel float64 in turns, Arb-proved cosine, proved bound (rs_rigorous)"
            precision["fast_z"] = {"method": method, "gabcke_c0": "0.127",
                                   "min_t": rs_rigorous.RS_MIN_T, "prec_marker": FAST_PREC, "decided": decided, "fell_back_to_arb": fell_back}
        if p.digest_blocks:
            precision["evidence_digest"] = {"group_blocks": p.digest_blocks,
                                            "sha256_of": "canonical JSON of {blocks, gram} of each group, as the full artifact lists them"}
        return assemble(self.contract, checker=self.name, version=self.version, outcomes=outcomes, bounds=bounds,
                        state=state, artifacts=artifacts, precision=precision, timings={})

    @staticmethod
    def _outcome(checker: str, out: ChunkOutcome, closure: Closure | None, height: Fraction | None,
                 open_intervals: int, goal: Fraction | None) -> Outcome:
        p = out.prefix.last_gram_index
        if checker == "blocks":
            if out.reason:
                return Outcome(Verdict.REFUTED, Trust.RIGOROUS, (out.reason,), max(1, open_intervals))
            if open_intervals == 0:
                return Outcome(Verdict.PROVED, Trust.RIGOROUS)
            return Outcome(Verdict.UNKNOWN, Trust.RIGOROUS, (f"open: {open_intervals} Gram intervals from g_{p} to the cap",),
                           open_intervals)
        if checker == "turing":
            if closure:
                return Outcome(Verdict.PROVED, Trust.RIGOROUS)
            if out.reason:
                return Outcome(Verdict.UNKNOWN, Trust.RIGOROUS, ("not closed: the chunk was refuted, so it certifies nothing",))
            return Outcome(Verdict.UNKNOWN, Trust.RIGOROUS,
                           (f"not closed: needs Trudgian's K verified Rosser blocks after a Gram point above 168*pi (prefix ends at g_{p})",))
        value = (height if checker == "height" else Fraction(closure.closed_at + 1)) if closure and height is not None else None
        if value is None:
            return Outcome(Verdict.UNKNOWN, Trust.RIGOROUS, (f"{checker} not certified yet: Turing's bound has not closed",))
        if goal is None or value >= goal:
            return Outcome(Verdict.PROVED, Trust.RIGOROUS)
        return Outcome(Verdict.UNKNOWN, Trust.RIGOROUS, (f"certified {checker} {_dec(value)} below the goal {_dec(goal)}",))

    def rests_on_claimed_parent(self, evidence: Evidence) -> bool:
        """Return True when a single certificate file was checked against its own recorded parent."""
        return isinstance(evidence.state, Mapping) and bool(evidence.state.get("conditional_on_parent"))

    def export_certificates(self, chain: Sequence[tuple[str, Evidence]], out_dir: Path) -> Path:
        """Write each committed chunk's certificate and manifest.json; return the manifest path."""
        from mathloop.targets.critical_line_zeros.export import export_certificates

        return export_certificates([ev.to_json(with_timings=False) for _, ev in chain], out_dir, [h for h, _ in chain])

    def verify_certificate_chain(self, manifest: Path, read_json: Callable[[Path], Any]) -> ChainCheck:
        """Return the re-verification of an exported chain from the seed (see chain.py)."""
        from mathloop.targets.critical_line_zeros.chain import verify_chain

        return verify_chain(self, manifest, read_json)

    def state_summary(self, state: Mapping[str, Any]) -> str:
        """Return e.g. 'all zeros with 0 < t <= 10000.25 on the line (N = 10142); 7123 blocks to g_10150'."""
        head = f"{state.get('blocks_verified', 0)} blocks to g_{state.get('last_gram_index', -1)}"
        if state.get("height"):
            return f"all zeros with 0 < t <= {float(Fraction(state['height'])):.6f} on the line (N = {state['count']}); {head}"
        return f"height not certified yet; {head}"

    def graph_detail(self, obligation_id: str, state: Mapping[str, Any] | None) -> str | None:
        """Return the aggregated view of a family node (one range of discharged blocks + the frontier)."""
        state = state or {}
        o = self.contract.obligation(obligation_id)
        p = int(state.get("last_gram_index", -1))
        cap = self.settings.limits.max_gram_index
        if o.checker == "blocks":
            done = f"discharged: Gram intervals [g_-1, g_{p}) in {state.get('blocks_verified', 0)} blocks" if p > -1 else "discharged: none"
            bad = state.get("first_bad_gram")
            law = f"; Gram's law first fails at g_{bad}, {state.get('bad_gram_points', 0)} bad Gram points" if bad is not None else ""
            if p >= cap:
                return f"{done} (cap g_{cap} reached){law}"
            return f"{done}{law}; frontier: g_{p} ~ {gram_decimal(p, 10)}; open: {cap - p} intervals up to g_{cap} ~ {gram_decimal(cap, 10)}"
        if o.checker == "turing":
            t = state.get("turing")
            if t:
                return f"closed at g_{t['closed_at']}: window of {t['window_blocks']} Rosser blocks to g_{t['window_end']} (Trudgian K = {t['k_required']})"
            return f"open: prefix ends at g_{p}; the window must start above 168*pi ~ 527.79"
        if o.checker in ("height", "count") and state.get("height"):
            return f"height T = {float(Fraction(state['height'])):.9f}, N(T) = {state['count']}"
        return None


def _full_state(pre: Prefix, closure: Closure | None, height: Fraction | None) -> dict[str, Any]:
    """Return the evidence state of a verified prefix: its keys plus height, count and the Turing window."""
    state: dict[str, Any] = dict(pre.to_json())
    state["height"] = fraction_str(height) if height is not None else None
    state["count"] = closure.closed_at + 1 if closure else None
    state["turing"] = closure.to_json() if closure else None
    return state


def _compact(state: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return the prefix part of a stored state (height/count/turing are re-derived)."""
    return {k: v for k, v in state.items() if k not in ("height", "count", "turing", "conditional_on_parent")}


def _dec(q) -> str:
    """Return an exact rational as a decimal string rounded down to 6 places (integers as integers)."""
    q = Fraction(q)
    return str(q.numerator) if q.denominator == 1 else decimal_str(q, 6)
