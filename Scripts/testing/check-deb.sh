#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Checks a package from Scripts/package-deb.sh: its metadata and contents, lintian's verdict (installed on demand
# when this runs as root), then installs it into a scratch root and runs it from there: both executables' --help and
# --version without the Swift runtime, the man pages and completions, the systemd unit and sysusers file as systemd
# reads them, and a server started from the package that the packaged CLI registers with and writes to.
#
#   Scripts/testing/check-deb.sh path/to/strongroom_<version>_<arch>.deb
set -euo pipefail
deb="$(readlink -f "${1:?usage: $0 DEB}")"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/strongroom-deb-check.XXXXXX")"
server=""
cleanup() {
    [[ -n "$server" ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    rm -rf "$scratch"
}
trap cleanup EXIT
fail() { echo "check-deb: $*" >&2; exit 1; }

info="$(dpkg-deb --info "$deb")"
for field in "Package: strongroom" "Version: " "Architecture: " "Depends: " "libsodium"; do
    grep -q "$field" <<<"$info" || fail "control lacks $field"
done
grep -q "libswift" <<<"$info" && fail "the package depends on a Swift runtime package"
contents="$(dpkg-deb --contents "$deb" | awk '{print $6}')"
for path in ./usr/bin/strongroom ./usr/bin/strongroom-server ./usr/share/man/man1/strongroom.1.gz \
    ./usr/share/man/man1/strongroom-server.1.gz ./usr/share/man/man1/strongroom-server.serve.1.gz \
    ./usr/share/bash-completion/completions/strongroom ./usr/share/zsh/vendor-completions/_strongroom-server \
    ./usr/share/fish/vendor_completions.d/strongroom.fish ./lib/systemd/system/strongroom-server.service \
    ./usr/lib/sysusers.d/strongroom.conf ./etc/default/strongroom-server ./usr/share/doc/strongroom/copyright; do
    grep -qx "$path" <<<"$contents" || fail "the package lacks $path"
done
[[ "$(dpkg-deb --field "$deb" Package)" == strongroom ]] || fail "wrong package name"
# The configuration file may hold the token key: never readable by others, in the package and after postinst.
mode="$(dpkg-deb --contents "$deb" | awk '$6 == "./etc/default/strongroom-server" {print $1}')"
[[ "$mode" == "-rw-r-----" ]] || fail "/etc/default/strongroom-server is packaged $mode, not -rw-r-----"
grep -q conffiles <<<"$(dpkg-deb --ctrl-tarfile "$deb" | tar -tf -)" || fail "no conffiles"

if ! command -v lintian >/dev/null && [[ "$(id -u)" == 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends lintian >/dev/null 2>&1 || true
fi
if command -v lintian >/dev/null; then
    # Errors fail the check; warnings are printed. Suppressed: embedded-library (zlib inside the statically linked
    # Swift Foundation: linking the Swift runtime statically is the point of the package).
    lintian --fail-on error --tag-display-limit 0 \
        --suppress-tags embedded-library \
        "$deb" || fail "lintian reports errors"
else
    echo "check-deb: lintian is not installed; skipped"
fi

# Installed into a scratch root (dpkg's own unpacking; maintainer scripts are checked for syntax, not run).
root="$scratch/root"
dpkg-deb --extract "$deb" "$root"
dpkg-deb --control "$deb" "$scratch/control"
for script in postinst postrm; do sh -n "$scratch/control/$script" || fail "$script does not parse"; done
grep -q "chmod 0640 /etc/default/strongroom-server" "$scratch/control/postinst" \
    || fail "postinst does not keep the configuration file private"
grep -q "^Environment=STRONGROOM_ENVIRONMENT_FILE=/etc/default/strongroom-server" \
    "$root/lib/systemd/system/strongroom-server.service" || fail "the unit does not name its environment file"
for product in strongroom strongroom-server; do
    executable="$root/usr/bin/$product"
    grep -q libswift <<<"$(ldd "$executable")" && fail "$product loads the Swift runtime dynamically"
    "$executable" --help >/dev/null || fail "$product --help failed"
    [[ "$("$executable" --version)" == "$(dpkg-deb --field "$deb" Version)" ]] || fail "$product --version differs"
    bash -n "$root/usr/share/bash-completion/completions/$product" || fail "bash completion of $product"
done
gzip -t "$root"/usr/share/man/man1/*.gz
grep -q "data-directory" <<<"$(zcat "$root/usr/share/man/man1/strongroom-server.serve.1.gz")" \
    || fail "the serve man page lacks its options"
if command -v systemd-analyze >/dev/null; then
    # The unit as systemd parses it, with ExecStart pointed into the scratch root (verify checks the binary).
    unit="$scratch/strongroom-server.service"
    sed "s|/usr/bin/strongroom-server|$root/usr/bin/strongroom-server|" \
        "$root/lib/systemd/system/strongroom-server.service" > "$unit"
    verdict="$(systemd-analyze verify --man=no "$unit" 2>&1 || true)"
    grep -Ei "unknown|invalid|failed to parse|not executable|ignoring" <<<"$verdict" && fail "systemd rejects the unit"
    # The exposure score systemd gives its hardening (lower is better; informative).
    systemd-analyze security --offline=true "$unit" 2>/dev/null | tail -1 || true
fi
if command -v systemd-sysusers >/dev/null; then
    users="$(systemd-sysusers --root="$root" --dry-run 2>&1 || true)"
    grep -q "Creating user 'strongroom'" <<<"$users" || fail "sysusers does not create strongroom: $users"
fi

# A token key from an environment file others can read is refused before anything is created (as the packaged unit
# passes it: the file's variables and STRONGROOM_ENVIRONMENT_FILE naming it).
cp "$root/etc/default/strongroom-server" "$scratch/environment"
chmod 0644 "$scratch/environment"
if STRONGROOM_ENVIRONMENT_FILE="$scratch/environment" STRONGROOM_TOKEN_KEY="$(head -c 32 /dev/urandom | base64 -w0 \
    | tr '+/' '-_' | tr -d '=')" "$root/usr/bin/strongroom-server" serve --data-directory "$scratch/refused" \
    --port 0 >"$scratch/refused.log" 2>&1; then
    fail "the server started with a token key from a world-readable environment file"
fi
grep -q "every user of this machine can read" "$scratch/refused.log" || { cat "$scratch/refused.log" >&2; fail "no reason given"; }
[[ ! -e "$scratch/refused" ]] || fail "a refused start created its data directory"

# The packaged server, with the packaged CLI as its client.
data="$scratch/data"
"$root/usr/bin/strongroom-server" serve --data-directory "$data" --port 0 --port-file "$scratch/port" \
    --registration-token check-deb-token >"$scratch/server.log" 2>&1 &
server=$!
for _ in $(seq 600); do [[ -s "$scratch/port" ]] && break; sleep 0.1; done
[[ -s "$scratch/port" ]] || { cat "$scratch/server.log" >&2; fail "the packaged server did not start"; }
url="http://127.0.0.1:$(cat "$scratch/port")"
export STRONGROOM_HOME="$scratch/profiles" HOME="$scratch"
"$root/usr/bin/strongroom" register --token check-deb-token --url "$url" >/dev/null
id="$("$root/usr/bin/strongroom" write --type check "body=from the package")"
[[ "$("$root/usr/bin/strongroom" read "$id")" == "body=from the package" ]] || fail "the packaged CLI read back wrong"
echo "check-deb: $(basename "$deb") ok ($(du -h "$deb" | cut -f1); $(grep -c . <<<"$contents") paths)"
