# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Mixed traffic against one running Strongroom server for a number of minutes (Scripts/soak.sh starts it).

Workers of the official Python SDK write, read, update, query, share (and read as the reader) and move files; the
Swift CLI reads and writes records now and then. Every minute it samples the server's RSS, open descriptors, sockets
and the minute's p50/p99 latency. It fails when any request fails unexpectedly, or when RSS or descriptors at the end
are more than 10% above their level after the first five minutes (runs shorter than six minutes only report).

Usage: soak.py BASE_URL REGISTRATION_TOKEN SERVER_PID MINUTES CLI_BINARY
"""
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import e3db

base, token, pid, minutes, cli = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
deadline = time.monotonic() + minutes * 60
lock = threading.Lock()
latencies: list[float] = []
failures: list[str] = []
counts: dict[str, int] = {}


def client(name):
    public_key, private_key = e3db.Client.generate_keypair()
    info = e3db.Client.register(token, name, public_key, api_url=base)
    config = e3db.Config(info.client_id, info.api_key_id, info.api_secret, public_key, private_key, api_url=base)
    return e3db.Client(config()), config()


def timed(kind, action):
    start = time.monotonic()
    try:
        result = action()
    except Exception as error:  # every failure is unexpected here: the server must answer each of these
        with lock:
            failures.append(f"{kind}: {error!r}")
        return None
    with lock:
        latencies.append(time.monotonic() - start)
        counts[kind] = counts.get(kind, 0) + 1
    return result


def python_worker(number):
    writer, _ = client(f"soak-writer-{number}")
    reader, _ = client(f"soak-reader-{number}")
    record_type = f"soak-{number}"
    timed("share", lambda: writer.share(record_type, reader.client_id))
    folder = tempfile.mkdtemp(prefix="strongroom-soak-")
    plain = os.path.join(folder, "plain.bin")
    with open(plain, "wb") as handle:
        handle.write(os.urandom(256 << 10))
    ids = []
    step = 0
    while time.monotonic() < deadline:
        step += 1
        record = timed("write", lambda: writer.write(record_type, {"n": str(step), "text": "x" * 512}, {"k": "v"}))
        if record is not None:
            ids.append((record.meta.record_id, record.meta.version))
        if ids:
            chosen = random.choice(ids)[0]
            timed("read", lambda: writer.read(chosen))
            timed("read as reader", lambda: reader.read(chosen))
        if step % 5 == 0 and ids:
            current = timed("read", lambda: writer.read(ids[-1][0]))
            if current is not None:
                current.data["n"] = str(step + 1000)
                updated = timed("update", lambda: writer.update(current))
                if updated is not None:
                    ids[-1] = (updated.meta.record_id, updated.meta.version)
        if step % 7 == 0:
            timed(
                "query",
                lambda: list(writer.query(data=False, record_type=[record_type], plain={"eq": {"name": "k", "value": "v"}})),
            )
        if step % 25 == 0:
            meta = timed("file write", lambda: writer.write_file(record_type + "-file", plain, {"k": "v"}))
            if meta is not None:
                out = os.path.join(folder, f"out-{step}.bin")
                timed("file read", lambda: writer.read_file(meta.record_id, out))
                if os.path.exists(out):
                    os.remove(out)
                # Files go again, as records do past 200: the data set stays the same size all run long.
                timed("file delete", lambda: writer.delete(meta.record_id, meta.version))
        if len(ids) > 200:
            doomed, version = ids.pop(0)
            timed("delete", lambda: writer.delete(doomed, version))


def cli_worker():
    home = tempfile.mkdtemp(prefix="strongroom-soak-cli-")
    environment = dict(os.environ, STRONGROOM_HOME=home)

    def run(arguments):
        done = subprocess.run([cli, *arguments], env=environment, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(done.stdout + done.stderr)
        return done.stdout

    timed("cli register", lambda: run(["register", "--token", token, "--url", base]))
    while time.monotonic() < deadline:
        written = timed("cli write", lambda: run(["write", "--type", "soak-cli", "a=b"]))
        if written:
            record_id = written.split()[-1] if written.split() else ""
            timed("cli read", lambda: run(["read", record_id]))
        time.sleep(1)


def sample():
    with open(f"/proc/{pid}/status") as handle:
        rss = next(int(line.split()[1]) for line in handle if line.startswith("VmRSS:"))
    descriptors = os.listdir(f"/proc/{pid}/fd")
    sockets = 0
    for fd in descriptors:
        try:
            sockets += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except FileNotFoundError:  # closed between the listing and the look (the server is busy, not broken)
            pass
    return rss, len(descriptors), sockets


def main():
    threads = [threading.Thread(target=python_worker, args=(n,), daemon=True) for n in range(4)]
    threads.append(threading.Thread(target=cli_worker, daemon=True))
    for thread in threads:
        thread.start()
    samples = []
    minute = 0
    while time.monotonic() < deadline:
        time.sleep(min(60, max(0.0, deadline - time.monotonic())))
        minute += 1
        with lock:
            window, latencies[:] = list(latencies), []
            failed = len(failures)
        rss, fds, sockets = sample()
        p50 = statistics.median(window) * 1000 if window else 0
        p99 = sorted(window)[int(len(window) * 0.99)] * 1000 if window else 0
        samples.append((rss, fds))
        print(f"minute {minute}: rss {rss // 1024} MiB, descriptors {fds}, sockets {sockets}, requests {len(window)}, "
              f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, failures {failed}", flush=True)
    for thread in threads:
        thread.join(timeout=120)
    print("operations:", json.dumps(counts, sort_keys=True))
    ok = True
    if failures:
        print(f"error: {len(failures)} requests failed, first: {failures[:3]}")
        ok = False
    if len(samples) > 5:
        base_rss, base_fds = samples[4]
        end_rss, end_fds = samples[-1]
        if end_rss > base_rss * 1.1 or end_fds > base_fds * 1.1 + 5:
            print(f"error: growth after minute 5: rss {base_rss} -> {end_rss} KiB, descriptors {base_fds} -> {end_fds}")
            ok = False
    print("soak: ok" if ok else "soak: FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
