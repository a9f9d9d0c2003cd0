"""A checker child: `python -m mathloop.check.child IN OUT LIFELINE`, a clean interpreter speaking frames over pipes.

Started by runner.ProcessRunner, never forked from the session: it imports neither the user's `__main__`
(a training script that imports torch at top level, one without an `if __name__ == "__main__":` guard, or
one read from standard input) nor anything the session had loaded. It reads pickled jobs from the session
and answers every one with canonical JSON bytes (check/outcome.py), so the session unpickles nothing it
sends. It leads its own process group; its reaper kills the group when the session's lifeline breaks.
"""

from __future__ import annotations

import os
from typing import Any
import pickle
import sys
import traceback


def _setup(hello: dict[str, Any]) -> None:
    """Take the session's import path and the targets it registered by hand (tests, embedding programs)."""
    sys.path[:] = [p for p in hello.get("sys_path", []) if isinstance(p, str)] or sys.path
    try:
        from mathloop.targets import registry

        registry.registered()
        for key, (spec, dist) in hello.get("registry", {}).items():
            registry.REGISTRY.setdefault(key, registry.Registered(key, spec, dist))
    except Exception:  # a registry that cannot load here fails each check as an error, with the reason
        pass


def _answer(job: tuple[Any, ...]) -> bytes:
    from mathloop.check.outcome import outcome_to_bytes
    from mathloop.check.runner import check_payload, prepare
    from mathloop.domain import canonical_dumps

    kind = job[0]
    if kind == "check":
        return outcome_to_bytes(check_payload(*job[1:]))
    if kind == "prepare":
        why = prepare(job[1])
        return canonical_dumps({"ready": why is None, "error": why})
    if kind == "call":
        fn, args = job[1], job[2]
        try:
            value = fn(*args)
        except Exception as e:  # returned as a value: the session decides what an exception means
            return canonical_dumps({"raised": {"type": type(e).__name__, "message": str(e)[:2000]}})
        return canonical_dumps({"value": value})
    return canonical_dumps({"error": f"unknown job {str(kind)[:40]!r}"})


def main(argv: list[str]) -> int:
    fd_in, fd_out, fd_life = (int(a) for a in argv[:3])
    import multiprocessing.connection as mpc

    from mathloop.children import die_with_parent, start_reaper
    from mathloop.check.frames import FrameClosed, read_frame, write_frame
    from mathloop.domain import canonical_dumps

    start_reaper(mpc.Connection(fd_life, writable=False))  # we lead our group (start_new_session)
    die_with_parent()
    try:
        _setup(pickle.loads(read_frame(fd_in, 1 << 30)))
        import mathloop.check.runner  # noqa: F401  (the imports every check needs, before "ready")
        write_frame(fd_out, canonical_dumps({"ready": True}))
        while True:
            job = pickle.loads(read_frame(fd_in, 1 << 32))
            if job is None:
                return 0
            try:
                reply = _answer(job)
            except Exception as e:  # e.g. evidence that cannot be serialised: an error outcome, never silence
                tb = traceback.format_exception_only(type(e), e)[-1].strip()
                reply = canonical_dumps({"error": f"checker child failed: {tb[:500]}", "interrupted": False})
            write_frame(fd_out, reply)
    except FrameClosed:
        return 0
    finally:
        os.close(fd_out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
