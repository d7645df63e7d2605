# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Registers a client on a Strongroom server with a registration token and prints a bearer token for it.

Usage: register_client.py BASE_URL REGISTRATION_TOKEN  (keys made with PyNaCl; nothing is stored).
"""
import base64
import json
import sys
import urllib.request

from nacl.public import PrivateKey
from nacl.signing import SigningKey


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(bytes(data)).rstrip(b"=").decode()


def post(url: str, body: bytes, headers: dict) -> dict:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def main() -> None:
    base, token = sys.argv[1], sys.argv[2]
    encryption, signing = PrivateKey.generate(), SigningKey.generate()
    registration = {
        "token": token,
        "client": {
            "name": "api-fuzzer",
            "public_key": {"curve25519": b64(encryption.public_key)},
            "signing_key": {"ed25519": b64(signing.verify_key)},
        },
    }
    client = post(base + "/v1/account/e3db/clients/register", json.dumps(registration).encode(),
                  {"Content-Type": "application/json"})
    credentials = base64.b64encode(f"{client['api_key_id']}:{client['api_secret']}".encode()).decode()
    answer = post(base + "/v1/auth/token", b"grant_type=client_credentials",
                  {"Authorization": "Basic " + credentials, "Content-Type": "application/x-www-form-urlencoded"})
    print(answer["access_token"])


if __name__ == "__main__":
    main()
