"""A pause of Python's cyclic garbage collector around the zeros target's heavy loops."""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def gc_paused():
    """Pause Python's cyclic garbage collector for one check: a chunk of 10^4-10^5 blocks allocates
    millions of small acyclic objects, and the collector's full passes over them took 30-50 % of a
    check's CPU (measured at t ~ 10^6 and 10^7). Reference counting still frees everything."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
