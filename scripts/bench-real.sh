#!/bin/sh
# Provenance on real histories (issue 29; figures in docs/performance.md,
# "Real histories"): `gate check --range B..HEAD --only provenance` beside
# the equal work by git, `git log --raw --no-renames -c --format=%H B..HEAD`
# (every path of every commit, merges as combined diffs), taking turns run by
# run (gate, git, gate, git, …) so that a change in the machine's load falls
# on both alike. Medians of wall time, CPU time (user+sys) and peak memory
# (GNU time's maximum resident set size).
#
#   scripts/bench-real.sh REPO RANGE-BASE... [-- GATE...]
#
# REPO is a repository (bare or not) holding the history, e.g. a mirror
# fetched from github:git/git or github:moby/moby, or a clone of
# ../shared/corpus/ripgrep.bundle. Each RANGE-BASE is a revision (`HEAD~300`,
# `ROOT` for the whole history: from its oldest root commit). The policy
# judging the range is written
# into REPO as a commit no ref names (provenance required, merges
# inspected), passed as --policy-from. GATE: the gate binaries to compare
# (default: `gate` on PATH); several are measured in turn, each against git.
# RUNS (default 7) runs each. REMERGE=1 adds, in the same turns, git's own
# answer to "what did each merge change beyond a clean merge of its parents"
# (decision 0023's question): `git -c merge.renames=false log --remerge-diff
# --no-renames --name-only --format=%H B..HEAD`, which finds every merge's
# bases and merges its parents again (content merges included, so it does
# more than gate); the ratio to it is printed as its own column.
# gate keeps the commits it read from the objects, and the merge bases it
# searched without a commit-graph, in its commit cache
# (<common-dir>/gate/cache/commits-*.cache, merge-bases-*.cache, decision
# 0034), so every run after the first is warm; COLD=1 deletes both before
# each gate run (a fresh clone's first check, as in CI), and the header
# says which.
# FINE=1 times finely instead, for runs that GNU time's 10 ms ticks read
# coarsely (moby's 1k range is a 20 ms run): every GATE and git take
# turns within each round (gate A, gate B, git, gate A, ...), wall by
# python's perf_counter, CPU by the children's rusage; no memory column.
# Needs git, python3 and GNU time.
set -eu
[ $# -ge 2 ] || { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
repo=$1; shift
bases=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do bases="$bases $1"; shift; done
[ "${1:-}" = "--" ] && shift
gates=${*:-gate}
runs=${RUNS:-7}
cd "$repo"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

# The judging policy, as an unreferenced commit in REPO.
policy=$(printf 'version: 1\nbinding: off\nscope: off\nprovenance:\n  mode: required\n  merges: inspect\nreceipts:\n  mode: off\nbrief:\n  mode: off\n' | git hash-object -w --stdin)
dot_gate=$(printf '100644 blob %s\tpolicy.yaml\n' "$policy" | git mktree)
root_tree=$(printf '040000 tree %s\t.gate\n' "$dot_gate" | git mktree)
policy_commit=$(GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
    GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com \
    GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com \
    git commit-tree -m "bench policy" "$root_tree")

common=$(cd "$(git rev-parse --git-common-dir)" && pwd)
cold=${COLD:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
graph=no
[ -f objects/info/commit-graph ] || [ -d objects/info/commit-graphs ] || [ -f .git/objects/info/commit-graph ] && graph=yes
echo "repository: $repo ($(git rev-list --count HEAD) commits, commit-graph: $graph)"
if [ "$cold" = 1 ]; then
    echo "gate's commit cache: deleted before each gate run (cold)"
else
    echo "gate's commit cache: kept between runs (warm after the first)"
fi
echo "load at start: $(uptime | sed 's/.*load average/load average/')"
if [ "${FINE:-0}" = 1 ]; then
    echo "timed finely: every binary and git take turns within each round, $runs rounds"
    echo '| range | commits (merges) | gate | wall gate/git | CPU gate/git | gate wall, CPU | git wall, CPU |'
    echo '|---|---|---|---|---|---|---|'
    for base in $bases; do
        case $base in
            ROOT) root=$(git rev-list --max-parents=0 HEAD | tail -n 1); spec="$root..HEAD"; range="ROOT..HEAD" ;;
            *) spec="$base..HEAD"; range=$spec ;;
        esac
        commits=$(git rev-list --count $spec)
        merges=$(git rev-list --count --merges $spec)
        python3 - "$spec" "$range" "$commits" "$merges" "$runs" "$cold" "$common" "$policy_commit" $gates <<'EOF'
import glob, os, resource, statistics, subprocess, sys, time
spec, label, commits, merges, runs, cold, common, policy = sys.argv[1:9]
gates = sys.argv[9:]
def gate_cmd(g):
    return [g, "check", "--range", spec, "--only", "provenance", "--policy-from", policy, "--format", "json"]
cmds = [(g, gate_cmd(g)) for g in gates]
cmds.append(("git", ["git", "log", "--raw", "--no-renames", "-c", "--format=%H", spec]))
times = {name: [] for name, _ in cmds}
for _ in range(int(runs)):
    for name, cmd in cmds:
        if cold == "1" and name != "git":
            for pattern in ("commits-*.cache", "merge-bases-*.cache"):
                for f in glob.glob(os.path.join(common, "gate", "cache", pattern)):
                    os.remove(f)
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t1 = time.perf_counter()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        times[name].append((t1 - t0, cpu))
med = lambda xs, k: statistics.median(x[k] for x in xs)
hw, hc = med(times["git"], 0), med(times["git"], 1)
for g in gates:
    gw, gc = med(times[g], 0), med(times[g], 1)
    print(f"| {label} | {commits} ({merges}) | {g} | {gw / hw:.3f}x | {gc / hc:.3f}x "
          f"| {gw * 1000:.1f} ms, {gc * 1000:.1f} ms | {hw * 1000:.1f} ms, {hc * 1000:.1f} ms |")
EOF
    done
    echo "load at end: $(uptime | sed 's/.*load average/load average/')"
    exit 0
fi
remerge=${REMERGE:-0}
printf '| range | commits (merges) | gate | wall gate/git | CPU gate/git | peak MiB gate / git | gate wall, CPU | git wall, CPU |'
[ "$remerge" = 1 ] && printf ' remerge wall, CPU | CPU gate/remerge |'
printf '\n|---|---|---|---|---|---|---|---|'
[ "$remerge" = 1 ] && printf -- '---|---|'
printf '\n'
for base in $bases; do
    case $base in
        ROOT) root=$(git rev-list --max-parents=0 HEAD | tail -n 1)
              spec="$root..HEAD"; range="ROOT..HEAD (the whole history less one root)"; gate_range=$spec ;;
        *) spec="$base..HEAD"; range=$spec; gate_range=$spec ;;
    esac
    commits=$(git rev-list --count $spec)
    merges=$(git rev-list --count --merges $spec)
    for gate in $gates; do
        : > "$tmp/gate"; : > "$tmp/git"; : > "$tmp/remerge"
        i=0
        while [ $i -lt "$runs" ]; do
            [ "$cold" = 1 ] && rm -f "$common"/gate/cache/commits-*.cache "$common"/gate/cache/merge-bases-*.cache
            /usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$gate" check --range "$gate_range" --only provenance \
                --policy-from "$policy_commit" --format json >/dev/null 2>&1 || true
            cat "$tmp/t" >> "$tmp/gate"
            /usr/bin/time -f '%e %U %S %M' -o "$tmp/t" git log --raw --no-renames -c --format=%H $spec >/dev/null
            cat "$tmp/t" >> "$tmp/git"
            if [ "$remerge" = 1 ]; then
                /usr/bin/time -f '%e %U %S %M' -o "$tmp/t" git -c merge.renames=false log --remerge-diff \
                    --no-renames --name-only --format=%H $spec >/dev/null
                cat "$tmp/t" >> "$tmp/remerge"
            fi
            i=$((i + 1))
        done
        python3 - "$tmp/gate" "$tmp/git" "$range" "$commits" "$merges" "$gate" "$tmp/remerge" <<'EOF'
import statistics, sys
def rows(path):
    out = []
    for line in open(path):
        f = line.split()
        if len(f) == 4:
            e, u, s, m = map(float, f)
            out.append((e, u + s, m / 1024))
    return out
g, h = rows(sys.argv[1]), rows(sys.argv[2])
med = lambda xs, k: statistics.median(x[k] for x in xs)
gw, gc, gm = med(g, 0), med(g, 1), med(g, 2)
hw, hc, hm = med(h, 0), med(h, 1), med(h, 2)
line = (f"| {sys.argv[3]} | {sys.argv[4]} ({sys.argv[5]}) | {sys.argv[6]} | {gw / hw:.2f}x | {gc / hc:.2f}x "
        f"| {gm:.0f} / {hm:.0f} | {gw:.2f} s, {gc:.2f} s | {hw:.2f} s, {hc:.2f} s |")
r = rows(sys.argv[7])
if r:
    rw, rc = med(r, 0), med(r, 1)
    line += f" {rw:.2f} s, {rc:.2f} s | {gc / rc:.2f}x |"
print(line)
EOF
    done
done
echo "load at end: $(uptime | sed 's/.*load average/load average/')"
