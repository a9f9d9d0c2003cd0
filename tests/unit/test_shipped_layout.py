"""DESIGN's layout: the shipped contracts live in top-level `obligations/`, the Lean sources in top-level `lean/`,
both read as package data; each target names its own files; moving them changed no byte of any contract."""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import replace
from importlib import resources
from pathlib import Path

import pytest

from mathloop.contract import ContractError
from mathloop.lean.export import TOOLCHAIN_PIN
from mathloop.lean.support_modules import SHARED, library_modules
from mathloop.targets import catalogue, load_contract, registered, shipped_contracts, target_class
from mathloop.targets.api_doc import implemented
from mathloop.targets.base import LeanRendering

ROOT = Path(__file__).resolve().parents[2]

# (contract sha256 = its lineage in every store, sha256 of the file's bytes), measured on main e10e52d before
# the files moved from `mathloop/targets/<pkg>/contracts/` to `obligations/`. A changed value is a new lineage:
# stores made with the old one would no longer load it as the same contract.
PINNED = {
    # a new lineage on purpose (issue 35): the lineage `critical-line-zeros-compact` had (the same hash), its
    # file renamed; the lineage before it was b674dd7a… (file 4931dcb6…, tests/adversarial/data/critical-line-zeros-v2.toml)
    "critical-line-zeros": ("082ff773fb8779712052869e9c368313ca56b8b43092936f5022becc44668c5e",
                            "8e6f64eaf448eb228d39a9a6cb985b1bd8eed5c06ab8dc9cf3015714a187d9c7"),
    "erdos-minimum-overlap": ("06e0221c1669db215352b28ed949872b5a1ddf5723a29ad62e41bb6569dda632",
                              "745873c676d2efe4cd6be9265ea2f69bff14066217a15aaf4c1eae1004856892"),
    # a new lineage on purpose (issue 22): the hypothesis citation and class-maximum basis quote their sources;
    # the lineage before it was e7e9a609…, file 95632acb…
    "feng-przz": ("6012d79d2da3a75899a1ab2626c74515106d0117e005b6e338c76bf3987a75b4",
                  "c66d3c92b5021c1e0ff15bd1eeee808aea99121a9450737d6d048d8771e1deba"),
    "levinson": ("307057f66f549d4e78ca88c2b8042c2de3339f357b7f1bc50b13cafca6f543dc",
                 "bff6a608482550d78c5a3637230d8a4ed0368798d9ed98cb258b310fd4c82cde"),
    "levinson-conrey": ("2cce307b58df26013f99a8837f319ccb856877c8f76a782248252b358b89a79b",
                        "5cfba3fd32def124672e388e98f79a8f64b8ab4bf73630386826a5abe34b6518"),
    "pair-correlation": ("6f82ae82117c34295537bd9bc6e43d88c13f1b734f4e75cd2f05c606992487a3",
                         "abfed870829efe968f02776f49d1152adb60cacf3a088358e6551843dbbeb499"),
    "pair-correlation-rh": ("515d25e3329dfc465c507642816f5880a821c73cd1d191807571bfd61901add5",
                            "2d5fbc838b12b3198e06ca5e03d164d0aec2cb18381b7ecfd89be2f56fdf0d94"),
    "pair-correlation-rh-ceiling": ("3c08cb2ad4c14535e713779f243a72e745df81c4d9ea2d2d499037647d6fdc28",
                                    "1ba16aa51de1a21e7ce2f3b9ee076972d3b97d6d24f4434559bfecc212373ee9"),
    # issue 24: the wide ceiling lineage (knot form, A <= 120, the kink checker), a new file beside the first
    "pair-correlation-rh-ceiling-wide": ("839bc56d137feb130f159cf7b781d6ff8648c71396b8356f70213318e42e0e1c",
                                         "a17b22fa9361a0b2a09143d52a88cfb2caafed26799bdd2067d0af9aeabde231"),
    # issue 36: the wide primal lineage (the same checker, up to 1600 nodes, A <= 16), a new file beside the first
    "pair-correlation-rh-wide": ("bbf780bd9d2c08acf35059fde09605d69a88885fd6610dc68f17650a74aa5863",
                                 "48fd4514450f05b1e84bd53461d1de0a46181d7511eb1ed259fde8f20b4eeda6"),
    "shannon-capacity-c7": ("739d73807b2033e78ac56e7ff116003935d4107c7a62e2edb659c22bafdef934",
                            "059fb85f07049c3f6db7b625916a76ce42eb6b247174802e09cb10c8ead7f126"),
    # issue 32: four more table constants (10c, 3b, 3c, 4b), each a new lineage
    "furstenberg-sarkozy": ("8eb678fb1570311a93c836650b5237e8fa3a663d421ec45b5e66c68cae975e20",
                           "ed4c591340cd4b64e4871879d8e4fb520bdf52d4acf14eb3adfb9d77f469664a"),
    "spencer-discrepancy": ("14794e1aca955fbb5bfdc825cd2e012a852f22b70f9715a1f7c36b8727cc6007",
                           "7aa75775bba07ff1900605a5fadeeb8940995dba947d225a042f580998df81b9"),
    "sum-difference-3b": ("b9f295e3464eabf11662ed145177d0e4cecd84381b173732e64f2c505314ac0e",
                         "bb5fa61146fcc054cdb08897d297035cea7c0d79b1aabec4899a77e211f03cbb"),
    "sum-difference-3c": ("f39d923591d9ded48ec79997c84b4c13a3b5a519c3d0c769f48a0572bb09e3ab",
                         "6a1b123b2949f5ca32ee20579bba517c8af447bf6be5fb23c2655be55925e630"),
    # issue 32: powers up to 10 (the 134,753-set in C7^⊠10), a new file beside the first lineage
    "shannon-capacity-c7-wide": ("8ce4a708a60cfbfab58d69d36917cbe74273d456c6b4795a697d9a3f5149c602",
                                 "2ed6a9a6eb4e6bc2bc0c60c51801ddb87c3e5b03238a941464192cbb8e438642"),
    # issue 32: recursive constructions of Θ(C7) (gadgets checked, product theorems as hypotheses), a new lineage;
    # then the counts obligation checks stated counts instead of leaving them open (Tandon's C1–C4): a new lineage
    "shannon-capacity-c7-recursive": ("a4f0aa68d837d5e938764a4f255e3942d89445241c01a227e0ebb67ae45def1e",
                                      "6551f74b0a62200ba9f9e492855424d925282b9d13d86d11f481a73edef6857b"),
    "sidon-autocorrelation": ("9b2223c4185732abed9a2b4717dc54fb7cafa346462475477f43c278503b93fe",
                              "96acec5a28d9a79fe9df7f5921634a4fe11016b2d9607cd86d6945c1161cb596"),
    # issue 32: a second C1b lineage with the minimum improvement 1e-10 (a refinement of the record gains ~1e-7)
    "erdos-minimum-overlap-fine": ("4af0f010a79e304af62e453bb45d048cff4f818f1ea5cb46a05240e7d39512b8",
                                   "ac6239d9350aa5b6f0d79c82f46b8a01462c089ce704e131e0cb28d9ca82ec8c"),
    # issue 32: a second C1a lineage with the minimum improvement 1e-10 (the records now move by less than 1e-6)
    "sidon-autocorrelation-fine": ("1def9c5da33582c98854061e53abc760829fdecb6e9457b9b4b1e0b5ba71318f",
                                   "3000e9bb676365808a026630f440d1667c4822fe5aa88f71f8e113cb92c8d063"),
}


def _own() -> list:
    return [c for c in shipped_contracts() if c.distribution == "mathloop"]


@pytest.mark.parametrize("name", sorted(PINNED))
def test_a_moved_contract_keeps_its_hash_and_its_bytes(name):
    (shipped,) = [c for c in _own() if c.name == name]
    assert shipped.in_obligations and Path(str(shipped.resource)).parent.name in ("obligations",)
    assert (load_contract(name).sha256, hashlib.sha256(shipped.resource.read_bytes()).hexdigest()) == PINNED[name]


def test_every_own_contract_is_in_obligations_and_named_by_its_target():
    own = _own()
    assert {c.name for c in own} >= set(PINNED)
    for c in own:
        assert c.in_obligations, f"{c.name}: ships from a target package; move it to obligations/ and name it"
        assert c.resource.name in target_class(c.implementation).contract_files, c.name


def test_every_file_a_shipped_target_names_exists_in_obligations():
    files = {c.resource.name for c in _own()}
    for key, reg in registered().items():
        if reg.own:
            named = target_class(key).contract_files
            assert named and set(named) <= files, (key, named)


def test_a_contract_its_target_does_not_name_is_refused(monkeypatch):
    cls = target_class("levinson-conrey")
    monkeypatch.setattr(cls, "contract_files", ("levinson-conrey.toml",))
    assert load_contract("levinson-conrey").name == "levinson-conrey"
    with pytest.raises(ContractError, match=r"does not name the contract file 'levinson.toml'.*contract_files"):
        load_contract("levinson")


def test_obligations_holds_only_mathloops_own_targets(monkeypatch):
    real = catalogue._obligations()
    levinson = next(c for c in real if c.name == "levinson")
    stray = replace(levinson, name="stray")
    monkeypatch.setattr(catalogue, "_obligations", lambda: (*real, stray))
    monkeypatch.setattr(type(registered()["levinson-conrey"]), "own", property(lambda self: False))
    with pytest.raises(ContractError, match="not one of mathloop's own targets"):
        load_contract("stray")


def test_an_unknown_target_says_when_the_obligations_package_is_missing(monkeypatch):
    monkeypatch.setattr(catalogue, "_obligations", lambda: ())
    with pytest.raises(ContractError, match="mathloop.obligations.*reinstall it"):
        load_contract("levinson-conrey")


def test_every_library_module_is_shared_or_named_by_a_shipped_target():
    lib = library_modules()
    named = {m for key, reg in registered().items() if reg.own for m in target_class(key).lean_modules}
    assert named <= set(lib) and set(lib) == named | set(SHARED)
    rendering = [key for key, reg in registered().items() if reg.own and implemented(target_class(key), LeanRendering)]
    assert {"levinson-conrey", "sidon-autocorrelation", "shannon-capacity-c7", "feng-przz"} <= set(rendering)
    for key in rendering:
        support = target_class(key).lean_support()
        assert support and all(support[m] == lib[m] for m in support), key


def test_the_lean_sources_are_package_data_with_a_lake_project_pinned_to_the_bundled_lean():
    src = resources.files("mathloop.lean_sources")
    assert (src / "prelude" / "Init.lean").read_text(encoding="utf-8").startswith(
        (ROOT / "lean" / "prelude" / "Init.lean").read_text(encoding="utf-8")[:200])
    assert (src / "lean-toolchain").read_text(encoding="utf-8").strip() == TOOLCHAIN_PIN
    lake = tomllib.loads((src / "lakefile.toml").read_text(encoding="utf-8"))
    assert [lib["name"] for lib in lake["lean_lib"]] == ["Mathloop"] and lake["defaultTargets"] == ["Mathloop"]
    on_disk = {p.relative_to(ROOT / "lean").with_suffix("").as_posix().replace("/", ".")
               for p in (ROOT / "lean" / "Mathloop").rglob("*.lean")}
    assert on_disk == set(library_modules())


def test_no_target_package_keeps_contracts_or_lean_sources_of_its_own():
    # a constant's published records (targets/records.py, data/records*.toml): package data, not a contract
    left = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "mathloop").rglob("*")
                  if p.suffix in (".toml", ".lean") and not (p.parent.name == "data" and p.name.startswith("records")))
    assert left == [], f"move these to obligations/ or lean/ (git mv) and name them in the target: {left}"
