"""The spencer-discrepancy target: lower bounds on Spencer's discrepancy constant C10c from one square matrix."""
