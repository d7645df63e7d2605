#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Opens an encrypted datastore attachment file with PyNaCl, independently of the Swift code, and prints the
SHA-256 of its plaintext. Format: b"SRA1" | 24-byte secretstream header | chunks of up to 65536+17 bytes, each
pulled with the same associated data, the last tagged FINAL and nothing after it.
Usage: open-attachment.py KEY_HEX AAD_HEX FILE
"""
import hashlib
import sys

from nacl import bindings as b

key, aad, path = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2]), sys.argv[3]
data = open(path, "rb").read()
assert data[:4] == b"SRA1", "bad magic"
header = data[4:4 + b.crypto_secretstream_xchacha20poly1305_HEADERBYTES]
state = b.crypto_secretstream_xchacha20poly1305_state()
b.crypto_secretstream_xchacha20poly1305_init_pull(state, header, key)
offset = 4 + len(header)
digest = hashlib.sha256()
chunk = 65536 + b.crypto_secretstream_xchacha20poly1305_ABYTES
while True:
    sealed = data[offset:offset + chunk]
    offset += len(sealed)
    message, tag = b.crypto_secretstream_xchacha20poly1305_pull(state, sealed, aad)
    digest.update(message)
    if tag == b.crypto_secretstream_xchacha20poly1305_TAG_FINAL:
        break
assert offset == len(data), "data after the final chunk"
print(digest.hexdigest())
