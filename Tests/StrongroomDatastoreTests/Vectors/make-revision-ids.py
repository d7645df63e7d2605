#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Known-answer vectors for datastore revision IDs, computed independently of the Swift code.

A revision ID is `generation-md5hex`, the MD5 over: the parent revision ID's UTF-8 length as one byte, its text,
one deleted byte (0/1), and the canonical JSON body (keys sorted, no whitespace, UTF-8 unescaped) — CDTDatastore's
(TouchDB's) rule. Run: python3 make-revision-ids.py > revision-ids.json
"""
import hashlib
import json

def canonical(body):
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

def rev(parent, deleted, body):
    text = canonical(body).encode("utf-8")
    p = (parent or "").encode("utf-8")
    digest = hashlib.md5(bytes([len(p)]) + p + bytes([1 if deleted else 0]) + text).hexdigest()
    generation = int(parent.split("-")[0]) + 1 if parent else 1
    return f"{generation}-{digest}"

cases = [
    (None, False, {"name": "Ada", "born": 1815}),
    (None, False, {}),
    (None, False, {"z": [1, 2, {"b": True, "a": None}], "a": "\u00e9t\u00e9 \u2603", "path": "a/b"}),
    ("1-967a00dff5e02add41819138abb3284d", False, {"name": "Ada", "born": 1815, "field": "math"}),
    ("2-7051cbe5c8faecd085a3fa619e6e6337", True, {}),
    ("9-0123456789abcdef0123456789abcdef", False, {"n": 1.5, "neg": -42, "big": 9007199254740991}),
]
vectors = []
for parent, deleted, body in cases:
    vectors.append({"parent": parent, "deleted": deleted, "body": body, "canonical": canonical(body),
                    "rev": rev(parent, deleted, body)})
print(json.dumps(vectors, indent=2, ensure_ascii=False))
