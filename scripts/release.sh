#!/bin/sh
# Make gate's release artifacts for one platform (docs/install.md,
# "Releases"): the binary in an archive with install.sh, its checksums,
# and the npm packages; with --wheel, the Python wheel too. The release
# workflow (.github/workflows/release.yml) runs this on each platform; here
# it makes the Linux x86_64 ones.
#
#   scripts/release.sh --out DIR [--binary FILE --target TRIPLE] [--wheel]
#
# Without --binary it builds gate as install.sh does (a release build; on
# Linux with glibc statically linked and non-PIE) for this machine's target.
# With --binary FILE --target TRIPLE it packs FILE, built for TRIPLE.
# Writes into DIR:
#   gate-VERSION-TRIPLE.tar.gz   gate, gate.sha256, install.sh, README.md and
#                                the licences, under gate-VERSION-TRIPLE/
#   npm/                         the npm tarballs (packaging/npm/pack.sh)
#   wheels/                      with --wheel: maturin's wheel for this machine
#   SHA256SUMS                   every file above (`sha256sum -c` reads it)
set -eu

out= binary= target= wheel=0
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    --wheel) wheel=1; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "release.sh: unknown argument: $1 (try --help)" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "release.sh: --out DIR is required" >&2; exit 2; }
if [ -n "$binary" ] && [ -z "$target" ]; then
  echo "release.sh: --binary needs --target TRIPLE (the target it was built for)" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)
[ -n "$version" ] || { echo "release.sh: no version in Cargo.toml" >&2; exit 1; }

if [ -z "$binary" ]; then
  target=$(rustc -vV | sed -n 's/^host: //p')
  flags=${RUSTFLAGS:-}
  case $target in
    # The hooks' functions first in the text (decision 0033), where Rust
    # links with its own lld.
    x86_64-unknown-linux-gnu) flags="$flags -C target-feature=+crt-static -C relocation-model=static -C link-arg=-Wl,-T,$root/link/hot-text.ld" ;;
    *-linux-gnu) flags="$flags -C target-feature=+crt-static -C relocation-model=static" ;;
    # No Visual C++ runtime to install beside it.
    *-windows-msvc) flags="$flags -C target-feature=+crt-static" ;;
  esac
  echo "building gate $version for $target"
  (cd "$root" && RUSTFLAGS=$flags cargo build --release --locked --target "$target")
  binary=$root/target/$target/release/gate
  case $target in *-windows-*) binary=$binary.exe ;; esac
fi
[ -x "$binary" ] || { echo "release.sh: $binary is not an executable" >&2; exit 1; }
said=$("$binary" --version)
[ "$said" = "gate $version" ] || {
  echo "release.sh: $binary says \"$said\", not gate $version" >&2
  exit 1
}

sum() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"
  else shasum -a 256 "$@"
  fi
}

name=gate-$version-$target
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
exe=gate
case $target in *-windows-*) exe=gate.exe ;; esac
cp "$binary" "$stage/$name/$exe"
chmod 755 "$stage/$name/$exe"
(cd "$stage/$name" && sum "$exe" > "$exe.sha256")
cp "$root/install.sh" "$root/README.md" "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$stage/$name/"
# With GNU tar, reproducible: fixed owner, order and dates (the last
# commit's); bsdtar (macOS) has no such options and packs as it finds.
stamp=$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
  (cd "$stage" && tar --sort=name --owner=0 --group=0 --numeric-owner \
    --mtime="@$stamp" -cf - "$name" | gzip -n > "$out/$name.tar.gz")
else
  (cd "$stage" && tar -cf - "$name" | gzip -n > "$out/$name.tar.gz")
fi

"$root/packaging/npm/pack.sh" --binary "$binary" --target "$target" --out "$out/npm" >/dev/null

if [ $wheel = 1 ]; then
  command -v maturin >/dev/null 2>&1 || { echo "release.sh: --wheel needs maturin (pip install maturin)" >&2; exit 1; }
  (cd "$root" && maturin build --release --locked --out "$out/wheels")
fi

(cd "$out" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort | while read -r f; do sum "$f"; done > SHA256SUMS)
echo "gate $version for $target, in $out:"
sed 's/^/  /' "$out/SHA256SUMS"
