"""The one Checker: runner, the one pool of checker children, executors (local pool, dask) and the gate.

Returns (outcome, decision) pairs with `gate.decide` as the only gate, bracket limits included. Nothing
that comes back from a checker child or a worker is unpickled (check/outcome.py). Imports point down only:
contract, domain, order, targets.
"""
