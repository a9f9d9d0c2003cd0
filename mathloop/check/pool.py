"""The one pool of checker children lives in check/executors.py; this name stays for callers that import it here."""

from mathloop.check.executors import LocalPool

__all__ = ["LocalPool"]
