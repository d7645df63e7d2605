#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""The official Python SDK on the other side of a Swift client (ClientInteropTests). STRONGROOM_URL and
REGISTRATION_TOKEN come from the environment.

  register <config-file>                 register a client, save its configuration, print its id
  write-share <config-file> <reader-id>  write a record of type "py-to-swift" and share the type; print its id
  read <config-file> <record-id>         read a record shared with this client; print its data as JSON
  write <config-file> <type>             write a record of <type>; print its id
  add-authorizer <config-file> <type> <authorizer-id>
  share-on-behalf <config-file> <writer-id> <reader-id> <type>
  write-file <config-file> <path> <reader-id>   upload a file of type "py-file", share it; print its id
  read-file <config-file> <record-id> <destination>
  read-with-profile <profile> <record-id>   load ~/.tozny/<profile>/e3db.json with the SDK's own loader and read
"""
import json
import os
import sys

import e3db

url = os.environ["STRONGROOM_URL"]


def load(path):
    with open(path) as handle:
        saved = json.load(handle)
    return e3db.Client(e3db.Config(saved["client_id"], saved["api_key_id"], saved["api_secret"], saved["public_key"],
                                   saved["private_key"], api_url=url)())


command = sys.argv[1]
if command == "register":
    public_key, private_key = e3db.Client.generate_keypair()
    info = e3db.Client.register(os.environ["REGISTRATION_TOKEN"], "python", public_key, api_url=url)
    with open(sys.argv[2], "w") as handle:
        json.dump({"client_id": str(info.client_id), "api_key_id": info.api_key_id, "api_secret": info.api_secret,
                   "public_key": public_key, "private_key": private_key}, handle)
    print(info.client_id)
elif command == "write-share":
    client = load(sys.argv[2])
    record = client.write("py-to-swift", {"msg": "from python 🐍", "n": "42"}, {"origin": "python"})
    client.share("py-to-swift", sys.argv[3])
    print(record.meta.record_id)
elif command == "read":
    print(json.dumps(load(sys.argv[2]).read(sys.argv[3]).data, sort_keys=True, ensure_ascii=False))
elif command == "write":
    print(load(sys.argv[2]).write(sys.argv[3], {"msg": "python wrote this"}).meta.record_id)
elif command == "add-authorizer":
    load(sys.argv[2]).add_authorizer(sys.argv[3], sys.argv[4])
    print("added")
elif command == "share-on-behalf":
    load(sys.argv[2]).share_on_behalf_of(sys.argv[3], sys.argv[4], sys.argv[5])
    print("shared")
elif command == "write-file":
    client = load(sys.argv[2])
    meta = client.write_file("py-file", sys.argv[3], {"origin": "python"})
    client.share("py-file", sys.argv[4])
    print(meta.record_id)
elif command == "read-file":
    load(sys.argv[2]).read_file(sys.argv[3], sys.argv[4])
    print("read")
elif command == "read-with-profile":
    config = e3db.Config.load(sys.argv[2])
    print(json.dumps(e3db.Client(config).read(sys.argv[3]).data, sort_keys=True, ensure_ascii=False))
elif command == "read-type":
    # Every record of a type by one writer, decrypted with the one access key the SDK fetches: a JSON list of each
    # record's data, sorted (a key rotation must leave none it cannot open).
    client, found, index = load(sys.argv[2]), [], 0
    while True:
        page = client.query(data=True, writer=[sys.argv[3]], record_type=[sys.argv[4]], page_size=500, last_index=index)
        batch = list(page)
        found += [record.data for record in batch]
        if len(batch) < 500:
            break
        index = page.after_index
    print(json.dumps(sorted(found, key=lambda data: json.dumps(data, sort_keys=True)), sort_keys=True))
else:
    sys.exit(f"unknown command {command}")
