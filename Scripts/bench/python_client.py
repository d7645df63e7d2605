#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""The official Python SDK's half of Scripts/bench-client.sh: one client writes then reads N records of five 1 KiB
fields, one at a time, then writes and reads a file of M MiB; prints the rates as JSON on stdout.
Usage: python_client.py URL TOKEN RECORDS FILE_MIB WORK_DIR"""
import json
import os
import sys
import time

import e3db

url, token, records, mib, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]

public_key, private_key = e3db.Client.generate_keypair()
info = e3db.Client.register(token, "bench-python", public_key, api_url=url)
config = e3db.Config(info.client_id, info.api_key_id, info.api_secret, public_key, private_key, api_url=url)
client = e3db.Client(config())

# Same shape as the Swift side: five fields of 1024 printable characters.
data = {f"field{i}": (chr(ord("a") + i) * 1024) for i in range(5)}
client.write("bench-warmup", data)

start = time.perf_counter()
ids = [client.write("bench", data).meta.record_id for _ in range(records)]
write_seconds = time.perf_counter() - start

start = time.perf_counter()
for record_id in ids:
    assert client.read(record_id).data == data
read_seconds = time.perf_counter() - start

# The floor under a read one at a time: the same GET with bare requests (the SDK's HTTP library), no crypto.
import requests

session = requests.Session()
answer = session.post(url + "/v1/auth/token", auth=(info.api_key_id, info.api_secret),
                      data={"grant_type": "client_credentials"})
answer.raise_for_status()
session.headers["Authorization"] = "Bearer " + answer.json()["access_token"]
start = time.perf_counter()
for _ in range(records):
    response = session.get(f"{url}/v1/storage/records/{ids[0]}")
    assert response.status_code == 200 and response.content
raw_read_seconds = time.perf_counter() - start

result = {"write_rps": records / write_seconds, "read_rps": records / read_seconds,
          "raw_read_rps": records / raw_read_seconds}
if mib > 0:
    plain = os.path.join(work, "python-plain.bin")
    with open(plain, "wb") as handle:
        for _ in range(mib):
            handle.write(os.urandom(1 << 20))
    size = mib << 20
    start = time.perf_counter()
    meta = client.write_file("bench-file", plain)
    up = time.perf_counter() - start
    copy = os.path.join(work, "python-copy.bin")
    start = time.perf_counter()
    client.read_file(meta.record_id, copy)
    down = time.perf_counter() - start
    result["file_write_mbps"] = size / 1e6 / up
    result["file_read_mbps"] = size / 1e6 / down
    os.remove(plain)
    os.remove(copy)
print(json.dumps(result))
