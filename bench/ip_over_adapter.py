#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# bench/run ip_over_adapter: TCP throughput and UDP round-trip time between two network
# namespaces over the simulated fabric (`nicsim tun`, 2 nodes, func backend; once without
# faults, once with fabric.loss=0.01) against a veth pair between two namespaces this bench
# creates itself, same run. Root only (namespaces, TUN, veth).
"""Writes bench/results/ip_over_adapter.json.

For each path (veth, nicsim, nicsim with 1 % fabric loss), RUNS times (veth and loopback
2 * RUNS: a round of each while each nicsim tun is up, interleaved with its runs): a TCP transfer of
TCP_BYTES from one namespace to the other (timed from the first send to the receiver's
"all bytes here"; then the receiver's SHA-256 of what it got must equal the sender's), and
ECHOES UDP echoes of ECHO_BYTES (each reply compared with its request; an echo with no reply
within ECHO_TIMEOUT_S counts as lost and is left out of the RTT figures). TCP MB/s is the
median of the runs; the RTT median and p99 are over all echoes of all runs. Loopback
(127.0.0.1 inside one namespace: the host stack with no link at all) is measured too, for
reference.

No targets: the simulated link is slower by design (a TUN device takes every packet out to
user space, the simulated adapters carry it through FIFOs or RDMA at simulated time paced
by the wall clock, and it is written into the other TUN device), so the ratios nicsim/veth
show how much of the end-to-end cost is the link and how much the host stack both paths
share."""

import hashlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nicsim_bench

NAME = "ip_over_adapter"
DESCRIPTION = ("TCP MB/s (64 MiB, SHA-256 checked) and UDP echo RTT between 2 namespaces: "
               "nicsim tun (func, 2 nodes; and fabric.loss=0.01) vs a veth pair, same run")
NICSIM = nicsim_bench.NICSIM
PYTHON = "/usr/bin/python3"
RUNS = 3
TCP_BYTES = 64 << 20
ECHOES = 1000
ECHO_BYTES = 64
ECHO_TIMEOUT_S = 0.1
TCP_PORT = 5201
UDP_PORT = 5202

# Both ends of every measurement: `server` (TCP receiver, UDP echo) and the clients.
WORKER = r'''
import hashlib, json, socket, sys, time
mode, addr = sys.argv[1], sys.argv[2]
BLOCK = bytes((i * 7 + (i >> 10)) & 0xFF for i in range(1 << 20))
if mode == "tcp_server":
    n = int(sys.argv[3])
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, int(sys.argv[4]))); s.listen(1); s.settimeout(60)
    print("listening", flush=True)
    c, _ = s.accept(); c.settimeout(60)
    buf = bytearray(n); view = memoryview(buf); got = 0
    while got < n:
        k = c.recv_into(view[got:], min(n - got, 1 << 20))
        if k == 0: break
        got += k
    c.sendall(b"done")  # the sender's clock stops here; the digest is not timed
    c.sendall(hashlib.sha256(view[:got]).digest() + got.to_bytes(8, "big"))
    c.close()
elif mode == "tcp_client":
    n = int(sys.argv[3])
    data = BLOCK * (n // len(BLOCK)) + BLOCK[:n % len(BLOCK)]
    want = hashlib.sha256(data).digest()
    c = socket.create_connection((addr, int(sys.argv[4])), timeout=60)
    t0 = time.perf_counter(); c.sendall(data)
    reply, t1 = b"", None
    while len(reply) < 4 + 40:
        b = c.recv(64)
        if not b: break
        reply += b
        if t1 is None and len(reply) >= 4: t1 = time.perf_counter()
    ok = reply[:4] == b"done" and reply[4:36] == want and int.from_bytes(reply[36:44], "big") == n
    print(json.dumps({"seconds": (t1 or time.perf_counter()) - t0, "ok": ok}))
elif mode == "udp_server":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind((addr, int(sys.argv[3])))
    print("listening", flush=True)
    while True:
        b, a = s.recvfrom(65535); s.sendto(b, a)
elif mode == "udp_client":
    count, size, timeout = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.connect((addr, int(sys.argv[3])))
    rtts, lost, bad = [], 0, 0
    for i in range(count):
        msg = i.to_bytes(4, "big") + bytes((i + j) & 0xFF for j in range(size - 4))
        t0 = time.perf_counter(); s.send(msg); deadline = t0 + timeout
        while True:  # a late reply to an earlier echo is skipped, not taken for this one
            left = deadline - time.perf_counter()
            if left <= 0: lost += 1; break
            s.settimeout(left)
            try: b = s.recv(65535)
            except socket.timeout: lost += 1; break
            if b[:4] != msg[:4]: continue
            rtts.append(time.perf_counter() - t0); bad += b != msg; break
    print(json.dumps({"rtts": rtts, "lost": lost, "bad": bad}))
'''


def run(cmd, check=True, **kw):
    result = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed (exit {result.returncode}): "
                           f"{result.stderr.strip()}")
    return result


class Bench:
    """Everything the bench starts or creates, so that `cleanup` can undo it."""

    def __init__(self, tmp):
        self.tmp = Path(tmp)
        self.worker = self.tmp / "worker.py"
        self.worker.write_text(WORKER)
        self.procs = []       # every process started, ended by its own pid in cleanup
        self.namespaces = []  # every namespace this bench asked for (its own or nicsim tun's)
        self.links = []       # veth created in the root namespace

    def start(self, ns, *args):
        proc = subprocess.Popen(["ip", "netns", "exec", ns, PYTHON, str(self.worker), *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.procs.append(proc)
        return proc

    def stop(self, proc, sig=signal.SIGTERM, wait_s=10):
        if proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(timeout=wait_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def client(self, ns, *args, timeout=120):
        proc = self.start(ns, *args)
        out, err = proc.communicate(timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"{args[0]} in {ns} failed (exit {proc.returncode}): {err}")
        return json.loads(out.strip().splitlines()[-1])

    def server(self, ns, *args):
        proc = self.start(ns, *args)
        line = proc.stdout.readline()
        if line.strip() != "listening":
            raise RuntimeError(f"{args[0]} in {ns} did not start: {line}{proc.stderr.read()}")
        return proc

    def measure(self, src, dst, addr):
        """One round of both measurements from namespace src to addr in namespace dst."""
        udp = self.server(dst, "udp_server", addr, str(UDP_PORT))
        try:
            echo = self.client(src, "udp_client", addr, str(UDP_PORT), str(ECHOES),
                               str(ECHO_BYTES), str(ECHO_TIMEOUT_S))
        finally:
            self.stop(udp)
        tcp = self.server(dst, "tcp_server", addr, str(TCP_BYTES), str(TCP_PORT))
        try:
            transfer = self.client(src, "tcp_client", addr, str(TCP_BYTES), str(TCP_PORT))
        finally:
            self.stop(tcp)
        if not transfer["ok"]:
            raise RuntimeError(f"TCP transfer to {addr} in {dst}: digest or length differs")
        if echo["bad"]:
            raise RuntimeError(f"UDP echo to {addr} in {dst}: {echo['bad']} replies differ")
        return transfer["seconds"], echo

    def make_veth(self, prefix):
        a, b = f"{prefix}-a", f"{prefix}-b"
        for ns in (a, b):
            self.namespaces.append(ns)
            run(["ip", "netns", "add", ns])
        la, lb = f"{prefix}a", f"{prefix}b"  # interface names: at most 15 characters
        self.links.append(la)
        run(["ip", "link", "add", la, "type", "veth", "peer", "name", lb])
        run(["ip", "link", "set", la, "netns", a])
        run(["ip", "link", "set", lb, "netns", b])
        for ns, link, addr in ((a, la, "192.168.200.1/24"), (b, lb, "192.168.200.2/24")):
            run(["ip", "-n", ns, "addr", "add", addr, "dev", link])
            run(["ip", "-n", ns, "link", "set", link, "up"])
            run(["ip", "-n", ns, "link", "set", "lo", "up"])
        return a, b, "192.168.200.2"

    def start_tun(self, prefix, sets):
        self.namespaces += [f"{prefix}-0", f"{prefix}-1"]
        cmd = [str(NICSIM), "tun", "--prefix", prefix, "--duration", "600"]
        for s in sets:
            cmd += ["--set", s]
        out = open(self.tmp / f"{prefix}.txt", "w+")
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True)
        self.procs.append(proc)
        deadline = time.monotonic() + 30
        while "ready" not in (self.tmp / f"{prefix}.txt").read_text():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"nicsim tun did not start:\n"
                                   f"{(self.tmp / f'{prefix}.txt').read_text()}")
            time.sleep(0.05)
        return proc, f"{prefix}-0", f"{prefix}-1", "10.0.1.1"

    def stop_tun(self, proc, prefix):
        """Stops nicsim tun (it deletes its namespaces) and returns its counters."""
        self.stop(proc, signal.SIGTERM, 30)
        text = (self.tmp / f"{prefix}.txt").read_text()
        if proc.returncode != 0:
            raise RuntimeError(f"nicsim tun exited {proc.returncode}:\n{text}")
        counters = {}
        for line in text.splitlines():
            parts = line.split()
            if line.startswith("  ") and len(parts) == 2 and parts[1].isdigit():
                counters[parts[0]] = int(parts[1])
        return counters

    def cleanup(self):
        for proc in self.procs:
            try:
                self.stop(proc, signal.SIGTERM, 30)
            except Exception as e:  # keep cleaning up
                print(f"{NAME}: cannot stop pid {proc.pid}: {e}", file=sys.stderr)
        existing = run(["ip", "netns", "list"], check=False).stdout.split()
        for ns in self.namespaces:
            if ns in existing:
                run(["ip", "netns", "del", ns], check=False)
        for link in self.links:  # only there if the bench failed before moving it
            if run(["ip", "link", "show", link], check=False).returncode == 0:
                run(["ip", "link", "del", link], check=False)


def summary(seconds, echoes):
    rtts = sorted(r for e in echoes for r in e["rtts"])
    if not rtts:
        raise RuntimeError("no UDP echo came back")
    p99 = rtts[min(len(rtts) - 1, int(0.99 * len(rtts)))]
    return {"tcp_MBps": TCP_BYTES / statistics.median(seconds) / 1e6,
            "udp_rtt_median_us": statistics.median(rtts) * 1e6,
            "udp_rtt_p99_us": p99 * 1e6,
            "udp_lost": float(sum(e["lost"] for e in echoes))}


def main():
    if os.geteuid() != 0:
        nicsim_bench.fail(NAME, "needs root (network namespaces, TUN devices, veth)")
    if not Path("/dev/net/tun").exists() or shutil.which("ip") is None:
        nicsim_bench.fail(NAME, "needs /dev/net/tun and ip (iproute2)")
    if not NICSIM.exists():
        nicsim_bench.fail(NAME, f"{NICSIM} not built (bench/run {NAME} builds it)")
    prefix = f"ipb{os.getpid()}"
    # SIGTERM or SIGINT (even where a background shell ignored it) ends the run through the
    # finally below, which removes the namespaces and stops the processes.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    results = {}
    tun_counters = {}
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="nicsim_ip_over_adapter_") as tmp:
        bench = Bench(tmp)
        try:
            va, vb, vaddr = bench.make_veth(prefix)
            paths = {"veth": [], "loopback": [], "nicsim": [], "nicsim_loss": []}
            echoes = {k: [] for k in paths}
            # Interleaved, so that a burst of other load on the shared cores hits every path
            # alike: while each nicsim tun is up, every round measures veth, loopback and it.
            for key, sets in (("nicsim", []), ("nicsim_loss", ["fabric.loss=0.01"])):
                tun_prefix = f"{prefix}{'l' if sets else 'n'}"
                proc, n0, n1, taddr = bench.start_tun(tun_prefix, sets)
                for _ in range(RUNS):
                    for path, src, dst, addr in (("veth", va, vb, vaddr),
                                                 ("loopback", vb, vb, "127.0.0.1"),
                                                 (key, n0, n1, taddr)):
                        s, e = bench.measure(src, dst, addr)
                        paths[path].append(s)
                        echoes[path].append(e)
                tun_counters[key] = bench.stop_tun(proc, tun_prefix)
            for key in paths:
                results[key] = summary(paths[key], echoes[key])
                # Every run's figure, in the order measured: the spread shows the noise.
                print(f"  {key:<11} TCP MB/s " +
                      " ".join(f"{TCP_BYTES / s / 1e6:.0f}" for s in paths[key]) +
                      "; UDP RTT median us " +
                      " ".join(f"{statistics.median(e['rtts']) * 1e6:.0f}" for e in echoes[key]) +
                      f"; all: median {results[key]['udp_rtt_median_us']:.1f} us, "
                      f"p99 {results[key]['udp_rtt_p99_us']:.1f} us, "
                      f"lost {results[key]['udp_lost']:.0f} of {ECHOES * len(echoes[key])}")
            for key, counters in tun_counters.items():
                print(f"  nicsim tun counters ({key}): " +
                      ", ".join(f"{k} {v}" for k, v in counters.items()))
        except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError) as e:
            nicsim_bench.fail(NAME, str(e))  # SystemExit: the finally below still cleans up
        finally:
            bench.cleanup()
    print(f"  (wall {time.monotonic() - start:.1f} s; {RUNS} runs per nicsim path, "
          f"{2 * RUNS} of veth and loopback, interleaved; {ECHOES} echoes of {ECHO_BYTES} B "
          f"per run)")
    print("  No targets: the simulated link is slower by design. Both paths run the same host\n"
          "  TCP/IP stack in both namespaces; veth hands each packet across inside the kernel,\n"
          "  while nicsim tun copies it out of a TUN device to user space, carries it through\n"
          "  the simulated adapters (FIFOs, RDMA above ip.rdma_threshold) at simulated time\n"
          "  paced by the wall clock, and writes it into the other TUN device. The ratios\n"
          "  nicsim/veth show what the link costs on top of the host stack (loopback: the\n"
          "  stack with no link at all).")
    figures = {}
    for key, r in results.items():
        for field, value in r.items():
            figures[f"{key}_{field}"] = value
    ratios = {}
    for key in ("nicsim", "nicsim_loss"):
        ratios[f"{key}_vs_veth_tcp_MBps"] = results[key]["tcp_MBps"] / results["veth"]["tcp_MBps"]
        for field in ("udp_rtt_median_us", "udp_rtt_p99_us"):
            ratios[f"{key}_vs_veth_{field}"] = results[key][field] / results["veth"][field]
    for key, counters in tun_counters.items():
        for name in ("rdma_landed", "rdma_read_timeouts", "drop_timeout", "rdma_fallbacks"):
            if name in counters:
                figures[f"{key}_tun_{name}"] = float(counters[name])
    return nicsim_bench.finish(NAME, DESCRIPTION, figures, ratios, {})


if __name__ == "__main__":
    raise SystemExit(main())
