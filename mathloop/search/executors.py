"""The executors, where older callers import them from; they live in mathloop/check/ (executors, pool, dask)."""

from mathloop.check.executors import TLS, Executor, Pending, executor_for
from mathloop.check.dask import DaskCheck, DaskExecutor
from mathloop.check.executors import LocalPool

__all__ = ["TLS", "DaskCheck", "DaskExecutor", "Executor", "LocalPool", "Pending", "executor_for"]
