#!/bin/sh
# Install gate, then say what was installed (the binary's path and version)
# and what to do next. A prebuilt binary is preferred when one is given or
# sits beside this script (a release archive); otherwise gate is built from
# this checkout.
#
#   ./install.sh                  install into cargo's bin directory (~/.cargo/bin)
#   ./install.sh --prefix DIR     install into DIR/bin (or set PREFIX=DIR)
#   ./install.sh --binary FILE    install the prebuilt FILE instead of building
#                                 (or set GATE_BINARY=FILE); its SHA-256 is
#                                 checked against --sha256 HEX, or FILE.sha256
#                                 (`sha256sum` format) when that exists
#   ./install.sh --source         build from this checkout even beside a binary
#
# Safe to run again: cargo replaces the binary only when the source changed.
set -eu
# PATH as the user has it, before cargo's directory is added below.
user_path=$PATH

prefix=${PREFIX:-}
binary=${GATE_BINARY:-}
sha256=""
source_only=0
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }
              prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --binary) [ $# -ge 2 ] || { echo "install.sh: --binary needs a file" >&2; exit 2; }
              binary=$2; shift 2 ;;
    --binary=*) binary=${1#--binary=}; shift ;;
    --sha256) [ $# -ge 2 ] || { echo "install.sh: --sha256 needs a hex digest" >&2; exit 2; }
              sha256=$2; shift 2 ;;
    --sha256=*) sha256=${1#--sha256=}; shift ;;
    --source) source_only=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "install.sh: unknown argument: $1 (try --help)" >&2; exit 2 ;;
  esac
done
# Under Git for Windows' sh (MSYS2) or Cygwin the binary is gate.exe
# (docs/platforms.md).
exe=gate
case $(uname -s 2>/dev/null) in MINGW*|MSYS*|CYGWIN*) exe=gate.exe ;; esac

case $binary in
  ''|/*) ;;
  *) binary=$(pwd)/$binary ;;
esac
cd "$(dirname -- "$0")"

# A release archive holds the binary beside this script, and no sources.
if [ -z "$binary" ] && [ $source_only = 0 ] && [ -f "$exe" ] && [ ! -f Cargo.toml ]; then
  binary=$(pwd)/$exe
  echo "found a prebuilt binary beside install.sh: $binary"
fi

if [ -n "$prefix" ]; then
  mkdir -p "$prefix"
  prefix=$(cd "$prefix" && pwd)
fi

# The SHA-256 of a file, with whichever tool this system has.
digest() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 "$1" | sed 's/.*= //'
  else
    echo "install.sh: no sha256sum, shasum or openssl here to check $1 with: not installed" >&2
    exit 1
  fi
}

if [ -n "$binary" ] && [ $source_only = 0 ]; then
  [ -f "$binary" ] || { echo "install.sh: no file at $binary (--binary)" >&2; exit 1; }
  if [ -z "$sha256" ] && [ -f "$binary.sha256" ]; then
    sha256=$(cut -d' ' -f1 < "$binary.sha256")
  fi
  if [ -n "$sha256" ]; then
    got=$(digest "$binary") || exit 1
    want=$(printf '%s' "$sha256" | tr 'A-F' 'a-f')
    if [ "$got" != "$want" ]; then
      echo "install.sh: $binary does not match its checksum (SHA-256 $got, expected $want): not installed" >&2
      exit 1
    fi
    echo "checksum verified: SHA-256 $got"
  else
    echo "note: no checksum for $binary (--sha256 HEX, or $binary.sha256): installed unverified" >&2
  fi
  version=$("$binary" --version 2>&1) || {
    echo "install.sh: $binary does not run here: $version" >&2
    echo "  (a binary for another platform?) run ./install.sh --source in a checkout to build one" >&2
    exit 1
  }
  case $version in
    "gate "*) ;;
    *) echo "install.sh: $binary is not gate: it says \"$version\"" >&2; exit 1 ;;
  esac
  dir=${prefix:+$prefix/bin}
  dir=${dir:-${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin}
  mkdir -p "$dir"
  bin="$dir/$exe"
  # Beside the old one, then renamed over it: a running gate keeps its file.
  tmp="$dir/.gate.install.$$"
  trap 'rm -f "$tmp"' EXIT
  cp "$binary" "$tmp"
  chmod 755 "$tmp"
  mv -f "$tmp" "$bin"
  trap - EXIT
  echo "installed the prebuilt binary (no build): $bin"
  built=prebuilt
fi

# From source: a release build of this checkout with cargo.
build() {
  if [ ! -f Cargo.toml ]; then
    echo "install.sh: no sources here to build from, and no binary given (--binary FILE)" >&2
    exit 1
  fi
  if ! command -v cargo >/dev/null 2>&1; then
    for c in "$HOME/.cargo/bin/cargo"; do
      [ -x "$c" ] && PATH="$HOME/.cargo/bin:$PATH" && export PATH
    done
  fi
  if ! command -v cargo >/dev/null 2>&1; then
    cat >&2 <<'MSG'
install.sh: cargo is not installed, and gate is built from source with it.
Install the Rust toolchain (Rust 1.89 or newer) from https://rustup.rs:
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh
then open a new shell (or `. "$HOME/.cargo/env"`) and run ./install.sh again,
or install a prebuilt binary: ./install.sh --binary FILE
MSG
    exit 1
  fi
  if [ -n "$prefix" ]; then
    bin="$prefix/bin/$exe"
  else
    bin="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin/$exe"
  fi
  # On Linux with glibc, a statically linked, non-PIE binary starts about
  # 0.4 ms faster — which a hook pays on every commit (docs/performance.md).
  # On x86_64, where Rust links with its own lld (1.90 on), the functions
  # the hooks run go first in the text (link/hot-text.ld, decision 0033):
  # another 0.3 ms. When a build is not possible here, the next is made:
  # static without that layout, then the usual dynamic one.
  host=$(rustc -vV 2>/dev/null | sed -n 's/^host: //p')
  minor=$(rustc -vV 2>/dev/null | sed -n 's/^release: 1\.\([0-9]*\)\..*/\1/p')
  static_flags="-C target-feature=+crt-static -C relocation-model=static"
  hot_flags="-C link-arg=-Wl,-T,$(pwd -P)/link/hot-text.ld"
  static=0
  case $host in
    *-linux-gnu)
      echo "building a static binary for $host"
      # (RUSTFLAGS splits on spaces: a checkout whose path has one skips it.)
      if [ "$host" = x86_64-unknown-linux-gnu ] && [ "${minor:-0}" -ge 90 ] && [ -f link/hot-text.ld ] &&
         case $(pwd -P) in *" "*) false ;; *) true ;; esac; then
        if RUSTFLAGS="${RUSTFLAGS:-} $static_flags $hot_flags" \
           cargo install --locked --path . --target "$host" ${prefix:+--root "$prefix"}; then
          static=1
        else
          echo "install.sh: the build with the hooks' functions first failed; building without that layout" >&2
        fi
      fi
      if [ $static = 0 ]; then
        if RUSTFLAGS="${RUSTFLAGS:-} $static_flags" \
           cargo install --locked --path . --target "$host" ${prefix:+--root "$prefix"}; then
          static=1
        else
          echo "install.sh: the static build failed; building the usual dynamic binary" >&2
        fi
      fi
      ;;
  esac
  if [ $static = 0 ]; then
    cargo install --locked --path . ${prefix:+--root "$prefix"}
  fi
}
[ "${built:-}" = prebuilt ] || build

if [ ! -x "$bin" ]; then
  echo "install.sh: cargo finished but $bin is missing" >&2
  exit 1
fi
version=$("$bin" --version 2>&1) || {
  echo "install.sh: $bin was installed but does not run: $version" >&2
  exit 1
}
echo "installed: $bin ($version)"
case ":$user_path:" in
  *":$(dirname -- "$bin"):"*)
    found=$(PATH=$user_path command -v gate 2>/dev/null || :)
    if [ -n "$found" ] && [ "$found" != "$bin" ]; then
      echo "note: \`gate\` on PATH is $found, found before $bin; call this one by its full path, or put $(dirname -- "$bin") first"
    fi
    ;;
  *) echo "note: $(dirname -- "$bin") is not on PATH; add it, or call gate by its full path" ;;
esac

# What next: gate judges work in a repository that adopted it, and this
# checkout's own work has no task here, so nothing is checked now.
cat <<'NEXT'

next, in the repository gate is to govern (README.md, "Adopt it in five minutes"):
  gate init                # .gate/policy.yaml (every check advisory), an example .gate/plan.yaml
  gate plan validate       # once .gate/plan.yaml holds your intent, its checks, your issues
  git add .gate && git commit -m "Adopt gate"
  gate install             # the git hooks; hooks already there keep running first
  gate doctor              # the hooks, the policy, the plan: each fault with its remedy
then, for each piece of work, a task with the operator's request on stdin:
  echo "Add CSV export to the report page." | gate start --issue N --brief -
NEXT
