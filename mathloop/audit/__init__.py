"""`mathloop audit`'s engine: re-verify a lineage from its stored rows (report: the whole audit; lineage: anchor,
sessions, Lean statuses, failed re-checks; memory: the memory chains and the contract row; recheck: each commit's
check and gate re-run, on an executor when given)."""
