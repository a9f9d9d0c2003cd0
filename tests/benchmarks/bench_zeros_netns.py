"""Benchmark: `mathloop run critical-line-zeros` on dask across network namespaces against the local pool.

Four namespaces on a private bridge (tests/integration/netns.py) stand in for four machines: a dask
scheduler, two workers (`dask worker --nthreads 1 --no-nanny`) and the session, all on TLS with a CA
made here (openssl), so the executor is authenticated (a --recheck share of answers re-checked in the
session, not all of them). The same command with `--workers 2` (check/executors.py) runs in the root
namespace. Each run starts from an empty store and stops at --time-limit; the rate is the certified
count over the session's time. Needs root, iproute2, openssl and the `dask` extra.

    flock /work/wt/bench.lock python tests/benchmarks/bench_zeros_netns.py --seconds 120
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.integration.netns import private_hosts, unavailable_reason  # noqa: E402

PORT = 8786
ENV = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False", "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
       "COLUMNS": "200", "NO_COLOR": "1"}


def certificates(d: Path, ips: list[str]) -> tuple[Path, Path, Path]:
    """Write a CA and one leaf certificate (server and client use, the hosts' IPs as SANs); return (ca, cert, key)."""
    def ssl(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=d, timeout=60)

    ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj", "/CN=bench-ca")
    ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=mathloop")
    (d / "ext.cnf").write_text("subjectAltName=" + ",".join(f"IP:{ip}" for ip in ips) + "\nextendedKeyUsage=serverAuth,clientAuth\n")
    ssl("x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "leaf.pem",
        "-days", "1", "-extfile", "ext.cnf")
    return d / "ca.pem", d / "leaf.pem", d / "leaf.key"


def run_session(argv_prefix: list[str], db: Path, seconds: float, extra: list[str]) -> dict:
    """Run `mathloop run` for `seconds`; return its count, commits and rate (count / seconds)."""
    t0 = time.perf_counter()
    r = subprocess.run([*argv_prefix, sys.executable, "-m", "mathloop", "run", "critical-line-zeros", "--db", str(db),
                        "--budget", "100000", "--time-limit", str(seconds), "--no-lean", "--no-progress", *extra],
                       cwd=ROOT, capture_output=True, text=True, env=ENV, timeout=seconds + 600)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(r.stdout[-3000:] + r.stderr[-3000:])
    st = subprocess.run([*argv_prefix, sys.executable, "-m", "mathloop", "status", "critical-line-zeros", "--db", str(db), "--json"],
                        cwd=ROOT, capture_output=True, text=True, env=ENV, timeout=600)
    head = json.loads(st.stdout)["head"]
    count = int(float(head["bounds"]["count"]))
    return {"count": count, "rate": count / seconds, "wall": wall, "height": float(head["bounds"]["height"]),
            "executor": next((ln for ln in r.stdout.splitlines() if "executor" in ln), "")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=120)
    args = ap.parse_args()
    why = unavailable_reason()
    if why:
        sys.exit(f"skipped: {why}")
    load = lambda: f"load {os.getloadavg()[0]:.2f}"  # noqa: E731
    with tempfile.TemporaryDirectory() as tmp:
        tmp_p = Path(tmp)
        local = run_session([], tmp_p / "local.db", args.seconds, ["--workers", "2"])
        print(f"[{load()}] local pool (2 workers): N = {local['count']:,} (height {local['height']:.0f}) in {args.seconds:.0f} s = "
              f"{local['rate']:,.0f} zeros/s; {local['executor'].strip()}", flush=True)
        with private_hosts(["scheduler", "w1", "w2", "session"]) as hosts:
            ca, cert, key = certificates(tmp_p, [h.address for h in hosts.values()])
            tls = ["--tls-ca-file", str(ca), "--tls-cert", str(cert), "--tls-key", str(key)]
            sched = hosts["scheduler"]
            address = f"tls://{sched.address}:{PORT}"
            logs = []
            procs = []
            for name, argv in [("scheduler", ["distributed.cli.dask_scheduler", "--host", sched.address, "--port", str(PORT), "--no-dashboard", *tls])] + \
                    [(w, ["distributed.cli.dask_worker", address, "--host", hosts[w].address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                          "--name", w, *tls]) for w in ("w1", "w2")]:
                log = open(tmp_p / f"{name}.log", "wb")
                logs.append(log)
                procs.append(subprocess.Popen(hosts[name].command([sys.executable, "-m", *argv]), cwd=ROOT, stdout=log,
                                              stderr=subprocess.STDOUT, env=ENV))
            time.sleep(8)  # scheduler and workers up (the session's `run` waits for its workers too)
            try:
                dask = run_session(hosts["session"].command([]), tmp_p / "dask.db", args.seconds,
                                   ["--executor", address, "--tls-ca", str(ca), "--tls-cert", str(cert), "--tls-key", str(key)])
            except RuntimeError as e:
                print((tmp_p / "scheduler.log").read_text(errors="replace")[-2000:], file=sys.stderr)
                raise e
            finally:
                for log in logs:
                    log.close()
        print(f"[{load()}] dask across namespaces (TLS, 2 workers): N = {dask['count']:,} (height {dask['height']:.0f}) in "
              f"{args.seconds:.0f} s = {dask['rate']:,.0f} zeros/s = {100 * dask['rate'] / local['rate']:.0f} % of the local pool; "
              f"{dask['executor'].strip()}", flush=True)


if __name__ == "__main__":
    main()
