#!/bin/sh
# Build gate from this checkout and install it; then say what was installed
# (the binary's path and version) and what to do next.
#
#   ./install.sh                  install into cargo's bin directory (~/.cargo/bin)
#   ./install.sh --prefix DIR     install into DIR/bin (or set PREFIX=DIR)
#
# Safe to run again: cargo replaces the binary only when the source changed.
set -eu
# PATH as the user has it, before cargo's directory is added below.
user_path=$PATH

prefix=${PREFIX:-}
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }
              prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "install.sh: unknown argument: $1 (try --help)" >&2; exit 2 ;;
  esac
done

cd "$(dirname -- "$0")"

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
then open a new shell (or `. "$HOME/.cargo/env"`) and run ./install.sh again.
MSG
  exit 1
fi

if [ -n "$prefix" ]; then
  mkdir -p "$prefix"
  prefix=$(cd "$prefix" && pwd)
  bin="$prefix/bin/gate"
else
  bin="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin/gate"
fi

# On Linux with glibc, a statically linked, non-PIE binary starts about
# 0.4 ms faster — which a hook pays on every commit (docs/performance.md).
# When that build is not possible here, the usual dynamic one is made.
host=$(rustc -vV 2>/dev/null | sed -n 's/^host: //p')
built=0
case $host in
  *-linux-gnu)
    echo "building a static binary for $host"
    if RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static" \
       cargo install --locked --path . --target "$host" ${prefix:+--root "$prefix"}; then
      built=1
    else
      echo "install.sh: the static build failed; building the usual dynamic binary" >&2
    fi
    ;;
esac
if [ $built = 0 ]; then
  cargo install --locked --path . ${prefix:+--root "$prefix"}
fi

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
