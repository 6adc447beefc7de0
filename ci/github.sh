#!/bin/sh
# gate in GitHub Actions (docs/ci.md): what action.yml runs, kept in a
# script so it can be run and tested with the variables GitHub sets.
#
#   ci/github.sh cache-key   write `key=…` (the runner's OS and architecture, gate's version, a hash of its sources) to $GITHUB_OUTPUT
#   ci/github.sh check       prove the pull request's or the push's commits
#
# `check` reads GITHUB_EVENT_NAME and GITHUB_EVENT_PATH (the event's JSON,
# read with jq), runs in GITHUB_WORKSPACE, writes the JSON report to
# $RUNNER_TEMP/gate-report.json and `base`, `tip`, `report`, `exit-code` to
# $GITHUB_OUTPUT; `gate check --format github` appends the job summary to
# $GITHUB_STEP_SUMMARY. Optional: GATE_BASE (the range's base), GATE_POLICY_FROM
# (the revision whose policy judges), GATE_RUN_UNPROVED (true: run each check
# no verified receipt proves, `--run-unproved`), GATE_MAX_FINDINGS (annotations listed,
# default 200), GATE_SARIF_OUT (also write the SARIF log there, and `sarif`
# to $GITHUB_OUTPUT). It exits as `gate check` does: 0 nothing blocks, 1 refused,
# 3 unknown — and 3 when it cannot tell what to prove.
set -eu

say() { echo "gate-ci: $*" >&2; }
unknown() { say "$*"; exit 3; }

output() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf '%s\n' "$@" >> "$GITHUB_OUTPUT"
  fi
}

cache_key() {
  here=$(cd "$(dirname -- "$0")/.." && pwd)
  version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$here/Cargo.toml" | head -n 1)
  [ -n "$version" ] || unknown "no version in $here/Cargo.toml"
  # Everything the build reads, by content (the action's checkout has no
  # .git to name a revision): a changed source is a new binary, never the
  # cached old one.
  sources=$(cd "$here" &&
    find src vendor Cargo.toml Cargo.lock install.sh build.rs -type f 2>/dev/null |
    LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
  # The binary is the runner's: another OS or architecture builds its own.
  key="gate-${RUNNER_OS:-any}-${RUNNER_ARCH:-any}-$version-$sources"
  output "key=$key"
  echo "$key"
}

# The value at jq path $1 of the event, empty when absent or null.
event() {
  jq -r "$1 // empty" "$GITHUB_EVENT_PATH"
}

zero() {
  case $1 in *[!0]*) return 1 ;; *) return 0 ;; esac
}

check() {
  command -v gate >/dev/null 2>&1 || unknown "gate is not on PATH (install it first: ./install.sh --prefix DIR, then add DIR/bin to PATH)"
  command -v jq >/dev/null 2>&1 || unknown "jq is not installed; it reads the event (\$GITHUB_EVENT_PATH)"
  [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -f "$GITHUB_EVENT_PATH" ] || unknown "GITHUB_EVENT_PATH names no event file"
  cd "${GITHUB_WORKSPACE:-.}"
  temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
  report="$temp/gate-report.json"

  # Full history: a shallow clone proves nothing past its boundary.
  if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
    say "the checkout is shallow: fetching the full history"
    git fetch --quiet --unshallow origin || unknown "could not fetch the full history (check out with fetch-depth: 0)"
  fi

  policy_from=${GATE_POLICY_FROM:-}
  not=
  case ${GITHUB_EVENT_NAME:-} in
    pull_request|pull_request_target)
      # The branch's own tip, never the merge commit GitHub builds.
      tip=$(event .pull_request.head.sha)
      target=$(event .pull_request.base.sha)
      [ -n "$tip" ] && [ -n "$target" ] || unknown "the pull_request event has no head.sha or base.sha"
      git cat-file -e "$target^{commit}" 2>/dev/null ||
        git fetch --quiet origin "+refs/heads/${GITHUB_BASE_REF:?GITHUB_BASE_REF is not set}:refs/remotes/origin/$GITHUB_BASE_REF" ||
        unknown "could not fetch the target branch $GITHUB_BASE_REF"
      git cat-file -e "$tip^{commit}" 2>/dev/null || unknown "the pull request's head $tip is not in the checkout"
      if [ -n "${GATE_BASE:-}" ]; then
        base=$GATE_BASE
      else
        base=$(git merge-base "$target" "$tip") ||
          unknown "the pull request shares no history with its target $target"
      fi
      # The rules: the target branch's as they are now, never the tip's.
      policy_from=${policy_from:-$target}
      ;;
    push)
      tip=${GITHUB_SHA:-$(event .after)}
      before=$(event .before)
      default=$(event .repository.default_branch)
      # A branch's push never proves what the default branch already has
      # (a merge or a rebase onto it brought those commits in).
      if [ -n "$default" ] && [ "${GITHUB_REF:-}" != "refs/heads/$default" ]; then
        git fetch --quiet origin "+refs/heads/$default:refs/remotes/origin/$default" ||
          unknown "could not fetch the default branch $default"
        not="refs/remotes/origin/$default"
      fi
      if [ -n "${GATE_BASE:-}" ]; then
        base=$GATE_BASE
      elif [ -n "$before" ] && ! zero "$before"; then
        # A force push leaves `before` off the new history: from where they meet.
        git cat-file -e "$before^{commit}" 2>/dev/null || git fetch --quiet origin "$before" 2>/dev/null || true
        base=$(git merge-base "$before" "$tip") ||
          unknown "the push's old tip $before shares no history with $tip (or is gone): set the action's base input"
      else
        # A new branch: from where it leaves the default branch.
        [ -n "$default" ] || unknown "a new branch and no default branch in the event: set the action's base input"
        git fetch --quiet origin "+refs/heads/$default:refs/remotes/origin/$default" ||
          unknown "could not fetch the default branch $default"
        base=$(git merge-base "refs/remotes/origin/$default" "$tip") ||
          unknown "the new branch shares no history with $default: set the action's base input"
        if [ "$(git rev-parse "$base")" = "$(git rev-parse "$tip")" ]; then
          unknown "the new branch adds no commit to $default, so there is nothing to prove from: set the action's base input to the commit to prove from"
        fi
      fi
      ;;
    *)
      [ -n "${GATE_BASE:-}" ] || unknown "event ${GITHUB_EVENT_NAME:-(unset)}: set the action's base input to the commit to prove from"
      base=$GATE_BASE
      tip=${GITHUB_SHA:-$(git rev-parse HEAD)}
      ;;
  esac

  # The receipts that travelled with the commits (docs/receipts.md).
  # (merged into any the clone has; none there is no error: each required
  # check then says no receipt travelled).
  gate receipts fetch origin >&2 ||
    unknown "could not fetch the receipts (refs/notes/gate) from origin: see above"

  set -- --range "$base..$tip"
  if [ -n "${not:-}" ]; then set -- "$@" --not "$not"; fi
  if [ -n "$policy_from" ]; then set -- "$@" --policy-from "$policy_from"; fi
  # Checks no verified receipt proves are run here, on the tip's checkout.
  case ${GATE_RUN_UNPROVED:-false} in
    true | 1 | yes) set -- "$@" --run-unproved ;;
  esac
  # The same judgement as a SARIF log, for code scanning.
  if [ -n "${GATE_SARIF_OUT:-}" ]; then
    set -- "$@" --sarif-out "$GATE_SARIF_OUT"
    output "sarif=$GATE_SARIF_OUT"
  fi
  say "gate check $*"
  output "base=$base" "tip=$tip" "report=$report"
  status=0
  # One judgement: the JSON report, and the same report as annotations on
  # the paths and the job summary.
  gate check "$@" --json-out "$report" --format github --max-findings "${GATE_MAX_FINDINGS:-200}" || status=$?
  output "exit-code=$status"
  exit $status
}

case ${1:-} in
  cache-key) cache_key ;;
  check) check ;;
  *) echo "usage: ci/github.sh cache-key|check" >&2; exit 2 ;;
esac
