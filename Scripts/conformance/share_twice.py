#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Sharing twice through the official Python SDK: a writer shares a type with a reader, then shares it again (the
SDK PUTs the reader's access key a second time, which Tozny's service answers 409 and the SDK raises on), and the
reader still reads. Run by PythonSDKConformanceTests against a live server: STRONGROOM_URL and REGISTRATION_TOKEN
come from the environment."""
import sys

from sdk_clients import client


writer, reader = client("share-twice-writer"), client("share-twice-reader")
record = writer.write("share-twice", {"note": "shared twice"})
writer.share("share-twice", reader.client_id)
writer.share("share-twice", reader.client_id)
print("shared twice")
read = reader.read(record.meta.record_id)
assert read.data["note"] == "shared twice", read.data
writer.revoke("share-twice", reader.client_id)
writer.share("share-twice", reader.client_id)
assert reader.read(record.meta.record_id).data["note"] == "shared twice"
print("reader reads")
sys.exit(0)
