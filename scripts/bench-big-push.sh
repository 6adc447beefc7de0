#!/bin/sh
# What a push and a `gate verify` cost on a big tree (issue 29; figures in
# docs/performance.md, "A push costs what it pushes"): FILES (30000) files
# of about MEAN (13500) bytes each, ~400 MB, under one check's sources
# (`all`: command `true`, sources `src`), committed and packed; a remote
# that holds that commit; one more commit that edits one file, verified.
#
#   - `git push` of that one commit
#       - with gate's pre-push: its checks, the receipt attached to the tip
#         (its tree fingerprint through the blob cache), refs/notes/gate pushed;
#       - the same with `gate.pushReceipts false` (attach, no notes push);
#       - the same with the blob cache deleted before each run: every blob
#         of the tip read and hashed again, as every push did before it;
#       - with --no-verify (no hook).
#     Before each run the remote's branch goes back one commit and the
#     notes go here and there, so every run attaches and pushes in full.
#   - `gate verify all` (the command `true`): warm (stat cache and blob
#     cache as the last run left them), and with the blob cache deleted
#     before each run (its attach hashes every blob of HEAD, as before);
#     against `git status` (warm) and `git ls-files -z | xargs -0
#     sha256sum` (every byte hashed).
#
#   scripts/bench-big-push.sh [DIR]     (default /tmp/gate-big-push)
#
# GATE: the gate binary to measure (default: built and installed into
# DIR/prefix by ./install.sh). hyperfine (-N: no shell) runs ROUNDS (4)
# rounds of RUNS (3) runs of each command and one warm-up, the order of the
# commands reversed every other round; the tables give the median wall
# time over all runs and the mean user + sys time. The tree is generated
# once in DIR/seed and copied for each run of the script. Needs git,
# hyperfine, python3 and GNU time.
set -eu
W=${1:-/tmp/gate-big-push}
root=$(cd "$(dirname "$0")/.." && pwd)
files=${FILES:-30000}
mean=${MEAN:-13500}
mkdir -p "$W"
if [ -z "${GATE:-}" ]; then
    echo "== building and installing gate as ./install.sh does (into $W/prefix)"
    "$root/install.sh" --prefix "$W/prefix" >"$W/install.log" 2>&1 || { cat "$W/install.log" >&2; exit 1; }
    GATE=$W/prefix/bin/gate
fi
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@example.com

if [ ! -f "$W/seed/.done" ]; then
    rm -rf "$W/seed"; mkdir -p "$W/seed"
    echo "== generating $files files (mean $mean bytes) in $W/seed"
    python3 - "$W/seed" "$files" "$mean" <<'EOF'
import os, random, sys
root, n, mean = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(29)
words = [("".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(rng.randint(2, 10)))).encode()
         for _ in range(5000)]
# A 4 MiB pool of source-like text; each file a slice of it behind its own
# first line, so every blob differs and packs compress as text does.
pool = bytearray()
while len(pool) < 4 << 20:
    line = b" ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))
    pool += b"    " * rng.randint(0, 3) + line + b";\n"
pool = bytes(pool)
for i in range(n):
    d = os.path.join(root, "src", f"d{i % 300:03}", f"e{i % 7}")
    os.makedirs(d, exist_ok=True)
    size = min(int(rng.expovariate(1 / mean)) + 200, len(pool) - 1)
    at = rng.randrange(0, len(pool) - size)
    with open(os.path.join(d, f"f{i:05}.rs"), "wb") as f:
        f.write(b"// file %d\n" % i + pool[at:at + size])
EOF
    cd "$W/seed"
    git init -q -b main
    # One pack, made here: no automatic gc racing the repack below.
    git config gc.auto 0; git config maintenance.auto false
    mkdir -p .gate
    cat > .gate/policy.yaml <<'Y'
version: 1
binding: off
scope: off
provenance:
  mode: off
  merges: refuse
receipts:
  mode: advisory
  max_entries: 100000
  max_bytes: 2147483648
brief:
  mode: off
Y
    cat > .gate/plan.yaml <<'Y'
checks:
  - id: all
    command: "true"
    sources: [src]
Y
    git add -A; git commit -q -m tree
    git repack -adq
    touch .done
fi

rm -rf "$W/dev" "$W/remote.git"
cp -a "$W/seed" "$W/dev"; rm -f "$W/dev/.done"
cd "$W"
git init -q --bare -b main remote.git
cd dev
git remote add origin ../remote.git
git push -q --no-verify origin main
base=$(git rev-parse HEAD)
"$GATE" install >/dev/null
echo "// one more line" >> src/d000/e0/f00000.rs
git commit -q -am "one commit" >/dev/null 2>&1
tip=$(git rev-parse HEAD)
echo "== tree: $(git ls-files src | wc -l) files, $(du -s --apparent-size --block-size=1M src | cut -f1) MB in the work tree, pack $(du -s --block-size=1M .git/objects/pack | cut -f1) MB"
# One run, as /usr/bin/time sees it.
timed() {
    /usr/bin/time -o "$W/time.txt" -f '   %e s wall, %U s user, %S s sys, peak RSS %M KiB' "$@" >/dev/null 2>&1
    cat "$W/time.txt"
}
echo "== first gate verify (no stat cache, no blob cache)"
timed "$GATE" verify all
echo "== second gate verify (both caches warm)"
timed "$GATE" verify all
echo "== gate verify with the blob cache deleted (its attach hashes every blob of HEAD)"
rm -f .git/gate/cache/blobs-sha1.cache
timed "$GATE" verify all

reset="git -C ../remote.git update-ref refs/heads/main $base; git -C ../remote.git update-ref -d refs/notes/gate 2>/dev/null; git update-ref -d refs/notes/gate 2>/dev/null; true"
nocache="rm -f .git/gate/cache/blobs-sha1.cache"
# ROUNDS rounds of RUNS runs per command, the order reversed every other
# round; medians over all runs (wall), means of user + sys.
bench() {
    dir=$W/$1; shift
    python3 - "$dir" "${ROUNDS:-4}" "${RUNS:-3}" "$@" <<'EOF2'
import json, os, statistics, subprocess, sys
out, rounds, runs, name, *spec = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], *sys.argv[5:]
cmds = [tuple(spec[i:i + 3]) for i in range(0, len(spec), 3)]  # (name, prepare, command)
os.makedirs(out, exist_ok=True)
wall, cpu = {}, {}
for r in range(rounds):
    order = cmds if r % 2 == 0 else cmds[::-1]
    args = ["hyperfine", "-N", "--style", "none", "--warmup", "1", "--runs", str(runs),
            "--export-json", f"{out}/{r}.json"]
    for n, prep, cmd in order:
        args += ["-n", n, "--prepare", prep]
    args += [cmd for _, _, cmd in order]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    for res in json.load(open(f"{out}/{r}.json"))["results"]:
        wall.setdefault(res["command"], []).extend(res["times"])
        cpu.setdefault(res["command"], []).append(res["user"] + res["system"])
print(f"| {name} | median | user + sys (mean) | runs |")
print("|---|---|---|---|")
for n, _, _ in cmds:
    print(f"| {n} | {statistics.median(wall[n]) * 1000:.1f} ms | {statistics.mean(cpu[n]) * 1000:.1f} ms | {len(wall[n])} |")
EOF2
}
echo "== load before: $(uptime)"
bench push "\`git push\` of one commit" \
  "pre-push, notes pushed" "sh -c '$reset; git config --unset gate.pushReceipts; true'" "git push -q origin main" \
  "pre-push, gate.pushReceipts false" "sh -c '$reset; git config gate.pushReceipts false'" "git push -q origin main" \
  "pre-push, notes pushed, blob cache deleted" "sh -c '$reset; git config --unset gate.pushReceipts; $nocache'" "git push -q origin main" \
  "no hook (--no-verify)" "sh -c '$reset'" "git push -q --no-verify origin main"
echo "== load: $(uptime)"
git config --unset gate.pushReceipts || true
bench verify "whole tree, warm" \
  "gate verify all" "true" "$GATE verify all" \
  "gate verify all, blob cache deleted" "$nocache" "$GATE verify all" \
  "git status" "true" "git status --porcelain" \
  "git ls-files -z | xargs -0 sha256sum" "true" "sh -c 'git ls-files -z src | xargs -0 sha256sum >/dev/null'"
echo "== load after: $(uptime)"
