#!/bin/sh
# gate's benchmark: every figure of docs/performance.md, measured in one run,
# side by side with the git CLI (and, with --managers, the hook managers).
#
#   scripts/bench.sh [--managers] [--runs N] [--corpus DIR] [DIR]
#                     (default DIR: /tmp/gate-bench; corpus: ../shared/corpus)
#
# It builds its own inputs, deterministically, under DIR (reused when present):
#   history/  10,000 commits over 5,000 files with renames, deletions, chmods
#             and 99 merges (scripts/gen-history.py), in 100 directories,
#             repacked with `git gc --aggressive` (deep delta chains)
#   history3/ the same on a three-level tree (100 x 8 directories)
#   wide/     10,000 commits shaped as git/git is (gen-history.py `wide`):
#             directories of ~1,700 entries, a merge every third commit of
#             a topic forked 10-300 commits back (old merge bases)
#   ripgrep/  a clone of the corpus's ripgrep.bundle (real history), when
#             there is one (a fresh clone of gate has none: skipped, said so)
#   tree/     20,000 files of 1-7 KiB (79 MB) with a plan check over them
#   commit-wide/ 32,000 files in 2,000 sibling directories under src/, gate
#             adopted, for the hooks and a whole commit on a big tree
#   commit-*/ small repositories for the pre-commit overhead: gate's hook with
#             an active task, a plain `sh` hook running `true` (the floor),
#             and, with --managers, lefthook 2.2.2, husky 9.1.7, pre-commit 4.7.0
#             each running one trivial hook
# and measures, with hyperfine (commands taking turns, medians):
#   - a `git commit` of one staged file: --no-verify, sh floor, gate, managers
#   - the hooks alone: `gate hook pre-commit` and `prepare-commit-msg`
#     beside `git diff --cached --name-only` on the same staged edit, and
#     the page faults of each; the same on commit-wide/, and a whole
#     `git commit` there with no hooks, two no-op sh hooks and gate's
#   - `gate check --range` against the same work by git, one thread:
#     `git log --raw --no-renames -c` (every path of every commit, merges as
#     combined diffs), and `git log -M -m --name-status` as a second row;
#     wall and CPU time (user+sys), without and with a commit-graph
#   - cold `gate status` (no stat cache) vs `git ls-files -z | xargs -0 sha256sum`,
#     and warm `gate status`, beside `git status` (which stats every file too);
#     with watchman installed, also warm with `gate.fsmonitor = watchman`
#     (a daemon of the bench's own under DIR/watchman)
#   - peak memory of each (GNU time), and of the walk over 1,000, 3,000 and
#     9,000 commits
# The table goes to DIR/results.md and stdout. Needs git, python3, hyperfine
# and GNU time (apt-get install hyperfine time); --managers needs npm and pip;
# the monitored row needs watchman (apt-get install watchman).
set -eu

managers=0
runs=${RUNS:-15}
dir=/tmp/gate-bench
while [ $# -gt 0 ]; do
    case $1 in
        --managers) managers=1; shift ;;
        --runs) runs=$2; shift 2 ;;
        --corpus) corpus=$2; shift 2 ;;
        -h|--help) sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) dir=$1; shift ;;
    esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${corpus:-$root/../shared/corpus}
for tool in git python3 hyperfine /usr/bin/time; do
    command -v "$tool" >/dev/null 2>&1 || { echo "bench.sh: $tool is missing (apt-get install hyperfine time)" >&2; exit 1; }
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

load_at_start=$(uptime)
echo "== building and installing gate as ./install.sh does (into $dir/prefix)"
"$root/install.sh" --prefix "$dir/prefix" >"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; exit 1; }
gate=$dir/prefix/bin/gate

# Isolated git: no system or global config, fixed identities.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@example.com
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE

policy() { # $1 = scope mode, $2 = provenance mode, $3 = receipts mode, $4 = brief mode (default off)
    printf 'version: 1\nbinding: off\nscope: %s\nprovenance:\n  mode: %s\n  merges: inspect\nreceipts:\n  mode: %s\n  max_entries: 40000\nbrief:\n  mode: %s\n' "$1" "$2" "$3" "${4:-off}"
}

# --- inputs ----------------------------------------------------------------
# A history gate proves: provenance required, a task whose scope is all.
prepare_walk() { # $1 = repository
    mkdir -p "$1/.gate"
    policy off required off > "$1/.gate/policy.yaml"
    printf 'bench\n' | (cd "$1" && "$gate" start --operator Bench --scope '**' --id T-bench --brief - >/dev/null)
}
# `gate check --range` judges with the policy committed at the range's base
# (docs/trust.md), and the generated histories commit none: the walk would
# run under the embedded default, which refuses merges and so never diffs
# them. The bench's policy goes into a commit of its own, outside the
# history, named with --policy-from (refs/bench/policy).
policy_ref() { # $1 = repository
    blob=$(git -C "$1" hash-object -w "$1/.gate/policy.yaml")
    sub=$(printf '100644 blob %s\tpolicy.yaml\n' "$blob" | git -C "$1" mktree)
    top=$(printf '040000 tree %s\t.gate\n' "$sub" | git -C "$1" mktree)
    git -C "$1" update-ref refs/bench/policy "$(git -C "$1" commit-tree -m 'bench policy' "$top")"
}
# The walk must do the work it is compared on: every merge's combined diff.
check_walk() { # $1 = repository, $2 = base
    summary=$("$gate" -C "$1" check --range "$2..HEAD" --task T-bench --only provenance --policy-from refs/bench/policy --json) || {
        echo "bench.sh: gate check --range failed on $1" >&2; exit 1; }
    case $summary in
        *'"--policy-from ('*) ;;
        *) echo "bench.sh: gate did not judge $1 with the bench's policy" >&2; exit 1 ;;
    esac
}
generate_history() { # $1 = directory, $2 = tree depth (gen-history.py)
    if [ ! -f "$1/.git/bench-ready-gc" ]; then
        echo "== generating the 10,000-commit history (shape $2)"
        rm -rf "$1"; mkdir -p "$1"
        git -C "$1" init -q -b main
        python3 "$root/scripts/gen-history.py" 10000 5000 "$2" | git -C "$1" fast-import --quiet --done
        git -C "$1" checkout -q main
        # Deep delta chains, as long-lived repositories have them.
        git -C "$1" gc -q --aggressive
        prepare_walk "$1"
        touch "$1/.git/bench-ready-gc"
    fi
}
history=$dir/history
generate_history "$history" 2
range_base=$(git -C "$history" rev-list HEAD | sed -n 9000p)
generate_history "$dir/history3" 3
generate_history "$dir/wide" wide
# Each walked history: name, repository, the range's base.
walks="flat $history $range_base
three-level $dir/history3 $(git -C "$dir/history3" rev-list HEAD | sed -n 9000p)
wide $dir/wide $(git -C "$dir/wide" rev-list HEAD | sed -n 9000p)"
if [ -f "$corpus/ripgrep.bundle" ]; then
    if [ ! -f "$dir/ripgrep/.git/bench-ready" ]; then
        echo "== cloning ripgrep's history from $corpus/ripgrep.bundle"
        rm -rf "$dir/ripgrep"
        git clone -q "$corpus/ripgrep.bundle" "$dir/ripgrep"
        # The bundle holds HEAD alone: a branch, so that `--reachable` finds it.
        git -C "$dir/ripgrep" checkout -q -B main
        prepare_walk "$dir/ripgrep"
        touch "$dir/ripgrep/.git/bench-ready"
    fi
    walks="$walks
ripgrep $dir/ripgrep $(git -C "$dir/ripgrep" rev-list --max-parents=0 HEAD | tail -1)"
else
    echo "   (no $corpus/ripgrep.bundle: the real history is skipped)"
fi

tree=$dir/tree
if [ ! -f "$tree/.git/bench-ready" ]; then
    echo "== generating the 20,000-file tree"
    rm -rf "$tree"; mkdir -p "$tree"
    python3 - "$tree" 20000 <<'EOF'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(4)
alphabet = b"abcdefghijklmnopqrstuvwxyz      \n{}();=+-0123456789"
for i in range(n):
    d = os.path.join(root, "src", f"d{i % 200:03}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i:05}.rs"), "wb") as f:
        f.write(bytes(rng.choice(alphabet) for _ in range(rng.randint(1024, 7 * 1024))))
EOF
    mkdir -p "$tree/.gate"
    policy off off required > "$tree/.gate/policy.yaml"
    cat > "$tree/.gate/plan.yaml" <<'EOF'
intents:
  - id: I-tree
    statement: The tree is checked.
    status: active
    criteria:
      - id: C1
        criterion: The check passes.
        evidence: [tree]
checks:
  - id: tree
    command: "true"
    sources: [src]
issues:
  - id: "1"
    title: Tree
    intent: I-tree
    serves: [C1]
    paths: ["src/**"]
    status: open
critiques:
  - intent: I-tree
    reviewed_at: 2026-11-30
EOF
    git -C "$tree" init -q -b main
    git -C "$tree" add -A
    git -C "$tree" commit -q -m tree
    printf 'bench\n' | (cd "$tree" && "$gate" start --operator Bench --issue 1 --brief - >/dev/null)
    (cd "$tree" && "$gate" verify tree >/dev/null 2>&1) || { echo "bench.sh: gate verify failed in $tree" >&2; exit 1; }
    touch "$tree/.git/bench-ready"
fi

# Small repositories for one commit each run: 200 files, one staged edit.
make_commit_repo() { # $1 = name
    r=$dir/commit-$1
    rm -rf "$r"; mkdir -p "$r"
    git -C "$r" init -q -b main
    i=0
    while [ $i -lt 200 ]; do
        mkdir -p "$r/src/d$((i % 10))"
        echo "file $i" > "$r/src/d$((i % 10))/f$i.txt"
        i=$((i + 1))
    done
    git -C "$r" add -A
    git -C "$r" commit -q -m init
    echo "$r"
}
# gate adopted in repository $1: an active task, gate's hooks installed.
adopt_gate() {
    mkdir -p "$1/.gate"
    # Both checks a pre-commit runs under the default policy: scope and the brief.
    policy required off off required > "$1/.gate/policy.yaml"
    git -C "$1" add -A && git -C "$1" commit -q -m policy
    printf 'bench\n' | (cd "$1" && "$gate" start --operator Bench --scope 'src/**' --id T-bench --brief - >/dev/null)
    git -C "$1" add -A && git -C "$1" commit -q --no-verify -m task
    (cd "$1" && "$gate" install >/dev/null)
}
# A big project's tree (issue 29's hook goal): 32,000 files in 2,000
# directories that are all children of src/, so one directory holds
# thousands of subdirectories (src/d0/f0.txt among them, as `stage` wants).
make_wide_repo() {
    r=$dir/commit-wide
    rm -rf "$r"; mkdir -p "$r"
    git -C "$r" init -q -b main
    python3 - "$r" <<'PY'
import os, sys
for d in range(2000):
    os.makedirs(os.path.join(sys.argv[1], "src", f"d{d}"))
    for f in range(16):
        with open(os.path.join(sys.argv[1], "src", f"d{d}", f"f{f}.txt"), "w") as out:
            out.write(f"file {d} {f}\n" * 20)
PY
    git -C "$r" add -A
    git -C "$r" commit -q -m init
    adopt_gate "$r"
}
echo "== preparing the commit repositories"
r=$(make_commit_repo gate)
adopt_gate "$r"
make_wide_repo
# Hooks directories for the wide tree's commits: none, and two no-op
# `sh` hooks (git's own cost of running the two hooks gate installs).
mkdir -p "$dir/hooks-none" "$dir/hooks-sh"
for h in pre-commit prepare-commit-msg; do
    printf '#!/bin/sh\ntrue\n' > "$dir/hooks-sh/$h"
    chmod +x "$dir/hooks-sh/$h"
done
r=$(make_commit_repo sh)
printf '#!/bin/sh\ntrue\n' > "$r/.git/hooks/pre-commit"
chmod +x "$r/.git/hooks/pre-commit"

manager_names=""
if [ $managers = 1 ]; then
    echo "== installing hook managers (lefthook 2.2.2, husky 9.1.7, pre-commit 4.7.0)"
    m=$dir/managers
    mkdir -p "$m"
    [ -x "$m/node_modules/.bin/lefthook" ] || npm install --silent --prefix "$m" lefthook@2.2.2 husky@9.1.7 >/dev/null
    [ -x "$m/venv/bin/pre-commit" ] || { python3 -m venv "$m/venv" && "$m/venv/bin/pip" install -q pre-commit==4.7.0; }
    r=$(make_commit_repo lefthook)
    printf 'pre-commit:\n  commands:\n    t:\n      run: "true"\n' > "$r/lefthook.yml"
    (cd "$r" && "$m/node_modules/.bin/lefthook" install >/dev/null)
    r=$(make_commit_repo husky)
    (cd "$r" && "$m/node_modules/.bin/husky" >/dev/null)
    printf 'true\n' > "$r/.husky/pre-commit"
    r=$(make_commit_repo precommit)
    printf 'repos:\n  - repo: local\n    hooks:\n      - id: t\n        name: t\n        entry: "true"\n        language: system\n        pass_filenames: false\n        always_run: true\n' > "$r/.pre-commit-config.yaml"
    git -C "$r" add .pre-commit-config.yaml && git -C "$r" commit -q -m config
    (cd "$r" && "$m/venv/bin/pre-commit" install >/dev/null && "$m/venv/bin/pre-commit" run --all-files >/dev/null 2>&1 || true)
    manager_names="lefthook husky precommit"
fi

# --- measurements ------------------------------------------------------------
out=$dir/json
rm -rf "$out"; mkdir -p "$out"
stage() { echo "printf 'x\\\\n' >> $1/src/d0/f0.txt && git -C $1 add src/d0/f0.txt"; }

echo "== pre-commit overhead (a git commit of one staged file)"
set -- --prepare "$(stage "$dir/commit-gate")" -n "no hook (--no-verify)" "git -C $dir/commit-gate commit -q --no-verify -m x" \
       --prepare "$(stage "$dir/commit-sh")" -n "sh hook running true (the floor)" "git -C $dir/commit-sh commit -q -m x" \
       --prepare "$(stage "$dir/commit-gate")" -n "gate pre-commit (scope and brief, active task)" "git -C $dir/commit-gate commit -q -m x"
for name in $manager_names; do
    set -- "$@" --prepare "$(stage "$dir/commit-$name")" -n "$name (one trivial hook)" "git -C $dir/commit-$name commit -q -m x"
done
hyperfine --style basic --warmup 3 --runs "$runs" --export-json "$out/commit.json" "$@" >/dev/null

# The hooks alone, beside git's own look at the index (issue 29): one
# staged edit in the gate repository, the trailer already in the message
# after the first run, twenty times the runs (each takes milliseconds).
# time_hooks REPO WARMUP RUNS JSON: one edit staged in REPO, both hooks
# beside `git diff --cached --name-only` on it, taking turns.
time_hooks() {
    printf 'x\n' >> "$1/src/d0/f0.txt" && git -C "$1" add src/d0/f0.txt
    printf 'a message\n' > "$1/.git/BENCH_MSG"
    (cd "$1" && hyperfine -N --style basic --warmup "$2" --runs "$3" --export-json "$4" \
        -n "git diff --cached --name-only" "git diff --cached --name-only" \
        -n "gate hook pre-commit" "$gate hook pre-commit" \
        -n "gate hook prepare-commit-msg" "$gate hook prepare-commit-msg .git/BENCH_MSG" >/dev/null)
}
echo "== the hooks alone, beside git diff --cached"
r=$dir/commit-gate
time_hooks "$r" 20 "$((runs * 20))" "$out/hooks.json"
# Their page faults (GNU time's minor faults, the median of five runs): on
# x86_64 most of a hook's are on gate's own code, which the hooks'
# functions laid out first cut (decision 0033); a stale link/hot-text.ld
# shows here first.
faults() { # $@: the command
    for _ in 1 2 3 4 5; do /usr/bin/time -f '%R' "$@" 2>&1 >/dev/null | tail -1; done | sort -n | sed -n 3p
}
(cd "$r" && printf '%s\t%s\n' \
    "git diff --cached --name-only" "$(faults git diff --cached --name-only)" \
    "gate hook pre-commit" "$(faults "$gate" hook pre-commit)" \
    "gate hook prepare-commit-msg" "$(faults "$gate" hook prepare-commit-msg .git/BENCH_MSG)") > "$out/hook-faults.tsv"
git -C "$r" commit -q --no-verify -m x

# The same on the wide tree, and a whole `git commit` there with no hooks,
# two no-op hooks and gate's (the goal: gate's hooks add at most 10 %).
echo "== the hooks on 32,000 files in 2,000 sibling directories"
r=$dir/commit-wide
time_hooks "$r" 10 "$((runs * 10))" "$out/hooks-wide.json"
git -C "$r" commit -q --no-verify -m x
hyperfine --style basic --warmup 3 --runs "$((runs * 2))" --export-json "$out/commit-wide.json" \
    --prepare "$(stage "$r")" -n "no hooks" "git -C $r -c core.hooksPath=$dir/hooks-none commit -q -m x" \
    --prepare "$(stage "$r")" -n "two sh hooks running true" "git -C $r -c core.hooksPath=$dir/hooks-sh commit -q -m x" \
    --prepare "$(stage "$r")" -n "gate's hooks" "git -C $r commit -q -m x" >/dev/null

# Provenance against git doing the same work on one thread: every path of
# every commit, a merge's own paths as its combined diff (-c). Without a
# commit-graph (a fresh clone has none), then with one.
echo "$walks" | while read -r name repo base; do
    echo "== provenance, $name ($(git -C "$repo" rev-list --count "$base..HEAD") commits)"
    policy_ref "$repo"
    check_walk "$repo" "$base"
    rm -f "$repo/.git/objects/info/commit-graph"; rm -rf "$repo/.git/objects/info/commit-graphs"
    hyperfine -N --style basic --warmup 1 --runs "$runs" --export-json "$out/walk-$name.json" \
        -n "git -c" "git -C $repo log --raw --no-renames -c $base..HEAD" \
        -n "git -M -m" "git -C $repo log -M -m --name-status $base..HEAD" \
        -n "gate" "$gate -C $repo check --range $base..HEAD --task T-bench --only provenance --policy-from refs/bench/policy" >/dev/null
    git -C "$repo" commit-graph write --reachable
    hyperfine -N --style basic --warmup 1 --runs "$runs" --export-json "$out/graph-$name.json" \
        -n "git -c" "git -C $repo log --raw --no-renames -c $base..HEAD" \
        -n "gate" "$gate -C $repo check --range $base..HEAD --task T-bench --only provenance --policy-from refs/bench/policy" >/dev/null
    rm -f "$repo/.git/objects/info/commit-graph"
    printf '%s\t%s\t%s\n' "$name" "$(git -C "$repo" rev-list --count "$base..HEAD")" "$(git -C "$repo" rev-list --merges --count "$base..HEAD")" >> "$out/walks.tsv"
done

# The monitored runs: gate.fsmonitor set for that command only, talking to a
# watchman daemon of the bench's own.
set --
monitored=""
if command -v watchman >/dev/null 2>&1; then
    wm=$dir/watchman
    mkdir -p "$wm"
    wm_args="--sockname=$wm/sock --statefile=$wm/state --logfile=$wm/log --pidfile=$wm/pid --no-save-state"
    # shellcheck disable=SC2086
    watchman $wm_args --no-pretty get-sockname >/dev/null
    monitored="GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=gate.fsmonitor GIT_CONFIG_VALUE_0=watchman WATCHMAN_SOCK=$wm/sock"
    set -- --prepare "true" -n "warm gate status (gate.fsmonitor = watchman)" "cd $tree && $monitored $gate status >/dev/null"
else
    echo "   (no watchman: the monitored row is left out; apt-get install watchman)"
fi
echo "== fingerprint of 20,000 files"
hyperfine --style basic --warmup 2 --runs "$runs" --export-json "$out/print.json" \
    --prepare "true" -n "git ls-files -z | xargs -0 sha256sum" "cd $tree && git ls-files -z | xargs -0 sha256sum >/dev/null" \
    --prepare "rm -rf $tree/.git/gate/cache" -n "cold gate status" "cd $tree && $gate status >/dev/null" \
    --prepare "true" -n "warm gate status" "cd $tree && $gate status >/dev/null" \
    "$@" \
    --prepare "true" -n "git status (stats every file)" "cd $tree && git status --porcelain >/dev/null" >/dev/null

echo "== peak memory"
peak() { /usr/bin/time -f '%M' sh -c "$1" 2>&1 >/dev/null | tail -1; }
{
    echo "git log -c	$(peak "git -C $history log --raw --no-renames -c $range_base..HEAD")"
    echo "git log -M -m --name-status	$(peak "git -C $history log -M -m --name-status $range_base..HEAD")"
    echo "gate check --range (provenance)	$(peak "cd $history && $gate check --range $range_base..HEAD --task T-bench --only provenance --policy-from refs/bench/policy")"
    echo "git ls-files -z | xargs -0 sha256sum	$(peak "cd $tree && git ls-files -z | xargs -0 sha256sum")"
    rm -rf "$tree/.git/gate/cache"
    echo "cold gate status	$(peak "cd $tree && $gate status")"
    echo "warm gate status	$(peak "cd $tree && $gate status")"
    if [ -n "$monitored" ]; then
        peak "cd $tree && $monitored $gate status" >/dev/null  # its record, after the cold run above
        echo "monitored gate status	$(peak "cd $tree && $monitored $gate status")"
    fi
    # Flat in the number of commits walked: the same walk over more commits.
    for n in 1000 3000 9000; do
        base=$(git -C "$history" rev-list HEAD | sed -n "${n}p")
        echo "git log -c $n	$(peak "git -C $history log --raw --no-renames -c $base..HEAD")"
        echo "git log $n	$(peak "git -C $history log -M -m --name-status $base..HEAD")"
        echo "gate $n	$(peak "cd $history && $gate check --range $base..HEAD --task T-bench --only provenance --policy-from refs/bench/policy")"
    done
} > "$out/memory.tsv"
if [ -n "$monitored" ]; then
    # shellcheck disable=SC2086
    watchman $wm_args shutdown-server >/dev/null 2>&1 || true
fi

python3 - "$out" "$dir/results.md" "$gate" "$load_at_start" "$(uptime)" <<'EOF'
import json, os, platform, subprocess, sys
out, results, gate, load_at_start, load_at_end = sys.argv[1:6]
def medians(name):
    with open(os.path.join(out, name)) as f:
        return [(r["command"], r["median"] * 1000) for r in json.load(f)["results"]]
def cpu():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()
mem = dict(line.rstrip("\n").split("\t") for line in open(os.path.join(out, "memory.tsv")))
lines = []
lines.append(f"Machine: {os.cpu_count()} cores, {cpu()}, Linux {platform.release()}; "
             f"{subprocess.run(['git', '--version'], capture_output=True, text=True).stdout.strip()}; "
             f"{subprocess.run([gate, '--version'], capture_output=True, text=True).stdout.strip()}.")
lines.append("")
lines.append(f"`uptime` at the start: `{load_at_start.strip()}`; at the end: `{load_at_end.strip()}`.")
lines.append("")
commit = medians("commit.json")
floor = dict(commit)["sh hook running true (the floor)"]
none = dict(commit)["no hook (--no-verify)"]
lines += ["| pre-commit: `git commit` of one staged file | median | over no hook | over the sh floor |", "|---|---|---|---|"]
for name, ms in commit:
    lines.append(f"| {name} | {ms:.1f} ms | {ms - none:+.1f} ms | {ms - floor:+.1f} ms |")
lines.append("")
hooks = medians("hooks.json")
git_index = dict(hooks)["git diff --cached --name-only"]
hook_faults = dict(line.rstrip("\n").split("\t") for line in open(os.path.join(out, "hook-faults.tsv")))
lines += ["| the hooks alone (one staged edit) | median | / `git diff --cached --name-only` | page faults |", "|---|---|---|---|"]
for name, ms in hooks:
    lines.append(f"| {name} | {ms:.2f} ms | **{ms / git_index:.2f}** | {hook_faults.get(name, '?')} |")
lines.append("")
def against(name, baseline, head, cell):
    """A table of `name`'s medians, each beside the `baseline` command's."""
    rows = medians(name)
    base = dict(rows)[baseline]
    lines.extend([head, "|---|---|---|"] + [cell(command, ms, base) for command, ms in rows] + [""])
against("hooks-wide.json", "git diff --cached --name-only",
        "| the hooks alone, 32,000 files in 2,000 sibling directories | median | / `git diff --cached --name-only` |",
        lambda name, ms, base: f"| {name} | {ms:.2f} ms | **{ms / base:.2f}** |")
against("commit-wide.json", "no hooks",
        "| a `git commit` of one staged file there | median | over no hooks |",
        lambda name, ms, base: f"| {name} | {ms:.1f} ms | **{(ms / base - 1) * 100:+.0f} %** |")
def timed(name):
    """command -> (median wall ms, mean CPU ms: user + sys)"""
    with open(os.path.join(out, name)) as f:
        return {r["command"]: (r["median"] * 1000, (r["user"] + r["system"]) * 1000) for r in json.load(f)["results"]}
walks = [line.rstrip("\n").split("\t") for line in open(os.path.join(out, "walks.tsv"))]
lines += ["| provenance: wall (CPU) | commits (merges) | `git log --raw --no-renames -c` | `git log -M -m --name-status` | `gate check --range` | gate / git `-c`: wall | CPU |",
          "|---|---|---|---|---|---|---|"]
for name, commits, merges in walks:
    t = timed(f"walk-{name}.json")
    (gw, gc), (mw, mc), (w, c) = t["git -c"], t["git -M -m"], t["gate"]
    lines.append(f"| {name} | {int(commits):,} ({int(merges):,}) | {gw:.0f} ms ({gc:.0f}) | {mw:.0f} ms ({mc:.0f}) | {w:.0f} ms ({c:.0f}) | **{w / gw:.2f}** | **{c / gc:.2f}** |")
lines.append("")
lines += ["| with a commit-graph: wall (CPU) | `git log --raw --no-renames -c` | `gate check --range` | gate / git: wall | CPU |", "|---|---|---|---|---|"]
for name, commits, merges in walks:
    t = timed(f"graph-{name}.json")
    (gw, gc), (w, c) = t["git -c"], t["gate"]
    lines.append(f"| {name} | {gw:.0f} ms ({gc:.0f}) | {w:.0f} ms ({c:.0f}) | **{w / gw:.2f}** | **{c / gc:.2f}** |")
lines.append("")
lines += ["| peak memory, flat history, 9,000 commits | |", "|---|---|"]
for key in ("git log -c", "git log -M -m --name-status", "gate check --range (provenance)"):
    lines.append(f"| `{key}` | {int(mem[key]) / 1024:.0f} MiB |")
lines.append("")
p = dict(medians("print.json"))
s, c, wa = p["git ls-files -z | xargs -0 sha256sum"], p["cold gate status"], p["warm gate status"]
lines += ["| fingerprint, 20,000 files (79 MB) | median | ratio | peak memory |", "|---|---|---|---|"]
lines.append(f"| `git ls-files -z \\| xargs -0 sha256sum` | {s:.0f} ms | 1.00 | {int(mem['git ls-files -z | xargs -0 sha256sum']) / 1024:.0f} MiB |")
lines.append(f"| cold `gate status` (no stat cache, no untracked cache) | {c:.0f} ms | **{c / s:.2f}** of sha256sum | {int(mem['cold gate status']) / 1024:.0f} MiB |")
lines.append(f"| warm `gate status` | {wa:.0f} ms | **{100 * wa / c:.0f} %** of cold | {int(mem['warm gate status']) / 1024:.0f} MiB |")
wm = p.get("warm gate status (gate.fsmonitor = watchman)")
if wm is not None:
    lines.append(f"| warm `gate status`, `gate.fsmonitor = watchman` | {wm:.1f} ms | **{100 * wm / c:.1f} %** of cold | {int(mem['monitored gate status']) / 1024:.0f} MiB |")
gs = p["git status (stats every file)"]
lines.append(f"| `git status --porcelain` (stats every file, reads every directory) | {gs:.0f} ms | {100 * gs / c:.0f} % of cold | |")
lines.append("")
mib = lambda key: int(mem[key]) / 1024
lines += ["| peak memory by commits walked | 1,000 | 3,000 | 9,000 |", "|---|---|---|---|"]
lines.append("| `git log --raw --no-renames -c` | " + " | ".join(f"{mib(f'git log -c {n}'):.0f} MiB" for n in (1000, 3000, 9000)) + " |")
lines.append("| `git log -M -m --name-status` | " + " | ".join(f"{mib(f'git log {n}'):.0f} MiB" for n in (1000, 3000, 9000)) + " |")
lines.append("| `gate check --range` | " + " | ".join(f"{mib(f'gate {n}'):.0f} MiB" for n in (1000, 3000, 9000)) + " |")
text = "\n".join(lines) + "\n"
open(results, "w").write(text)
print(text)
EOF
echo "results: $dir/results.md"
