#!/bin/sh
# The pre-push cost of sending receipts with a push (issue 17; figures in
# docs/performance.md, "Receipts travelling with a push"): a commit with
# three plan checks, each verified, `git push` of it to a local bare remote
#   - with gate's pre-push: its checks, the three receipts attached to the
#     pushed tip, and refs/notes/gate pushed (ls-remote, push);
#   - with gate's pre-push and `gate.pushReceipts false` (attach only);
#   - with --no-verify (no hook: git alone).
# Before each run the remote's branch and notes and the local notes are
# deleted, so every run attaches and pushes in full.
#
#   scripts/bench-receipts-push.sh [DIR]     (default /tmp/gate-notes-bench)
#
# GATE: the gate binary to measure (default: built and installed into
# DIR/prefix by ./install.sh, as a user gets it). RUNS (30) runs per
# command, 3 warm-ups. Needs git and hyperfine.
set -eu
W=${1:-/tmp/gate-notes-bench}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$W"
if [ -z "${GATE:-}" ]; then
    echo "== building and installing gate as ./install.sh does (into $W/prefix)"
    "$root/install.sh" --prefix "$W/prefix" >"$W/install.log" 2>&1 || { cat "$W/install.log" >&2; exit 1; }
    GATE=$W/prefix/bin/gate
fi
rm -rf "$W/remote.git" "$W/dev"; cd "$W"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
git init -q --bare -b main remote.git
git init -q -b main dev; cd dev
git config user.name Bench; git config user.email bench@example.com
mkdir -p .gate src tests docs
cat > .gate/policy.yaml <<'Y'
version: 1
binding: off
scope: off
provenance:
  mode: off
  merges: refuse
receipts:
  mode: advisory
brief:
  mode: off
Y
cat > .gate/plan.yaml <<'Y'
checks:
  - id: unit
    command: "true"
    sources: [src]
  - id: integration
    command: "true"
    sources: [src, tests]
  - id: docs
    command: "true"
    sources: [docs]
Y
for i in $(seq 1 200); do echo "pub fn f$i() {}" > src/m$i.rs; done
for i in $(seq 1 50); do echo "// t$i" > tests/t$i.rs; echo "doc $i" > docs/d$i.md; done
git add -A; git commit -q -m "three checks"
"$GATE" plan validate >/dev/null
for c in unit integration docs; do "$GATE" verify $c >/dev/null 2>&1; done
git notes --ref gate show HEAD >/dev/null
"$GATE" install >/dev/null
git remote add origin ../remote.git
# Each run pushes main anew, with no notes here or there: attach and push in full.
reset='git -C ../remote.git update-ref -d refs/heads/main 2>/dev/null; git -C ../remote.git update-ref -d refs/notes/gate 2>/dev/null; git update-ref -d refs/notes/gate 2>/dev/null; true'
hyperfine -N --warmup 3 --runs "${RUNS:-30}" --export-markdown "$W/result.md" --export-json "$W/result.json" \
  --prepare "sh -c '$reset; git config --unset gate.pushReceipts; true'" -n "pre-push, notes pushed" "git push -q origin main" \
  --prepare "sh -c '$reset; git config gate.pushReceipts false'" -n "pre-push, attach only (gate.pushReceipts=false)" "git push -q origin main" \
  --prepare "sh -c '$reset'" -n "no hook (--no-verify)" "git push -q --no-verify origin main"
echo "== $W/result.md"
cat "$W/result.md"
