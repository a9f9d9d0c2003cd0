"""Profile one critical-line-zeros chunk by stage: per Gram interval, the proposer, parse, check, outcome bytes.

    python tests/benchmarks/profile_zeros.py [INTERVALS] [GRAM_INDEX] [-p]   # -p: cProfile of propose and check
"""
import time, sys, cProfile, pstats, os
os.environ["MATHLOOP_WORKERS"]="1"
from fractions import Fraction
from mathloop.targets import load_contract, build_target
from mathloop.targets.critical_line_zeros.certificate import Prefix
from mathloop.targets.critical_line_zeros.hardy_z import definite
from mathloop.targets.critical_line_zeros.gram import expected_sign
from mathloop.domain import canonical_dumps, sha256_hex
from mathloop.check.outcome import outcome_to_bytes, outcome_from_bytes, CheckOutcome
n = int(sys.argv[1]) if len(sys.argv) > 1 else 512
m0 = int(float(sys.argv[2])) if len(sys.argv) > 2 else 1747000
c = load_contract("critical-line-zeros")
import dataclasses
t = build_target(c)
t.settings = dataclasses.replace(t.settings, limits=dataclasses.replace(t.settings.limits, max_blocks_per_chunk=100000))
while definite("g", m0, (64,128)).sign != expected_sign(m0): m0 += 1
prop = t.local_proposer(0); prop.workers = 1; prop.chunk = n
prop.chunks_from(m0, 1)  # warm
t0=time.perf_counter(); ch = prop.chunks_from(m0, 1)[0]; tp=time.perf_counter()-t0
state = dict(Prefix(m0, 100000, tuple(range(m0-8, m0+1)), 0, 126, 5).to_json(), height=None, count=None, turing=None)
cand = t.parse(ch)
t.check(state, cand)
t0=time.perf_counter(); cand = t.parse(ch); tparse=time.perf_counter()-t0
t0=time.perf_counter(); ev = t.check(state, cand); tc=time.perf_counter()-t0
t0=time.perf_counter(); b = outcome_to_bytes(CheckOutcome(evidence=ev)); tser=time.perf_counter()-t0
t0=time.perf_counter(); o = outcome_from_bytes(b, "x"); tdes=time.perf_counter()-t0
nz = ch["blocks"][-1]["end"] - ch["start"]
npts = sum(len(b["points"]) for b in ch["blocks"])
print(f"chunk {n}: intervals {nz}, blocks {len(ch['blocks'])}, points {npts}; per interval us: propose {tp/nz*1e6:.1f}, parse {tparse/nz*1e6:.1f}, check {tc/nz*1e6:.1f}, outcome->bytes {tser/nz*1e6:.1f}, bytes->outcome {tdes/nz*1e6:.1f}; outcome bytes {len(b)} ({len(b)/nz:.0f}/interval); payload bytes {len(canonical_dumps(ch))}")
if "-p" in sys.argv:
    pr = cProfile.Profile(); pr.enable(); prop.chunks_from(m0, 1); pr.disable()
    pstats.Stats(pr).sort_stats("cumtime").print_stats(25)
    pr = cProfile.Profile(); pr.enable(); t.check(state, t.parse(ch)); pr.disable()
    pstats.Stats(pr).sort_stats("cumtime").print_stats(30)
