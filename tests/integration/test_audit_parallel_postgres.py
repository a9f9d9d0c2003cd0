"""On a real PostgreSQL server, `audit` re-checking on the pool reports what the serial audit reports."""

import pytest

from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner
from mathloop.store.engine import make_engine
from mathloop.store.repository import Repository
from tests.adversarial.store_fixture import Store
from tests.integration.postgres import private_cluster, unavailable_reason
from tests.unit.test_audit_parallel import STEPS, ChangedChecker, both
from tests.unit.test_loop import Scripted

pytestmark = [pytest.mark.postgres_live, pytest.mark.skipif(unavailable_reason() is not None,
                                                            reason=unavailable_reason() or "")]


@pytest.mark.slow  # a private cluster and four audits of 18 commits on it: ~11 s
def test_pooled_audit_on_postgres_gives_the_serial_report_clean_and_tampered(toy_contract):
    with private_cluster() as url:
        repo = Repository(make_engine(url))
        Session(toy_contract, repo, InProcessRunner()).run(Scripted([{"x": x} for x in STEPS]), SessionLimits(40))
        store = Store(toy_contract, repo, repo.commits(toy_contract.sha256), 0, 0)
        serial, pooled = both(store)
        assert serial.findings == [] and pooled == serial and serial.commits == len(STEPS) + 1
        store.sql("UPDATE commits SET created_at = '2020-01-01' WHERE seq = 12")
        serial, pooled = both(store, ChangedChecker)
        assert [f.commit for f in serial.findings] == [store.commits[i].hash for i in (6, 9, 12)]
        assert pooled == serial
        repo.engine.dispose()
