#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Two server instances on one database: the official Python SDK writes a record and a STRONGROOM_FILE_MIB MiB file
(default 50) through instance A (STRONGROOM_URL), then the same client, configured for instance B
(STRONGROOM_URL_B), reads both back. Run by ScaleOutTests; REGISTRATION_TOKEN comes from the environment."""
import filecmp
import os
import sys
import tempfile

import e3db

url_a = os.environ["STRONGROOM_URL"]
url_b = os.environ["STRONGROOM_URL_B"]
token = os.environ["REGISTRATION_TOKEN"]
size = int(os.environ.get("STRONGROOM_FILE_MIB", "50")) * 1024 * 1024

public_key, private_key = e3db.Client.generate_keypair()
info = e3db.Client.register(token, "two-instances", public_key, api_url=url_a)


def through(api_url):
    """The registered client, talking to the instance at `api_url`."""
    config = e3db.Config(info.client_id, info.api_key_id, info.api_secret, public_key, private_key, api_url=api_url)
    return e3db.Client(config())


a, b = through(url_a), through(url_b)
record = a.write("scale-out", {"secret": "written through A"}, {"instance": "a"})
print(f"wrote record {record.meta.record_id} through A")
read = b.read(record.meta.record_id)
if read.data["secret"] != "written through A":
    print("record DIFFERENT through B")
    sys.exit(1)
print("record read through B")

with tempfile.TemporaryDirectory() as work:
    plain = os.path.join(work, "plain.bin")
    with open(plain, "wb") as handle:
        for _ in range(size // (1 << 20)):
            handle.write(os.urandom(1 << 20))
    meta = a.write_file("scale-out-file", plain, {"size": str(size)})
    print(f"wrote {size} bytes as record {meta.record_id} through A")
    copy = os.path.join(work, "through-b.bin")
    b.read_file(meta.record_id, copy)
    ok = filecmp.cmp(plain, copy, shallow=False)
    print("file identical through B" if ok else "file DIFFERENT through B")
    sys.exit(0 if ok else 1)
