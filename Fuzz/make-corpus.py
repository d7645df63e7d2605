#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Writes the seed corpus, one folder per fuzz target (Fuzz/Corpus/<target>/), from the repository's own vectors
and fixtures plus a few hand-written bodies. Run from the repository root; the output is committed, so this only
needs running again when a target or a vector changes. Needs openssl (for the CSRs)."""
import base64, hashlib, json, os, pathlib, subprocess, tempfile

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "Fuzz" / "Corpus"
vectors = root / "Tests" / "StrongroomCryptoTests" / "Vectors" / "e3db-python"
fixtures = root / "Tests" / "StrongroomPKITests" / "Fixtures"
store_vectors = root / "Tests" / "StrongroomDatastoreTests" / "Vectors"


def seed(target, name, data):
    folder = out / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def js(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


writer = "0e8eb8c6-839f-46ca-9843-801c539e490f"
record = "9c2a4f1e-0b7d-4f43-9d55-1f0e3a6b2c11"
meta = {"record_id": record, "writer_id": writer, "user_id": writer, "type": "note", "plain": {"kind": "note"},
        "created": "2026-11-27T12:00:00.123456Z", "last_modified": "2026-11-27T12:00:00.123456Z",
        "version": "5e7a2f6c-8a8e-4b8e-9a57-2f1a0c9d3e44", "file_meta": None}
field = json.load(open(vectors / "fields.json"))["cases"][0]

tsv1 = json.load(open(vectors / "tsv1.json"))
for i, case in enumerate(tsv1["cases"]):
    seed("tsv1", f"vector-{i}", f'{case["authorization"]}\n{case["path"]}\n{case["query"]}')

seed("record-body", "write", js({"meta": {"writer_id": writer, "user_id": writer, "type": "note",
                                          "plain": {"kind": "note", "owner": "alice"}},
                                 "data": {"body": "ZmFrZQ.ZmFrZQ.ZmFrZQ.ZmFrZQ"}, "rec_sig": "c2ln"}))
seed("record-body", "escapes", js({"meta": {"writer_id": writer, "user_id": writer, "type": "n\u00e9\\\"te",
                                            "plain": {"k\u2713": "\U0001F600 \\u0041"}}, "data": {}}))
seed("plain-json", "record", js({"meta": meta, "data": {"body": "ZmFrZQ.ZmFrZQ.ZmFrZQ.ZmFrZQ"}, "rec_sig": None}))
seed("plain-json", "file", js({"meta": dict(meta, file_meta={"file_url": "https://x/y", "file_name": "a.bin",
                                                            "checksum": "q83v", "compression": "raw", "size": 10}),
                               "data": {}}))

seed("search-v1", "everything", js({"count": 10, "after_index": 0, "include_data": True, "writer_ids": [writer],
                                    "user_ids": [writer], "record_ids": [record], "content_types": ["note"],
                                    "include_all_writers": True,
                                    "plain": {"and": [{"eq": {"name": "kind", "value": "note"}},
                                                      {"not": {"eq": {"name": "owner", "value": "bob"}}},
                                                      {"or": [{"eq": {"name": "a", "value": "b"}}]}]}}))
seed("search-v1", "empty", "{}")
terms = {"writer_ids": [writer], "content_types": ["note"], "keys": ["kind"], "values": ["no*"],
         "tags": {"kind": "note", "tag": "\u00dcn?code*"}}
seed("search-v2", "wildcard", js({"limit": 10, "include_all_writers": True, "include_data": False,
                                  "match": [{"condition": "AND", "strategy": "WILDCARD", "terms": terms}],
                                  "exclude": [{"condition": "OR", "strategy": "EXACT", "terms": {"keys": ["x"]}}],
                                  "range": {"range_key": "CREATED", "after": "2020-01-01T00:00:00Z",
                                            "before": "2030-01-01T00:00:00Z"}}))
seed("search-v2", "regexp", js({"match": [{"condition": "OR", "strategy": "REGEXP",
                                           "terms": {"values": ["^n(o|a)t[e]+$", "(a|b)*c{2,3}"]}}]}))
seed("search-v2", "fuzzy", js({"match": [{"strategy": "FUZZY", "terms": {"values": ["nots"]}}]}))

for i, case in enumerate(json.load(open(vectors / "eaks.json"))["cases"][:4]):
    seed("eak", f"vector-{i}", case.get("eak") or case.get("wire") or js(case))
for i, case in enumerate(json.load(open(vectors / "fields.json"))["cases"][:4]):
    seed("encrypted-field", f"vector-{i}", case.get("ciphertext") or case.get("wire") or js(case))
for name in ["file-0.e3db", "file-10.e3db", "file-65537.e3db"]:
    seed("file-format", name, bytes([63]) + (vectors / "files" / name).read_bytes())

def pem_body(text):
    return base64.b64decode("".join(l for l in text.splitlines() if not l.startswith("-----")))

ca = (fixtures / "ca.pem").read_text()
seed("certificate", "ca.der", pem_body(ca.split("-----END CERTIFICATE-----")[0]))
seed("crl", "known.der", (fixtures / "crl-known.der").read_bytes())
seed("crl", "openssl.der", pem_body((fixtures / "crl-openssl.pem").read_text()))
for name in ["ec-default.p12", "rsa-legacy.p12"]:
    seed("pkcs12", name, (fixtures / name).read_bytes())
with tempfile.TemporaryDirectory() as tmp:
    for algorithm, args in [("ec", ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]),
                            ("ed25519", ["-newkey", "ed25519"])]:
        key, csr = os.path.join(tmp, "k.pem"), os.path.join(tmp, "r.pem")
        subprocess.run(["openssl", "req", "-new", *args, "-nodes", "-keyout", key, "-out", csr,
                        "-subj", f"/CN={writer}", "-addext", "subjectAltName=DNS:device.example"],
                       check=True, capture_output=True)
        text = pathlib.Path(csr).read_text()
        seed("csr", f"{algorithm}.pem", text)
        seed("csr", f"{algorithm}.der", pem_body(text))

b64 = lambda n: base64.b64encode(bytes(range(n))).decode()
seed("keychain-file", "one-item", js({"format": "strongroom.keychain", "version": 1,
                                      "store_id": "3f0c2a5e-6d1b-4c0e-8a9f-0b1c2d3e4f50", "generation": 3,
                                      "slots": [{"id": "password", "wrapped_key": b64(72),
                                                 "kdf": {"algorithm": "argon2id13", "iterations": 3,
                                                         "memory_bytes": 67108864, "salt": b64(16)}}],
                                      "items": [{"id": b64(32), "policy": "always", "meta": b64(40),
                                                 "secret": b64(56)}]}))

fixtures_q = json.load(open(store_vectors / "query-fixtures.json"))
for i, query in enumerate(fixtures_q["queries"][:12]):
    seed("selector", f"fixture-{i}", js(query["selector"]))
seed("selector", "operators", js({"$and": [{"age": {"$gte": 12, "$lt": 70}}, {"$or": [{"pet": {"$in": ["cat"]}},
                                  {"name": {"$regex": "^m.*e$"}}]}, {"$not": {"address.city": {"$exists": True}}},
                                  {"comments": {"$elemMatch": {"$eq": "nice"}}}, {"$text": {"$search": "mike"}}]}))
for i, case in enumerate(json.load(open(store_vectors / "revision-ids.json"))[:6]):
    seed("revision-id", f"vector-{i}", case["rev"])
seed("revision-id", "long", "2147483647-" + "a" * 64)
seed("stored-body", "canonical", js({"a": [1, -0.5, 1e300, True, None], "o": {"k": "\u00e9\U0001F600\n\"\\"}}))
seed("stored-body", "spaced", '{ "n" : 12345.678e-3 , "s" : "\\u00e9\\/x" , "e" : [ ] , "z" : { } }')
seed("stored-body", "deep", '{"d":' + "[" * 60 + "]" * 60 + "}")

report = {"verdict": "warning", "findings": [{"kind": "debugger", "severity": "warning", "summary": "traced",
                                              "detail": "TracerPid: 12"}],
          "checks": ["debugger", "hooks"], "checkedAt": 1764244800, "durationMicroseconds": 1200,
          "platform": "linux-x86_64"}
seed("integrity-report", "report", js(report))
seed("integrity-report", "summary", js({"verdict": "compromised", "checked_at": 1764244800,
                                        "findings": [{"kind": "hooks", "severity": "critical", "summary": "x"}]}))
seed("integrity-report", "manifest", js({"manifest": b64(40), "signature": b64(64)}))

# The key log: the Go reference signed note, a checkpoint, a verifier key, and CT's reference proofs (mode byte
# first; sizes little-endian).
note_vectors = json.load(open(root / "Tests" / "StrongroomCryptoTests" / "Vectors" / "keylog" / "signed-note.json"))
merkle = json.load(open(root / "Tests" / "StrongroomCryptoTests" / "Vectors" / "keylog" / "rfc6962.json"))
seed("keylog", "note", b"\x00" + note_vectors["note"].encode())
seed("keylog", "checkpoint", b"\x01" + f"strongroom.example/keylog\n8\n{base64.b64encode(bytes.fromhex(merkle['roots'][8])).decode()}\n".encode())
seed("keylog", "verifier-key", b"\x02" + note_vectors["verifierKey"].encode())
for i, case in enumerate(merkle["inclusion"]):
    entry = bytes.fromhex(merkle["entries"][case["index"]])
    leaf = hashlib.sha256(b"\x00" + entry).digest()
    seed("keylog", f"inclusion-{i}", b"\x03" + case["index"].to_bytes(8, "little") + case["size"].to_bytes(8, "little")
         + leaf + bytes.fromhex(merkle["roots"][case["size"]]) + b"".join(bytes.fromhex(h) for h in case["proof"]))
for i, case in enumerate(merkle["consistency"]):
    seed("keylog", f"consistency-{i}", b"\x04" + case["old"].to_bytes(8, "little") + case["new"].to_bytes(8, "little")
         + bytes.fromhex(merkle["roots"][case["old"]]) + bytes.fromhex(merkle["roots"][case["new"]])
         + b"".join(bytes.fromhex(h) for h in case["proof"]))
for i, entry in enumerate(json.load(open(root / "Tests" / "StrongroomCryptoTests" / "Vectors" / "keylog" / "entries.json"))["entries"]):
    seed("keylog", f"entry-{i}", b"\x05" + bytes.fromhex(entry["encoded"]))
cosignatures = json.load(open(root / "Tests" / "StrongroomCryptoTests" / "Vectors" / "keylog" / "cosignature.json"))
for i, case in enumerate(cosignatures["cases"]):
    seed("keylog", f"cosigned-{i}", b"\x06" + (case["checkpoint"] + "\n" + case["line"] + "\n").encode())
    seed("keylog", f"add-checkpoint-{i}", b"\x07" + ("old 0\n\n" + case["checkpoint"] + "\n" + case["line"] + "\n").encode())

# age: the CCTV vectors' files (their text header dropped), behind a byte that picks the piece size. Compressed ones
# are inflated; each vector's identity is one of the two the target uses.
import zlib
age_vectors = root / "Tests" / "StrongroomCryptoTests" / "Vectors" / "cctv-age"
for name in ["hybrid", "hybrid_multiple_recipients", "hybrid_grease", "hybrid_and_x25519", "x25519",
             "x25519_grease", "hybrid_bad_tag", "stream_bad_tag"]:  # small files: fast mutations
    path = age_vectors / name
    if not path.exists():
        continue
    head, _, body = path.read_bytes().partition(b"\n\n")
    if b"compressed: zlib" in head:
        body = zlib.decompress(body)
    seed("age", name, bytes([3]) + body)

