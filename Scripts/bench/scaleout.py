#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Scale-out benchmark driver (run by Scripts/bench-scaleout.sh; not a test).

1. File bodies: upload (presigned PUT) and download (presigned GET) MB/s of one SIZE MiB file through the
   PostgreSQL blob store and the S3 blob store (Ceph's RADOS Gateway on this machine, in-memory OSD), beside the
   local-folder store on the same PostgreSQL metadata, in the same run.
2. Authenticated record reads per second through two instances on one PostgreSQL beside one instance.
Transfers run through curl, loads through wrk, so the client is never the Python interpreter."""
import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

server_binary, pg_admin, size_mib, duration = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
s3_url = urllib.parse.urlsplit(sys.argv[5])
work = tempfile.mkdtemp()
processes = []
token_key = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()


def database(name):
    quiet = {**os.environ, "PGOPTIONS": "-c client_min_messages=warning"}
    subprocess.run(["psql", pg_admin, "-qc", f"DROP DATABASE IF EXISTS {name}"], check=True, env=quiet)
    subprocess.run(["psql", pg_admin, "-qc", f"CREATE DATABASE {name}"], check=True, env=quiet)
    return pg_admin.replace("/postgres?", f"/{name}?")


def serve(name, url, *extra, env=None):
    """Starts an instance and returns its base URL."""
    port_file = os.path.join(work, f"{name}.port")
    process = subprocess.Popen(
        [server_binary, "serve", "--port", "0", "--port-file", port_file, "--log-level", "error",
         "--registration-token", "bench-token", "--data-directory", os.path.join(work, name),
         "--database-url", url, *extra],
        env={**os.environ, "STRONGROOM_TOKEN_KEY": token_key, **(env or {})},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    processes.append(process)
    for _ in range(300):
        if os.path.exists(port_file) and open(port_file).read().strip():
            base = f"http://127.0.0.1:{open(port_file).read().strip()}"
            try:
                urllib.request.urlopen(base + "/health").read()
                return base
            except OSError:
                pass
        time.sleep(0.05)
    raise SystemExit(f"{name} did not start")


def call(method, url, token=None, body=None, basic=None):
    request = urllib.request.Request(url, method=method, data=body)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if basic:
        request.add_header("Authorization", "Basic " + base64.b64encode(basic.encode()).decode())
    with urllib.request.urlopen(request) as response:
        text = response.read()
        return json.loads(text) if text else None


def register(base):
    public_key = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
    registered = call("POST", base + "/v1/account/e3db/clients/register", body=json.dumps(
        {"token": "bench-token", "client": {"name": "bench", "public_key": {"curve25519": public_key}}}).encode())
    token = call("POST", base + "/v1/auth/token", body=b"grant_type=client_credentials",
                 basic=f"{registered['api_key_id']}:{registered['api_secret']}")["access_token"]
    return registered["client_id"], token


def curl_seconds(*arguments):
    start = time.perf_counter()
    subprocess.run(["curl", "-sf", "-o", "/dev/null", *arguments], check=True)
    return time.perf_counter() - start


def file_rates(base, body_path, checksum, size, rounds=3):
    """Best upload and download MB/s over `rounds` files."""
    client, token = register(base)
    ups, downs = [], []
    for _ in range(rounds):
        meta = {"writer_id": client, "user_id": client, "type": "bench-file", "plain": {},
                "file_meta": {"checksum": checksum, "compression": "raw", "size": size}}
        pending = call("POST", base + "/v1/storage/files", token, json.dumps({"meta": meta}).encode())
        ups.append(size / curl_seconds("-X", "PUT", "-T", body_path, pending["file_url"]) / 1e6)
        call("PATCH", base + f"/v1/storage/files/{pending['id']}", token)
        record = call("GET", base + f"/v1/storage/files/{pending['id']}", token)
        downs.append(size / curl_seconds(record["meta"]["file_meta"]["file_url"]) / 1e6)
    return max(ups), max(downs)


def wrk(url, token, connections):
    script = os.path.join(work, "get.lua")
    with open(script, "w") as handle:
        handle.write(f'wrk.headers["Authorization"] = "Bearer {token}"\n')
    return subprocess.Popen(["wrk", "-t1", f"-c{connections}", f"-d{duration}s", "-s", script, url],
                            stdout=subprocess.PIPE, text=True)


def rate(process):
    out = process.communicate()[0]
    return float(next(line.split()[1] for line in out.splitlines() if line.startswith("Requests/sec")))


try:
    size = size_mib << 20
    body_path = os.path.join(work, "body.bin")
    with open(body_path, "wb") as handle:
        for _ in range(size_mib):
            handle.write(os.urandom(1 << 20))
    checksum = base64.b64encode(hashlib.md5(open(body_path, "rb").read()).digest()).decode()

    in_database = serve("blobs-db", database("bench_blobs_db"), "--blob-store", "database")
    in_folder = serve("blobs-folder", database("bench_blobs_folder"), "--blob-store", "folder", "--single-instance")
    endpoint = f"{s3_url.scheme}://{s3_url.hostname}:{s3_url.port}"
    subprocess.run(["curl", "-sf", "-X", "PUT", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user",
                    f"{s3_url.username}:{s3_url.password}", "-H",
                    f"x-amz-content-sha256: {hashlib.sha256(b'').hexdigest()}", f"{endpoint}/bench"], check=True)
    in_s3 = serve("blobs-s3", database("bench_blobs_s3"), "--blob-store", "s3", "--s3-endpoint", endpoint,
                  "--s3-bucket", "bench", env={"STRONGROOM_S3_ACCESS_KEY_ID": s3_url.username,
                                               "STRONGROOM_S3_SECRET_ACCESS_KEY": s3_url.password})
    folder_up, folder_down = file_rates(in_folder, body_path, checksum, size)
    db_up, db_down = file_rates(in_database, body_path, checksum, size)
    s3_up, s3_down = file_rates(in_s3, body_path, checksum, size)
    print(f"file {size_mib} MiB  upload    folder {folder_up:7.0f} MB/s   PostgreSQL blobs {db_up:7.0f} MB/s "
          f"{db_up / folder_up:5.2f}x   S3 blobs {s3_up:7.0f} MB/s {s3_up / folder_up:5.2f}x")
    print(f"file {size_mib} MiB  download  folder {folder_down:7.0f} MB/s   PostgreSQL blobs {db_down:7.0f} MB/s "
          f"{db_down / folder_down:5.2f}x   S3 blobs {s3_down:7.0f} MB/s {s3_down / folder_down:5.2f}x")

    shared = database("bench_two")
    a = serve("a", shared)
    b = serve("b", shared)
    client, token = register(a)
    record_body = json.dumps({"meta": {"writer_id": client, "user_id": client, "type": "bench", "plain": {}},
                              "data": {"f": "a.b.c.d"}}).encode()
    record = call("POST", a + "/v1/storage/records", token, record_body)["meta"]["record_id"]
    one = rate(wrk(f"{a}/v1/storage/records/{record}", token, 32))
    both = [wrk(f"{base}/v1/storage/records/{record}", token, 16) for base in (a, b)]
    two = sum(rate(process) for process in both)
    print(f"GET record, 32 connections: one instance {one:8.0f} req/s   two instances {two:8.0f} req/s   "
          f"{two / one:5.2f}x  ({os.cpu_count()} cores shared by instances, PostgreSQL and wrk)")
    print(f"summary: PostgreSQL blob store upload {db_up / folder_up:.2f}x / download {db_down / folder_down:.2f}x "
          f"the folder store; S3 blob store {s3_up / folder_up:.2f}x / {s3_down / folder_down:.2f}x; "
          f"two instances {two / one:.2f}x one")
finally:
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait()
    subprocess.run(["rm", "-rf", work])
