"""A dask worker preload that keeps an honest worker paused until the file $MATHLOOP_UNPAUSE_FILE exists.

A paused worker stays in the cluster but gets no tasks, so a test decides which worker answers first (dask's own
placement would). Start the worker with `--memory-limit 0`: the memory monitor would unpause it otherwise.
"""

from __future__ import annotations

import os


def dask_setup(worker) -> None:
    from distributed.core import Status
    from tornado.ioloop import PeriodicCallback

    marker = os.environ["MATHLOOP_UNPAUSE_FILE"]

    def tick() -> None:
        if worker.status not in (Status.running, Status.paused):
            return
        want = Status.running if os.path.exists(marker) else Status.paused
        if worker.status != want:
            worker.status = want

    pc = PeriodicCallback(tick, 100)
    worker.periodic_callbacks["mathloop-pause"] = pc
    pc.start()
