#!/usr/bin/env bash
# Install the external verifiers Baton's adapters drive:
#   * AFL++ (Debian bookworm package `afl++`) plus clang and the 32-bit C libraries;
#   * CBMC 6.x from Debian trixie's `cbmc` package, unpacked into PREFIX/root together with
#     trixie's C/C++ runtime (CBMC 6 needs glibc >= 2.38; bookworm has 2.36). Wrappers in
#     PREFIX/bin start the tools through trixie's own dynamic loader, so the system libc is
#     never touched.
# The Debian mirror trixie's packages come from is the one the machine's own apt sources use
# for its Debian archive (the first enabled `deb` source that is not a -security suite, in
# APT_ETC/sources.list.d/*.sources, then APT_ETC/sources.list and APT_ETC/sources.list.d/*.list);
# BATON_DEBIAN_MIRROR overrides it, BATON_APT_ETC names another apt configuration directory
# (default /etc/apt).
# Usage: scripts/install-tools.sh [PREFIX]   (default /opt/baton-tools; idempotent; needs root)
#        scripts/install-tools.sh --print-mirror   (prints the mirror it would use)
set -euo pipefail

APT_ETC="${BATON_APT_ETC:-/etc/apt}"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
TOOLS=(cbmc goto-cc goto-instrument)

say() { printf '[install-tools] %s\n' "$*"; }

# The URI of the Debian archive in the machine's apt sources (see above), or nothing.
apt_sources_mirror() {
    local f
    for f in "$APT_ETC"/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        # deb822 stanzas (separated by blank lines): Types, URIs, Suites, Enabled.
        awk 'BEGIN { RS = ""; FS = "\n" }
        {
            types = ""; uris = ""; suites = ""; enabled = "yes"
            for (i = 1; i <= NF; i++) {
                line = $i
                if (line ~ /^[ \t]*#/ || index(line, ":") == 0) continue
                key = tolower(substr(line, 1, index(line, ":") - 1))
                val = substr(line, index(line, ":") + 1)
                gsub(/^[ \t]+|[ \t]+$/, "", val)
                if (key == "types") types = val
                else if (key == "uris") uris = val
                else if (key == "suites") suites = val
                else if (key == "enabled") enabled = tolower(val)
            }
            if (enabled == "no" || types !~ /(^|[ \t])deb([ \t]|$)/ || uris == "") next
            n = split(suites, s, /[ \t]+/)
            for (j = 1; j <= n; j++) {
                if (s[j] !~ /-security$/) { split(uris, u, /[ \t]+/); print u[1]; exit }
            }
        }' "$f"
    done
    for f in "$APT_ETC/sources.list" "$APT_ETC"/sources.list.d/*.list; do
        [ -r "$f" ] || continue
        # One-line sources: deb [options] URI suite components...
        awk '$1 == "deb" {
            i = 2
            if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
            if (i + 1 <= NF && $(i + 1) !~ /-security$/) { print $i; exit }
        }' "$f"
    done
}

debian_mirror() {
    if [ -n "${BATON_DEBIAN_MIRROR:-}" ]; then
        printf '%s\n' "$BATON_DEBIAN_MIRROR"
        return
    fi
    local mirror
    mirror="$(apt_sources_mirror | head -n 1)"
    if [ -z "$mirror" ]; then
        say "no Debian archive found in the apt sources under $APT_ETC; set BATON_DEBIAN_MIRROR" >&2
        return 1
    fi
    printf '%s\n' "${mirror%/}"
}

if [ "${1:-}" = "--print-mirror" ]; then
    debian_mirror
    exit
fi

PREFIX="${1:-/opt/baton-tools}"
ROOT="$PREFIX/root"
APTDIR="$PREFIX/apt-trixie"

if [ "$(id -u)" -ne 0 ]; then
    say "must run as root (apt-get install)"; exit 1
fi
export DEBIAN_FRONTEND=noninteractive

# --- 1. bookworm packages: AFL++, clang, 32-bit libc ---------------------------------------
BOOKWORM_PKGS=(afl++ libc6-dev-i386 gcc-multilib clang frama-c-base)
missing=()
for p in "${BOOKWORM_PKGS[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
if [ "${#missing[@]}" -gt 0 ]; then
    say "apt-get update (system sources)"
    apt-get update -q
    say "apt-get install -y ${missing[*]}"
    apt-get install -y -q "${missing[@]}"
else
    say "bookworm packages already installed: ${BOOKWORM_PKGS[*]}"
fi

# --- 2. CBMC from trixie, private apt configuration -----------------------------------------
if [ -x "$PREFIX/bin/cbmc" ] && "$PREFIX/bin/cbmc" --version >/dev/null 2>&1; then
    say "CBMC already installed in $PREFIX ($("$PREFIX/bin/cbmc" --version))"
else
    # Start from a clean unpack (a previous attempt may have left other versions behind).
    rm -rf "$ROOT" "$APTDIR/debs"
    mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$APTDIR/debs" "$ROOT" "$PREFIX/bin"
    : > "$APTDIR/status"
    # apt drops privileges to _apt for downloads; let it write the download directory.
    if id _apt >/dev/null 2>&1; then chown _apt "$APTDIR/debs"; fi
    MIRROR="$(debian_mirror)"
    say "Debian mirror: $MIRROR"
    cat > "$APTDIR/trixie.sources" <<SRC
Types: deb
URIs: $MIRROR
Suites: trixie
Components: main
Architectures: amd64
Signed-By: $KEYRING
SRC
    APT_OPTS=(
        -o "Dir::Etc::SourceList=$APTDIR/trixie.sources"
        -o "Dir::Etc::SourceParts=/dev/null"
        -o "Dir::State::Lists=$APTDIR/lists"
        -o "Dir::State::status=$APTDIR/status"
        -o "Dir::Cache=$APTDIR/cache"
        -o "APT::Architecture=amd64"
        -o "APT::Architectures=amd64"
    )
    say "apt-get update (private trixie sources in $APTDIR)"
    apt-get "${APT_OPTS[@]}" update -q
    TRIXIE_PKGS=(cbmc minisat libc6 libstdc++6 libgcc-s1 zlib1g)
    say "apt-get download ${TRIXIE_PKGS[*]}"
    (cd "$APTDIR/debs" && apt-get "${APT_OPTS[@]}" download "${TRIXIE_PKGS[@]}")
    for deb in "$APTDIR"/debs/*.deb; do
        say "dpkg-deb -x $(basename "$deb") $ROOT"
        dpkg-deb -x "$deb" "$ROOT"
    done

    # trixie is merged-/usr: the loader is in usr/lib/x86_64-linux-gnu (older: lib64 / lib).
    LOADER=""
    for cand in "$ROOT/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" \
                "$ROOT/usr/lib64/ld-linux-x86-64.so.2" \
                "$ROOT/lib64/ld-linux-x86-64.so.2" \
                "$ROOT/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"; do
        if [ -e "$cand" ]; then LOADER="$cand"; break; fi
    done
    if [ -z "$LOADER" ]; then say "no ld-linux-x86-64.so.2 found under $ROOT"; exit 1; fi
    say "loader: $LOADER"
    LIBPATH="$ROOT/usr/lib/x86_64-linux-gnu:$ROOT/lib/x86_64-linux-gnu:$ROOT/usr/lib"

    # Any library the tools need that is still missing in ROOT? (check with the private loader)
    for t in "${TOOLS[@]}"; do
        if [ ! -x "$ROOT/usr/bin/$t" ]; then say "missing $ROOT/usr/bin/$t"; exit 1; fi
        notfound="$("$LOADER" --inhibit-cache --library-path "$LIBPATH" --list "$ROOT/usr/bin/$t" | grep 'not found' || true)"
        if [ -n "$notfound" ]; then
            say "unresolved libraries for $t:"; printf '%s\n' "$notfound"; exit 1
        fi
    done

    for t in "${TOOLS[@]}"; do
        say "wrapper $PREFIX/bin/$t"
        cat > "$PREFIX/bin/$t" <<WRAP
#!/bin/sh
# Generated by scripts/install-tools.sh: run trixie's $t with trixie's loader and libraries.
exec "$LOADER" --inhibit-cache --library-path "$LIBPATH" "$ROOT/usr/bin/$t" "\$@"
WRAP
        chmod 755 "$PREFIX/bin/$t"
    done
fi

# --- 3. verify --------------------------------------------------------------------------------
say "verify: $PREFIX/bin/cbmc --version"
"$PREFIX/bin/cbmc" --version
"$PREFIX/bin/goto-cc" --version | head -n 1
"$PREFIX/bin/goto-instrument" --version | head -n 1
say "verify: afl-clang-fast --version"
afl-clang-fast --version 2>&1 | head -n 1
say "verify: afl-fuzz -h"
afl-fuzz -h 2>&1 | head -n 1 || true
if ! command -v afl-fuzz >/dev/null; then say "afl-fuzz missing"; exit 1; fi
say "done: tools in $PREFIX/bin and $(dirname "$(command -v afl-fuzz)")"
