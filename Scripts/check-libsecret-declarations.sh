#!/usr/bin/env bash
# Compiles Sources/CLibSecret/shim.c against libsecret's and GLib's own headers (libsecret-1-dev), so a hand-declared
# prototype, constant or struct layout that differs from theirs is a compile error. The package itself does not use
# those headers: their pkg-config flags carry -pthread, which SwiftPM refuses in a package others depend on.
# Usage: Scripts/check-libsecret-declarations.sh   (exit 0: the declarations match)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
compiler="${CC:-clang}"
command -v "$compiler" >/dev/null || compiler=cc
# shellcheck disable=SC2046 # pkg-config prints several flags
"$compiler" -std=c11 -fsyntax-only -Werror -DSTRONGROOM_CHECK_AGAINST_LIBSECRET \
    -I "$root/Sources/CLibSecret/include" $(pkg-config --cflags libsecret-1) "$root/Sources/CLibSecret/shim.c"
echo "CLibSecret's declarations match libsecret $(pkg-config --modversion libsecret-1) and GLib $(pkg-config --modversion glib-2.0)"
