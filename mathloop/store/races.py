"""Retrying a store write that lost a race to another writer (tenacity), and opening a store being created."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_incrementing


def until_not_raced(attempts: int) -> Retrying:
    """Return the retrying of a write that a unique key refused: at most `attempts` tries, no pause, last error re-raised.

    No pause, because the next try reads the tip the other writer left; a refusal of another kind is not retried.
    """
    return Retrying(stop=stop_after_attempt(attempts), retry=retry_if_exception_type(IntegrityError), reraise=True)


def while_created_elsewhere(attempts: int, step_s: float = 0.05) -> Retrying:
    """Return the retrying of creating a store's schema: `attempts` tries, pauses step, 2 step, ...; last error re-raised.

    Any error is retried: another process creating the same fresh store fails ours in many ways.
    """
    return Retrying(stop=stop_after_attempt(attempts), wait=wait_incrementing(start=step_s, increment=step_s),
                    retry=retry_if_exception_type(Exception), reraise=True)
