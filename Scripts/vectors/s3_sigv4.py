# Strongroom — SPDX-License-Identifier: Apache-2.0
"""AWS Signature V4 vectors for the server's S3 blob store, from botocore's S3SigV4Auth (the reference signer of
the AWS SDK for Python). botocore is not part of the test venv; run with any interpreter that has it:

    python3 -m venv /tmp/boto && /tmp/boto/bin/pip install botocore
    /tmp/boto/bin/python Scripts/vectors/s3_sigv4.py > Tests/StrongroomServerTests/Vectors/s3-sigv4.json
"""
import datetime
import hashlib
import json
from unittest import mock
from urllib.parse import quote

import botocore
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

EMPTY = hashlib.sha256(b"").hexdigest()


def encode(text, safe=""):
    return quote(text, safe=safe + "-_.~")


def case(name, method, host, path, query, headers, body, region, when, scheme="http"):
    payload = hashlib.sha256(body).hexdigest()
    pairs = sorted((encode(k), encode(v or "")) for k, v in query)
    query_text = "&".join(f"{k}={v}" for k, v in pairs)
    url = f"{scheme}://{host}{encode(path, '/')}" + (f"?{query_text}" if query_text else "")
    request = AWSRequest(method=method, url=url, data=body, headers=dict(headers))
    request.headers["X-Amz-Content-SHA256"] = payload
    credentials = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    moment = datetime.datetime.fromtimestamp(when, tz=datetime.timezone.utc).replace(tzinfo=None)
    with mock.patch("botocore.auth.get_current_datetime", return_value=moment):
        S3SigV4Auth(credentials, "s3", region).add_auth(request)
    return {
        "name": name,
        "method": method,
        "host": host,
        "path": path,
        "query": [[k, v] for k, v in query],
        "headers": [[k.lower(), v] for k, v in headers],
        "payloadHash": payload,
        "date": when,
        "region": region,
        "pathAndQuery": url.split(host, 1)[1],
        "authorization": request.headers["Authorization"],
        "amzDate": request.headers["X-Amz-Date"],
    }


cases = [
    case("head bucket", "HEAD", "127.0.0.1:7480", "/strongroom", [], [], b"", "us-east-1", 1_764_000_000),
    case("put object", "PUT", "s3.eu-west-1.amazonaws.com", "/bucket/prod/blobs/5f0c1d2e-aa",
         [], [], b"ciphertext bytes", "eu-west-1", 1_780_000_123, "https"),
    case("start multipart", "POST", "127.0.0.1:7480", "/strongroom/blobs/abc", [("uploads", None)], [], b"",
         "us-east-1", 1_764_000_001),
    case("upload part", "PUT", "127.0.0.1:7480", "/strongroom/blobs/abc",
         [("uploadId", "2~Xy/z+=q"), ("partNumber", "10")], [], b"\x00" * 1000, "us-east-1", 1_764_000_002),
    case("list uploads", "GET", "[::1]:9000", "/strongroom",
         [("uploads", None), ("prefix", "a b/blobs/"), ("max-uploads", "1000"), ("key-marker", "k~é")], [],
         b"", "us-east-1", 1_764_000_003),
    case("signed extra header", "PUT", "127.0.0.1:7480", "/strongroom/odd key (1)", [],
         [("Content-Type", "application/octet-stream")], b"x", "us-east-1", 1_764_000_004),
]
print(json.dumps({"generator": f"botocore {botocore.__version__} S3SigV4Auth",
                  "accessKeyID": "AKIDEXAMPLE", "secretAccessKey": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                  "cases": cases}, indent=1, ensure_ascii=False))
