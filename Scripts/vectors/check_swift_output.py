#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Check what Strongroom's Swift code produced with the official Python SDK (e3db 2.3.0) and PyNaCl.

Usage: check_swift_output.py <swift-output.json>   (written by InteropWithPythonTests in StrongroomCryptoTests)
Exits 0 when every check passes; prints one line per check and a closing "N passed, M failed".
"""
import base64
import hashlib
import json
import os
import sys
import tempfile
from urllib.parse import urlparse

import nacl.public
import nacl.signing
import e3db
from e3db.sodium_crypto import SodiumCrypto
from e3db.tsv1_auth import E3DBTSV1Auth


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class FakeRequest:
    def __init__(self, method, url):
        self.method, self.url, self.headers = method, url, {}


def main(path: str) -> int:
    with open(path, encoding="utf-8") as handle:
        out = json.load(handle)
    passed, failed = 0, 0

    def check(name, condition):
        nonlocal passed, failed
        if condition:
            passed += 1
            print(f"PASS {name}")
        else:
            failed += 1
            print(f"FAIL {name}")

    def guarded(name, function):
        try:
            check(name, function())
        except Exception as error:  # a crash in the SDK is a failed check, with its reason
            check(f"{name} ({type(error).__name__}: {error})", False)

    ak = unb64(out["fields"]["accessKey"])
    for index, case in enumerate(out["fields"]["cases"]):
        guarded(f"field {index} decrypts", lambda c=case: SodiumCrypto.decrypt_field(c["wire"], ak) == c["value"])

    for index, case in enumerate(out["eaks"]):
        def open_eak(c=case):
            ciphertext, nonce = (unb64(p) for p in c["wire"].split("."))
            reader = nacl.public.PrivateKey(unb64(c["readerPrivateKey"]))
            authorizer = nacl.public.PublicKey(unb64(c["authorizerPublicKey"]))
            return SodiumCrypto.decrypt_eak(reader, authorizer, ciphertext, nonce) == unb64(c["accessKey"])
        guarded(f"eak {index} opens", open_eak)

    file_ak = unb64(out["files"]["accessKey"])
    for case in out["files"]["cases"]:
        def open_file(c=case):
            data = open(c["path"], "rb").read()
            if len(data) != c["size"]:
                return False
            if base64.b64encode(hashlib.md5(data).digest()).decode() != c["checksum"]:
                return False
            with tempfile.TemporaryDirectory() as tmp:
                target = os.path.join(tmp, "plain")
                SodiumCrypto.decrypt_file(c["path"], target, file_ak)
                plain = open(target, "rb").read()
            return plain == bytes((i * 31 + 7) % 251 for i in range(c["plaintextSize"]))
        guarded(f"file of {case['plaintextSize']} bytes decrypts, size and MD5 match", open_file)

    tsv1 = out["tsv1"]
    auth = E3DBTSV1Auth(tsv1["privateSigningKey"], tsv1["clientID"])
    for case in tsv1["cases"]:
        def same_header(c=case):
            request = FakeRequest(c["method"], "http://localhost:8000" + c["path"] + ("?" + c["query"] if c["query"] else ""))
            E3DBTSV1Auth.create_tsv1_signature(request, auth.public_b64, auth.private_b64_decoded, tsv1["clientID"],
                                               c["nonce"], c["timestamp"])
            return request.headers["Authorization"] == c["authorization"]
        guarded(f"TSV1 {case['method']} {case['path']}?{case['query']} matches the SDK's header", same_header)

    for case in out["signedFields"]:
        guarded(f"signed field {case['key']!r} verifies",
                lambda c=case: e3db.Client.verify_field(c["key"], c["signed"], c["publicKey"]) == c["value"])

    for index, case in enumerate(out["documents"]):
        def verify_document(c=case):
            nacl.signing.VerifyKey(unb64(c["publicKey"])).verify(c["canonical"].encode("utf-8"), unb64(c["signature"]))
            return True
        guarded(f"document signature {index} verifies", verify_document)

    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
