#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Regenerates the PKCS#12 fixtures with OpenSSL 3: a throw-away CA, an EC (P-256) and an RSA-2048 client
# certificate, each exported three ways (OpenSSL's default, -legacy, -macalg sha512). Passphrase: "fixture pass".
# The tests import every file and check the key matches the certificate and the chain holds the CA.
set -euo pipefail
cd "$(dirname "$0")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/ca.key" -out ca.pem \
    -subj "/CN=Strongroom fixture CA" -days 36500 2>/dev/null
for kind in ec rsa; do
    if [ "$kind" = ec ]; then
        openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/$kind.key" 2>/dev/null
    else
        openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/$kind.key" 2>/dev/null
    fi
    openssl req -new -key "$work/$kind.key" -subj "/CN=fixture $kind client" -out "$work/$kind.csr"
    printf "extendedKeyUsage=clientAuth\nsubjectAltName=URI:urn:strongroom:client:fixture-%s\n" "$kind" > "$work/ext"
    openssl x509 -req -in "$work/$kind.csr" -CA ca.pem -CAkey "$work/ca.key" -CAcreateserial -days 36500 \
        -extfile "$work/ext" -out "$work/$kind.pem" 2>/dev/null
    common=(-export -inkey "$work/$kind.key" -in "$work/$kind.pem" -certfile ca.pem -passout "pass:fixture pass")
    openssl pkcs12 "${common[@]}" -out "$kind-default.p12"
    openssl pkcs12 "${common[@]}" -legacy -out "$kind-legacy.p12"
    openssl pkcs12 "${common[@]}" -macalg sha512 -out "$kind-sha512.p12"
done
rm -f ca.srl
