"""Θ(C7) from recursive product constructions: finite gadgets checked exactly, product theorems taken as given."""
