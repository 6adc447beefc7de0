#!/bin/sh
# Pack gate's npm packages (docs/install.md, "npm"): the thin `git-gate`
# package, whose `gate` runs the binary of the platform package npm
# installs beside it, and one platform package `@git-gate/<os>-<cpu>`
# holding BINARY. The version is Cargo.toml's; both tarballs go to OUT.
#
#   packaging/npm/pack.sh --binary PATH --target TRIPLE --out DIR
#
# TRIPLE is the binary's Rust target (x86_64-unknown-linux-musl,
# aarch64-apple-darwin, …); it names the platform package as npm names
# platforms (process.platform, process.arch).
set -eu

binary= target= out=
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "pack.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$binary" ] && [ -n "$target" ] && [ -n "$out" ] || {
  echo "usage: pack.sh --binary PATH --target TRIPLE --out DIR" >&2
  exit 2
}
[ -x "$binary" ] || { echo "pack.sh: $binary is not an executable" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)
[ -n "$version" ] || { echo "pack.sh: no version in Cargo.toml" >&2; exit 2; }

case "$target" in
  x86_64-*) cpu=x64 ;;
  aarch64-*) cpu=arm64 ;;
  *) echo "pack.sh: no npm cpu for $target" >&2; exit 2 ;;
esac
case "$target" in
  *-linux-*) os=linux ;;
  *-apple-darwin) os=darwin ;;
  *-windows-*) os=win32 ;;
  *) echo "pack.sh: no npm os for $target" >&2; exit 2 ;;
esac
exe=gate
[ "$os" = win32 ] && exe=gate.exe

mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The thin package, its version and its platform packages' versions
# Cargo.toml's.
cp -R "$here/git-gate" "$work/git-gate"
sed "s/\"0\.1\.0\"/\"$version\"/g" "$here/git-gate/package.json" > "$work/git-gate/package.json"
grep -q "\"@git-gate/$os-$cpu\"" "$work/git-gate/package.json" || {
  echo "pack.sh: git-gate does not list @git-gate/$os-$cpu" >&2
  exit 2
}

# The platform package.
mkdir -p "$work/platform/bin"
cp "$binary" "$work/platform/bin/$exe"
chmod 755 "$work/platform/bin/$exe"
cat > "$work/platform/package.json" <<JSON
{
  "name": "@git-gate/$os-$cpu",
  "version": "$version",
  "description": "The gate binary for $os $cpu (git-gate)",
  "license": "MIT OR Apache-2.0",
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin/$exe"],
  "preferUnplugged": true
}
JSON
cp "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$work/git-gate/"
cp "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$work/platform/"

(cd "$work/git-gate" && npm pack --silent --pack-destination "$out" >/dev/null)
(cd "$work/platform" && npm pack --silent --pack-destination "$out" >/dev/null)
ls "$out"/git-gate-"$version".tgz "$out"/git-gate-"$os"-"$cpu"-"$version".tgz
