# Strongroom — SPDX-License-Identifier: Apache-2.0
# The Python example of docs/Deployment.md, run by PythonSDKConformanceTests against a live server: STRONGROOM_URL and
# REGISTRATION_TOKEN come from the environment.
import os

import e3db                                    # pip install e3db==2.3.0
url = os.environ["STRONGROOM_URL"]
public_key, private_key = e3db.Client.generate_keypair()
info = e3db.Client.register(os.environ["REGISTRATION_TOKEN"], "my-client", public_key, api_url=url)
config = e3db.Config(info.client_id, info.api_key_id, info.api_secret, public_key, private_key, api_url=url)
client = e3db.Client(config())
record = client.write("contact", {"name": "Ada Lovelace"})    # encrypted before it leaves the process
print(client.read(record.meta.record_id).data)
