"""Run the `mathloop` CLI with the toy target registered, in this process and in its forkserver workers.

Usage: python tests/support/toy_cli.py ARGS... (cwd = the checkout). Forkserver workers import this
file as their __main__, so the registration reaches them too. With $MATHLOOP_RACE_LOG set, every
commit that lost a race (HeadMoved) is appended there as "payload_sha parent_hash".
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mathloop import targets  # noqa: E402

targets.REGISTRY["toy"] = "tests.support.toy_target:ToyTarget"


def _log_races(path: str) -> None:
    from mathloop.propose.base import payload_sha
    from mathloop.store.repository import HeadMoved, Repository

    original = Repository.commit

    def commit(self, **kw):
        try:
            return original(self, **kw)
        except HeadMoved:
            with open(path, "a", encoding="utf-8") as f:
                f.write(f"{payload_sha(kw['payload'])} {kw['parent'].hash if kw['parent'] else '-'}\n")
            raise

    Repository.commit = commit


if __name__ == "__main__":
    if os.environ.get("MATHLOOP_RACE_LOG"):
        _log_races(os.environ["MATHLOOP_RACE_LOG"])
    from mathloop.cli.app import main

    sys.argv[0] = "mathloop"
    main()
