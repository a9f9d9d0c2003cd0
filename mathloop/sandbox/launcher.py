"""Inside the sandbox, before the program: set the limits, leave root, forbid new privileges, exec the program.

mathloop is not in the sandbox: this file's text is passed to the sandbox's interpreter with `-c`, so it imports only
the standard library and reads its settings from argv[1] (JSON: rlimits, uid, argv, env). Limits are set here, after
bubblewrap made the namespaces, so that RLIMIT_NPROC counts only the sandbox's own processes.
"""

import json
import os
import resource
import sys

PR_SET_NO_NEW_PRIVS = 38


def main() -> None:
    cfg = json.loads(sys.argv[1])
    for name, (soft, hard) in cfg["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (soft, hard))
    uid = cfg.get("uid")
    if uid is not None:  # started as root: become a user of our own, so that RLIMIT_NPROC binds (root is exempt)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        if os.getuid() != uid or os.geteuid() != uid:
            raise SystemExit("sandbox launcher: could not leave root")
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SystemExit(f"sandbox launcher: prctl(NO_NEW_PRIVS) failed (errno {ctypes.get_errno()})")
    os.execve(cfg["argv"][0], cfg["argv"], cfg["env"])


if __name__ == "__main__":
    main()
