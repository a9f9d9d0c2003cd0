"""The check runners, where older callers import them from; they live in mathloop/check/runner.py."""

from mathloop.check.outcome import CheckOutcome
from mathloop.check.runner import (CallOutcome, CheckRunner, InProcessRunner, ProcessRunner, check_payload,
                                   cut_at_time_limit)

__all__ = ["CallOutcome", "CheckOutcome", "CheckRunner", "InProcessRunner", "ProcessRunner", "check_payload",
           "cut_at_time_limit"]
