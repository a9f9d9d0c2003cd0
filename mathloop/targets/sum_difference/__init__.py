"""The sum-difference targets (constants 3b and 3c): lower bounds from the entropy of one finite law on Z²."""
