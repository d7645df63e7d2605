# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Registers clients through the official Python SDK against STRONGROOM_URL with REGISTRATION_TOKEN (shared by the
conformance scripts beside it)."""
import os

import e3db

url = os.environ["STRONGROOM_URL"]
token = os.environ["REGISTRATION_TOKEN"]


def client(name):
    """A new registered client called `name`, as an e3db.Client."""
    public_key, private_key = e3db.Client.generate_keypair()
    info = e3db.Client.register(token, name, public_key, api_url=url)
    config = e3db.Config(info.client_id, info.api_key_id, info.api_secret, public_key, private_key, api_url=url)
    return e3db.Client(config())
