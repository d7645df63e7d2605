#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Writes crl-openssl.pem: a revocation list made by OpenSSL's `ca` with the fixture CA (crl-ca.pem / crl-ca.key),
# revoking two certificates (serials 0x1001 with reason keyCompromise, 0x2002 without one), CRL number 0x10,
# nextUpdate in 2126 (GeneralizedTime). RevocationListTests reads it; run again only to replace it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
touch index.txt
echo 10 > crlnumber
cat > ca.cnf <<CNF
[ca]
default_ca = fixture
[fixture]
database = $work/index.txt
crlnumber = $work/crlnumber
default_md = sha256
default_crl_days = 36500
crl_extensions = crl_ext
[crl_ext]
authorityKeyIdentifier = keyid:always
CNF
for serial in 1001 2002; do
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "leaf-$serial.key" \
        -subj "/CN=leaf $serial" -out "leaf-$serial.csr" 2>/dev/null
    openssl x509 -req -in "leaf-$serial.csr" -CA "$here/crl-ca.pem" -CAkey "$here/crl-ca.key" \
        -set_serial "0x$serial" -days 3650 -out "leaf-$serial.pem" 2>/dev/null
done
openssl ca -config ca.cnf -keyfile "$here/crl-ca.key" -cert "$here/crl-ca.pem" -revoke leaf-1001.pem \
    -crl_reason keyCompromise 2>/dev/null
openssl ca -config ca.cnf -keyfile "$here/crl-ca.key" -cert "$here/crl-ca.pem" -revoke leaf-2002.pem 2>/dev/null
openssl ca -config ca.cnf -keyfile "$here/crl-ca.key" -cert "$here/crl-ca.pem" -gencrl \
    -out "$here/crl-openssl.pem" 2>/dev/null
openssl crl -in "$here/crl-openssl.pem" -noout -text
