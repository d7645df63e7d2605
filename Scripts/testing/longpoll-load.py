# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Write latency and server CPU beside a hostile client's long-polls (issue 72, item 1).

Usage: longpoll-load.py BASE_URL REGISTRATION_TOKEN SERVER_PID [RECORDS, default 20000]

Alice writes RECORDS records of type `victim`; then 100 writes of another type are timed, with the server's CPU time
(from /proc), first with nothing else running and then beside mallory's eight long-polls on alice's type (each
re-issued as soon as it answers). Prints both and their ratios (the issue's target: within 1.5x).
"""
import base64
import json
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

def register(base: str, registration: str) -> tuple:
    """A new client: its ID and a bearer token (keys made with PyNaCl, as register_client.py makes them)."""
    from nacl.public import PrivateKey
    from nacl.signing import SigningKey

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(bytes(data)).rstrip(b"=").decode()

    encryption, signing = PrivateKey.generate(), SigningKey.generate()
    body = {"token": registration, "client": {"name": "longpoll-load",
                                              "public_key": {"curve25519": b64(encryption.public_key)},
                                              "signing_key": {"ed25519": b64(signing.verify_key)}}}
    request = urllib.request.Request(base + "/v1/account/e3db/clients/register", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        client = json.load(response)
    credentials = base64.b64encode(f"{client['api_key_id']}:{client['api_secret']}".encode()).decode()
    request = urllib.request.Request(base + "/v1/auth/token", data=b"grant_type=client_credentials", method="POST",
                                     headers={"Authorization": "Basic " + credentials,
                                              "Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return client["client_id"], json.load(response)["access_token"]


def post(base: str, path: str, bearer: str, body: dict, timeout: float = 60) -> int:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": "Bearer " + bearer,
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        response.read()
        return response.status


def write(base: str, bearer: str, client: str, kind: str, number: int) -> None:
    body = {"meta": {"writer_id": client, "user_id": client, "type": kind, "plain": {}},
            "data": {"n": base64.b64encode(str(number).encode()).decode()}}
    post(base, "/v1/storage/records", bearer, body)


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0  # utime + stime, in clock ticks


def timed_writes(base: str, bearer: str, client: str, pid: int) -> tuple:
    cpu, start = cpu_seconds(pid), time.monotonic()
    for number in range(100):
        write(base, bearer, client, "other", number)
    return time.monotonic() - start, cpu_seconds(pid) - cpu


def main() -> None:
    base, registration, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
    records = int(sys.argv[4]) if len(sys.argv) > 4 else 20000
    (alice_id, alice), (_, mallory) = register(base, registration), register(base, registration)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: write(base, alice, alice_id, "victim", n), range(records)))
    quiet = timed_writes(base, alice, alice_id, pid)
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            try:
                post(base, "/v2/sync/changes", mallory, {"type": "victim", "after_index": 0, "wait": 25}, 90)
            except Exception:  # 429s and the like: try again
                time.sleep(0.05)

    threads = [threading.Thread(target=poll, daemon=True) for _ in range(8)]
    for thread in threads:
        thread.start()
    time.sleep(2)
    idle_cpu = cpu_seconds(pid)
    time.sleep(5)
    idle = cpu_seconds(pid) - idle_cpu
    busy = timed_writes(base, alice, alice_id, pid)
    stop.set()
    print(f"{records} records of the victim's type; 100 writes of another type:")
    print(f"  alone:                     {quiet[0]:.2f} s, server CPU {quiet[1]:.2f} s")
    print(f"  beside 8 hostile long-polls: {busy[0]:.2f} s, server CPU {busy[1]:.2f} s "
          f"(ratios {busy[0] / quiet[0]:.2f} and {busy[1] / max(quiet[1], 0.01):.2f}; target <= 1.5)")
    print(f"  server CPU while the long-polls wait, 5 s: {idle:.2f} s")


if __name__ == "__main__":
    main()
