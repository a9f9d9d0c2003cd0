"""Stores made with the first fast path still re-check: arithmetic 1 gives the evidence it gave, byte for byte."""

from __future__ import annotations

import hashlib
import json

import pytest

from mathloop.contract.load import load_contract
from mathloop.targets.critical_line_zeros.hardy_z import evaluate_specs_fast
from mathloop.targets.critical_line_zeros.settings import read_settings

# Computed with the fast path as shipped with contract version 2 (main before arithmetic 2): the
# sha256 of [[sign, mid, rad, prec], ...] at 40 Gram points and 10 rational points per height.
_GOLDEN = [
    (138068, ["100004.9950656234", "100006.9433183714", "100010.3527512276", "100013.4374658670", "100027.2373845748",
              "100030.3220453933", "100036.9783851985", "100041.3618035087", "100045.5828542182", "100049.1544981342"],
     "c79072e9fb6820d5f7ba8e2aa650c1777ad5302aaea1737312a21a3746e8f679"),
    (1747145, ["1000007.3395408376", "1000010.0935655696", "1000017.4376284238", "1000020.3227947416", "1000022.0276654202",
               "1000032.9126032686", "1000034.7486159065", "1000046.1581167043", "1000048.2564145187", "1000052.0595783710"],
     "d331ff309a31dc43814a2c508e9594001b8be79875280e5dc746a427a768ad92"),
    (21136124, ["10000005.4093884267", "10000007.1693572924", "10000015.0892169252", "10000017.7291700374", "10000019.9291309305",
                "10000022.2390898261", "10000023.5590663236", "10000033.5688876919", "10000034.4488719553", "10000036.6488325894"],
     "6332b3f22c539c29e00e0364ea3daccdc56eb3cce161c27fd8cf60f3e74d7ea7"),
]


def _sha(balls) -> str:
    return hashlib.sha256(json.dumps([[b.sign, b.mid, b.rad, b.prec] for b in balls]).encode()).hexdigest()


@pytest.mark.parametrize("m0, texts, sha", _GOLDEN)
def test_arithmetic_one_reproduces_the_first_fast_paths_evidence(m0, texts, sha):
    specs = [("g", str(m)) for m in range(m0, m0 + 40)] + [("q", t) for t in texts]
    balls, (decided, _) = evaluate_specs_fast(specs, (64, 128, 256), 1)
    assert decided == 50 and _sha(balls) == sha
    new, (decided2, _) = evaluate_specs_fast(specs, (64, 128, 256), 2)
    assert decided2 == 50 and _sha(new) != sha  # arithmetic 2 is other bits: hence its own contract version
    assert [b.sign for b in new] == [b.sign for b in balls]


def test_the_shipped_contract_asks_for_arithmetic_two_and_a_contract_without_the_key_gets_one(tmp_path):
    assert read_settings(load_contract("critical-line-zeros")).check.fast_z_arithmetic == 2
    src = load_contract("critical-line-zeros").path.read_text()
    old = tmp_path / "critical-line-zeros-v2.toml"
    old.write_text("\n".join(line for line in src.splitlines() if not line.startswith("fast_z_arithmetic")) + "\n")
    assert read_settings(load_contract(str(old))).check.fast_z_arithmetic == 1
