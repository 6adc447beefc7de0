#!/bin/sh
# gate in GitLab CI (docs/ci.md): what ci/gitlab-ci.yml runs, kept in a
# script so it can be run and tested with the variables GitLab sets.
#
#   ci/gitlab.sh check   prove the merge request's or the push's commits
#
# A merge request pipeline (CI_PIPELINE_SOURCE=merge_request_event) proves
# CI_MERGE_REQUEST_DIFF_BASE_SHA..(the source branch's head) under the
# target branch's policy and plan (--policy-from); a push proves
# CI_COMMIT_BEFORE_SHA..CI_COMMIT_SHA (from where they meet, for a force
# push; from the default branch, for a new branch). Optional: GATE_BASE,
# GATE_POLICY_FROM, GATE_MAX_FINDINGS (default 200), GATE_RUN_UNPROVED
# (true: `--run-unproved`). Writes the JSON report to
# $CI_PROJECT_DIR/gate-report.json — replacing it, never writing through a
# file or link the change committed there — and exits as `gate check` does: 0
# nothing blocks, 1 refused, 3 unknown — and 3 when it cannot tell what to
# prove.
set -eu

say() { echo "gate-ci: $*" >&2; }
unknown() { say "$*"; exit 3; }

zero() {
  case $1 in *[!0]*) return 1 ;; *) return 0 ;; esac
}

check() {
  command -v gate >/dev/null 2>&1 || unknown "gate is not on PATH (install it first: ./install.sh --prefix DIR, then add DIR/bin to PATH)"
  cd "${CI_PROJECT_DIR:-.}"
  report="$PWD/gate-report.json"

  # Full history: a shallow clone proves nothing past its boundary.
  if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
    say "the checkout is shallow: fetching the full history (set GIT_DEPTH: 0)"
    git fetch --quiet --unshallow origin || unknown "could not fetch the full history (set GIT_DEPTH: \"0\")"
  fi

  policy_from=${GATE_POLICY_FROM:-}
  not=
  if [ "${CI_PIPELINE_SOURCE:-}" = merge_request_event ]; then
    target_ref=${CI_MERGE_REQUEST_TARGET_BRANCH_NAME:?CI_MERGE_REQUEST_TARGET_BRANCH_NAME is not set}
    git fetch --quiet origin "+refs/heads/$target_ref:refs/remotes/origin/$target_ref" ||
      unknown "could not fetch the target branch $target_ref"
    # What the target already has is never the merge request's work.
    not="refs/remotes/origin/$target_ref"
    # The source branch's own head, never a merged-results commit.
    tip=${CI_MERGE_REQUEST_SOURCE_BRANCH_SHA:-${CI_COMMIT_SHA:?CI_COMMIT_SHA is not set}}
    base=${GATE_BASE:-${CI_MERGE_REQUEST_DIFF_BASE_SHA:-}}
    [ -n "$base" ] || unknown "no CI_MERGE_REQUEST_DIFF_BASE_SHA: set GATE_BASE to the commit to prove from"
    # The rules: the target branch's as they are now, never the tip's.
    if [ -z "$policy_from" ]; then
      policy_from=${CI_MERGE_REQUEST_TARGET_BRANCH_SHA:-$(git rev-parse "refs/remotes/origin/$target_ref")}
    fi
  else
    tip=${CI_COMMIT_SHA:?CI_COMMIT_SHA is not set}
    before=${CI_COMMIT_BEFORE_SHA:-}
    # A branch's push never proves what the default branch already has (a
    # merge or a rebase onto it brought those commits in).
    if [ -n "${CI_DEFAULT_BRANCH:-}" ] && [ -n "${CI_COMMIT_BRANCH:-}" ] &&
      [ "$CI_COMMIT_BRANCH" != "$CI_DEFAULT_BRANCH" ]; then
      git fetch --quiet origin "+refs/heads/$CI_DEFAULT_BRANCH:refs/remotes/origin/$CI_DEFAULT_BRANCH" ||
        unknown "could not fetch the default branch $CI_DEFAULT_BRANCH"
      not="refs/remotes/origin/$CI_DEFAULT_BRANCH"
    fi
    if [ -n "${GATE_BASE:-}" ]; then
      base=$GATE_BASE
    elif [ -n "$before" ] && ! zero "$before"; then
      # A force push leaves `before` off the new history: from where they meet.
      base=$(git merge-base "$before" "$tip") ||
        unknown "the push's old tip $before shares no history with $tip (or is gone): set GATE_BASE"
    else
      # A new branch: from where it leaves the default branch.
      default=${CI_DEFAULT_BRANCH:?CI_DEFAULT_BRANCH is not set}
      git fetch --quiet origin "+refs/heads/$default:refs/remotes/origin/$default" ||
        unknown "could not fetch the default branch $default"
      base=$(git merge-base "refs/remotes/origin/$default" "$tip") ||
        unknown "the new branch shares no history with $default: set GATE_BASE"
      if [ "$(git rev-parse "$base")" = "$(git rev-parse "$tip")" ]; then
        unknown "the new branch adds no commit to $default, so there is nothing to prove from: set GATE_BASE to the commit to prove from"
      fi
    fi
  fi

  # The receipts that travelled with the commits (docs/receipts.md).
  # (merged into any the clone has; none there is no error: each required
  # check then says no receipt travelled).
  gate receipts fetch origin >&2 ||
    unknown "could not fetch the receipts (refs/notes/gate) from origin: see above"

  set -- --range "$base..$tip"
  if [ -n "$not" ]; then set -- "$@" --not "$not"; fi
  if [ -n "$policy_from" ]; then set -- "$@" --policy-from "$policy_from"; fi
  # Checks no verified receipt proves are run here, on the tip's checkout.
  case ${GATE_RUN_UNPROVED:-false} in
    true | 1 | yes) set -- "$@" --run-unproved ;;
  esac
  say "gate check $*"
  status=0
  # One judgement: the JSON report, and the same for people reading the
  # job's log.
  gate check "$@" --json-out "$report" --max-findings "${GATE_MAX_FINDINGS:-200}" || status=$?
  exit $status
}

case ${1:-} in
  check) check ;;
  *) echo "usage: ci/gitlab.sh check" >&2; exit 2 ;;
esac
