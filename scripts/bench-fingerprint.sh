#!/bin/sh
# Time the source fingerprint on a generated tree (issue 4's figures):
# cold (no stat cache) against `git ls-files -z | xargs -0 sha256sum`, and
# warm (cache present, nothing changed) against cold; for reference, warm
# plus the task's touched paths (baseline HEAD: a full status) and `git status`.
#
#   scripts/bench-fingerprint.sh [DIR]      (default /tmp/gate-fp-bench)
#
# FILES (20000) files of 1–7 KiB in 200 directories are generated once in
# DIR/repo and committed. The fingerprint runs in the release build of the
# integration test binary (its ignored `bench_driver` test), so each timed
# command is a whole process, like `gate verify` would be; `overhead` times
# that process doing nothing. hyperfine runs ROUNDS (6) rounds of RUNS (5)
# runs per command, the commands taking turns, and the medians over all runs
# are printed with their ratios. Needs git, hyperfine and python3.
set -eu

dir=${1:-/tmp/gate-fp-bench}
files=${FILES:-20000}
rounds=${ROUNDS:-6}
runs=${RUNS:-5}
repo=$dir/repo
cache=$dir/cache
cd "$(dirname "$0")/.."

if [ ! -d "$repo/.git" ]; then
    mkdir -p "$repo"
    python3 - "$repo" "$files" <<'EOF'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(4)
alphabet = b"abcdefghijklmnopqrstuvwxyz      \n{}();=+-0123456789"
for i in range(n):
    d = os.path.join(root, "src", f"d{i % 200:03}")
    os.makedirs(d, exist_ok=True)
    size = rng.randint(1024, 7 * 1024)
    with open(os.path.join(d, f"f{i:05}.rs"), "wb") as f:
        f.write(bytes(rng.choice(alphabet) for _ in range(size)))
EOF
    git -C "$repo" init -q -b main
    git -C "$repo" add -A
    git -C "$repo" -c user.name=bench -c user.email=bench@example.com commit -q -m tree
fi

bin=$(cargo test --release --test integration --no-run 2>&1 |
    sed -n 's/.*(\(target\/release\/deps\/integration-[0-9a-f]*\)).*/\1/p')
[ -x "$bin" ] || { echo "no release test binary" >&2; exit 1; }
bin=$(pwd)/$bin
driver="$bin fingerprint::bench_driver --ignored --exact --quiet --nocapture"
export GATE_BENCH_REPO="$repo" GATE_BENCH_SOURCES=src GATE_BENCH_CACHE="$cache"
head=$(git -C "$repo" rev-parse HEAD)

echo "tree: $(git -C "$repo" ls-files | wc -l) files, $(du -sh --apparent-size "$repo/src" | cut -f1)"
rm -rf "$cache"; (cd "$repo" && $driver) | grep -o 'Stats.*'
(cd "$repo" && $driver) | grep -o 'Stats.*'
/usr/bin/time -f 'peak RSS cold: %M KiB' sh -c "rm -rf '$cache'; cd '$repo' && $driver >/dev/null"
/usr/bin/time -f 'peak RSS warm: %M KiB' sh -c "cd '$repo' && $driver >/dev/null"

out=$(mktemp -d)
i=0
while [ "$i" -lt "$rounds" ]; do
    # One --prepare and one -n per command, in order: only cold drops the cache.
    (cd "$repo" && hyperfine --style none --runs "$runs" --warmup 1 \
        --export-json "$out/$i.json" \
        -n sha256sum -n cold -n warm -n warm+touched -n "git status" -n overhead \
        --prepare true --prepare "rm -rf '$cache'" \
        --prepare true --prepare true --prepare true --prepare true \
        "git ls-files -z | xargs -0 sha256sum >/dev/null" \
        "$driver" "$driver" "env GATE_BENCH_BASELINE=$head $driver" \
        "git status --porcelain >/dev/null" \
        "env -u GATE_BENCH_REPO $driver" >/dev/null 2>&1)
    i=$((i + 1))
done
python3 - "$out" <<'EOF'
import json, os, statistics, sys
times = {}
for name in sorted(os.listdir(sys.argv[1])):
    for r in json.load(open(os.path.join(sys.argv[1], name)))["results"]:
        times.setdefault(r["command"], []).extend(r["times"])
med = {k: statistics.median(v) * 1000 for k, v in times.items()}
for k, v in med.items():
    print(f"{k:13} median {v:8.1f} ms  ({len(times[k])} runs)")
print(f"cold / sha256sum = {med['cold'] / med['sha256sum']:.2f}")
print(f"warm / cold      = {med['warm'] / med['cold']:.2f}")
print(f"warm / sha256sum = {med['warm'] / med['sha256sum']:.2f}")
EOF
rm -rf "$out"
