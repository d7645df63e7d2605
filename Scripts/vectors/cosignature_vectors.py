#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Writes Tests/StrongroomCryptoTests/Vectors/keylog/cosignature.json: C2SP tlog-cosignature v1 cosignatures (key ID
with type 0x04, a big-endian timestamp, Ed25519 over "cosignature/v1\\ntime <t>\\n" and the checkpoint) computed with
Python's `cryptography` package (OpenSSL's Ed25519, independent of libsodium) from a fixed seed, and the witness's
verifier key. Ed25519 is deterministic, so Swift must reproduce every line byte for byte.
Run from the repository root: python3 Scripts/vectors/cosignature_vectors.py"""
import base64, hashlib, json, pathlib, struct
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

root = pathlib.Path(__file__).resolve().parent.parent.parent
out = root / "Tests" / "StrongroomCryptoTests" / "Vectors" / "keylog" / "cosignature.json"

SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")  # RFC 8032 §7.1 test 1
NAME = "witness.example/w1"
CHECKPOINTS = [
    ("example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n", 1679315147),
    ("strongroom.keylog/0123456789abcdef\n7\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\ntimestamp 1795928754\n", 1795928755),
    ("strongroom.keylog/0123456789abcdef\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n", 0),
]

key = Ed25519PrivateKey.from_private_bytes(SEED)
public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
key_id = hashlib.sha256(NAME.encode() + b"\n" + b"\x04" + public).digest()[:4]
blob = base64.b64encode(bytes([4]) + public).decode()
vkey = NAME + "+" + key_id.hex() + "+" + blob

cases = []
for text, time in CHECKPOINTS:
    message = b"cosignature/v1\ntime %d\n" % time + text.encode()
    signature = key.sign(message)
    line = "\u2014 " + NAME + " " + base64.b64encode(key_id + struct.pack(">Q", time) + signature).decode()
    cases.append({"checkpoint": text, "time": time, "line": line})

out.write_text(json.dumps({
    "source": "Scripts/vectors/cosignature_vectors.py (Python cryptography, OpenSSL Ed25519)",
    "seed": SEED.hex(),
    "name": NAME,
    "verifier_key": vkey,
    "cases": cases,
}, indent=2, ensure_ascii=False) + "\n")
print(f"wrote {out.relative_to(root)}")
