"""`mathloop records`: the leaderboard from the shipped records and a real store, its terminal, JSON, web and docs
forms, and the rule for "beats the published best"."""

from __future__ import annotations

import json
import re
from fractions import Fraction as F
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from mathloop.propose.base import Proposal
from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from mathloop.targets import build_target, load_contract, target_class
from mathloop.targets.record_check import recertify
from mathloop.view import leaderboard as lb
from mathloop.web.app import create_app
from tests.integration.cli import invoke
from tests.unit.test_loop import Scripted

ROOT = Path(__file__).resolve().parents[2]


def _store(tmp_path, payloads, proposer="local"):
    contract = load_contract("spencer-discrepancy")
    repo = Repository(make_engine(str(tmp_path / "s.db")))
    repo.ensure_contract(contract)
    Session(contract, repo, InProcessRunner()).run(
        Scripted([Proposal(p, proposer) for p in payloads]), SessionLimits(len(payloads)))
    return repo


def _hamming():
    sd = build_target(load_contract("spencer-discrepancy"))
    return sd.read_candidate_file(ROOT / "mathloop/targets/spencer_discrepancy/data/hamming-type-8x8-1.767767.txt")


def test_every_constant_with_records_has_a_row_and_its_best_recertifies_by_its_command():
    rows = {r.table_id: r for r in lb.leaderboard()}
    assert {"9a", "10c", "3b", "3c", "4b"} <= set(rows)
    c7 = rows["9a"]
    assert (c7.published_who, c7.published_value) == ("Tandon", "3.25883262")
    # the best certified value is a recursive construction: shown conditional on the theorems it rests on
    given = ("bpz-combining", "family-conversion", "gao-product", "heterogeneous-product")
    assert c7.best.kind == "published" and c7.best.shown == "3.258832620353" and not c7.beats
    assert c7.best.conditional_on == given
    assert c7.command == ("mathloop check shannon-capacity-c7-recursive --candidate "
                          "mathloop/targets/shannon_capacity_c7/data/tandon-2026-3.258832-recursive.json")
    assert "conditional on bpz-combining, family-conversion" in lb.readme_table([c7])
    assert c7.to_json()["mathloop_best"]["conditional_on"] == list(given)
    assert [w for w, _ in c7.not_obtained if w in ("Gao", "Tandon")] == []
    ten = rows["10c"]
    file = ten.command.split("--candidate ")[1]
    assert (ROOT / file).is_file()
    assert recertify(target_class("spencer-discrepancy"), Path(file).name).shown == ten.best.shown


def test_beats_needs_more_than_one_unit_of_the_last_printed_place():
    records = target_class("spencer-discrepancy").constant_records()  # best 1.767766953 (9 places)
    assert not lb.beats(records, F("1.767766954"))  # one unit above the printed digits: could be a rounding
    assert lb.beats(records, F("1.7677669541"))
    assert not lb.beats(records, F("1.7"))


def test_a_store_head_joins_the_board_with_who_proposed_it_and_its_lean_status(tmp_path):
    repo = _store(tmp_path, [{"matrix": [["1"]]}, _hamming()], proposer="openai:qwen-7b")
    entries = lb._stored(repo, ["spencer-discrepancy"], "C10c", lb.Direction.LOWER)
    assert [(e.kind, e.by, e.lean, e.shown) for e in entries] == [("model", "model qwen-7b", "pending",
                                                                   "1.767766952966")]
    ten = next(r for r in lb.leaderboard(repo) if r.table_id == "10c")
    # the head ties the stored published construction: the shipped one is shown, and nothing beats the table
    assert ten.best.kind == "published" and not ten.beats


def test_a_head_better_than_the_published_best_is_shown_as_beating_it_with_its_command(tmp_path, monkeypatch):
    repo = _store(tmp_path, [{"matrix": [["1"]]}, _hamming()])
    real = target_class("spencer-discrepancy").constant_records()
    weaker = real.model_copy(update={"published": [real.published[0].model_copy(update={"value": "1.70000"})]})
    monkeypatch.setattr(target_class("spencer-discrepancy"), "constant_records", classmethod(lambda cls: weaker))
    ten = next(r for r in lb.leaderboard(repo) if r.table_id == "10c")
    assert ten.beats and ten.best.kind == "session" and ten.best.by == "mathloop local session"
    out = lb.write_certificate(repo, ten, tmp_path / "certs").to_json()
    assert out["beats_published"] is True
    file = out["command"].split("--candidate ")[1]
    assert out["command"].startswith("mathloop check spencer-discrepancy --candidate ") and Path(file).is_file()
    sd = build_target(load_contract("spencer-discrepancy"))
    assert sd.check(None, sd.parse(sd.read_candidate_file(Path(file)))).bounds["C10c"] == F(883883476483, 500000000000)


def test_the_cli_prints_a_table_that_fits_80_columns_and_json_with_every_row(monkeypatch):
    from typer.testing import CliRunner

    from mathloop.cli.app import app
    from mathloop.cli.common import console

    # the console takes its width from COLUMNS when first imported (whichever test imports it first): set it as a
    # fresh process at 80 columns would
    monkeypatch.setattr(console, "width", 80)
    res = CliRunner().invoke(app, ["records"], catch_exceptions=False, env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert res.exit_code == 0, res.output
    assert max(len(line) for line in res.stdout.splitlines()) <= 80
    assert "Θ(C₇)" in res.stdout and "Tandon" in res.stdout
    data = json.loads(invoke("records", "--json").stdout)
    assert {c["table_id"] for c in data["constants"]} >= {"9a", "10c", "3b", "3c", "4b"}


def test_a_missing_store_is_a_one_line_error_with_exit_2(tmp_path):
    res = invoke("records", "--db", str(tmp_path / "nope.db"))
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert len([line for line in res.output.splitlines() if line.strip()]) == 1


def test_the_web_view_serves_the_board_escaped_and_links_it_from_every_page(tmp_path):
    repo = _store(tmp_path, [{"matrix": [["1"]]}])
    ro = Repository(make_engine(str(tmp_path / "s.db"), create=False, readonly=True))
    client = TestClient(create_app(ro, "s.db"))
    page = client.get("/records")
    assert page.status_code == 200 and 'id="records"' in page.text and "Tandon" in page.text
    assert '<a href="/records">records</a>' in client.get("/").text
    assert "<script" not in page.text.split("</head>")[1]
    assert client.post("/records").status_code == 405
    repo.engine.dispose()


@pytest.mark.slow
def test_the_best_record_of_9a_recertifies_by_its_command():
    c7 = {r.table_id: r for r in lb.leaderboard()}["9a"]
    file = c7.command.split("--candidate ")[1]
    assert recertify(target_class("shannon-capacity-c7"), Path(file).name).shown == c7.best.shown  # ~10 s: counts


def test_the_docs_page_is_what_the_generator_prints():
    text = (ROOT / "docs" / "records.md").read_text(encoding="utf-8")
    assert text == lb.page_markdown(lb.leaderboard()), "regenerate: mathloop records --markdown > docs/records.md"


def test_the_readme_table_is_what_the_generator_prints():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- records:begin -->\n(.*?)<!-- records:end -->", text, re.S)
    assert block is not None and block.group(1) == lb.readme_table(lb.leaderboard()), \
        "regenerate the README block between the records markers from mathloop.view.leaderboard.readme_table"
