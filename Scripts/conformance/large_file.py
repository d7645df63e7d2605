#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""A large file through the official Python SDK: one client writes STRONGROOM_FILE_MIB MiB (default 50), reads it
back, shares the type with a second client, which downloads and decrypts it too. Run by LargeFileTests against a
live server: STRONGROOM_URL and REGISTRATION_TOKEN come from the environment."""
import filecmp
import os
import sys
import tempfile

from sdk_clients import client

size = int(os.environ.get("STRONGROOM_FILE_MIB", "50")) * 1024 * 1024


writer, reader = client("large-file-writer"), client("large-file-reader")
with tempfile.TemporaryDirectory() as work:
    plain = os.path.join(work, "plain.bin")
    with open(plain, "wb") as handle:
        for _ in range(size // (1 << 20)):
            handle.write(os.urandom(1 << 20))
    meta = writer.write_file("large-file", plain, {"size": str(size)})
    print(f"wrote {size} bytes as record {meta.record_id}")
    own_copy = os.path.join(work, "own.bin")
    writer.read_file(meta.record_id, own_copy)
    writer.share("large-file", reader.client_id)
    shared_copy = os.path.join(work, "shared.bin")
    reader.read_file(meta.record_id, shared_copy)
    ok = filecmp.cmp(plain, own_copy, shallow=False) and filecmp.cmp(plain, shared_copy, shallow=False)
    print("identical" if ok else "DIFFERENT")
    sys.exit(0 if ok else 1)
