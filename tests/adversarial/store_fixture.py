"""A small real store with everything a user or trainer reads: commits, refused candidates, two sessions."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text

from mathloop.search.loop import Session, SessionLimits
from mathloop.check.runner import InProcessRunner
from tests.unit.test_loop import Scripted


@dataclass
class Store:
    contract: object
    repo: object
    commits: list
    sealed_session: int
    open_session: int

    def sql(self, statement: str, **params) -> None:
        """Run hand edits (`; `-separated), as an attacker with write access to the database would."""
        with self.repo.engine.begin() as conn:
            for part in statement.split("; "):
                conn.execute(text(part), params)

    def scalar(self, statement: str, **params):
        with self.repo.engine.begin() as conn:
            return conn.execute(text(statement), params).scalar()


def build(contract, repo) -> Store:
    """Return a store: session 1 (sealed) commits twice and refuses three; session 2 (killed, unsealed) refuses one."""
    repo.ensure_contract(contract)
    s1 = repo.start_session(contract.sha256, "scripted", 7, {"budget": 10})
    Session(contract, repo, InProcessRunner(), s1).run(
        Scripted([{"x": "1/2"}, {"x": "1/4"}, {"x": "banana"}, {"x": "7/10"}, {"x": "7/10", "pad": 1}, {"x": "2"}]),
        SessionLimits(10))
    repo.end_session(s1, "budget spent")
    s2 = repo.start_session(contract.sha256, "scripted", 8, {"budget": 1})
    Session(contract, repo, InProcessRunner(), s2).run(Scripted([{"x": "3/10"}]), SessionLimits(1))
    return Store(contract, repo, repo.commits(contract.sha256), s1, s2)
