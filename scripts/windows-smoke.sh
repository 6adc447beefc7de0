#!/bin/sh
# Build gate for Windows from Linux and drive it under Wine through a
# task's first steps in a real repository (docs/platforms.md).
#
#   scripts/windows-smoke.sh            # build, then run the steps
#   GATE_WINDOWS_EXE=path/gate.exe scripts/windows-smoke.sh   # no build
#
# Needs the x86_64-pc-windows-gnu target (`rustup target add`), MinGW
# (`apt-get install gcc-mingw-w64-x86-64`), Wine (`apt-get install wine64`)
# and git. Wine 8 lacks bcryptprimitives.dll, which Rust's std asks for
# random bytes: the script builds a stand-in beside the binary (ProcessPrng
# over RtlGenRandom). Exits non-zero at the first step that is not as
# expected.
set -eu
cd "$(dirname -- "$0")/.."
here=$(pwd)

fail() { echo "windows-smoke: $*" >&2; exit 1; }

wine=$(command -v wine64 || true)
[ -n "$wine" ] || { [ -x /usr/lib/wine/wine64 ] && wine=/usr/lib/wine/wine64; }
[ -n "$wine" ] || fail "no wine64 (apt-get install wine64)"
wineserver=$(command -v wineserver || true)
[ -n "$wineserver" ] || { [ -x /usr/lib/wine/wineserver ] && wineserver=/usr/lib/wine/wineserver; }
command -v x86_64-w64-mingw32-gcc >/dev/null || fail "no MinGW (apt-get install gcc-mingw-w64-x86-64)"

exe=${GATE_WINDOWS_EXE:-}
if [ -z "$exe" ]; then
  cargo build --locked --target x86_64-pc-windows-gnu
  exe=${CARGO_TARGET_DIR:-$here/target}/x86_64-pc-windows-gnu/debug/gate.exe
fi
[ -f "$exe" ] || fail "no binary at $exe"

work=$(mktemp -d "${TMPDIR:-/tmp}/gate-windows-smoke.XXXXXX")
trap '"${wineserver:-true}" -k 2>/dev/null; rm -rf "$work"' EXIT
WINEPREFIX=$work/prefix WINEDEBUG=-all
export WINEPREFIX WINEDEBUG

# The stand-in DLL, beside a copy of the binary.
mkdir "$work/bin"
cp "$exe" "$work/bin/gate.exe"
cat >"$work/bcp.c" <<'EOF'
#include <windows.h>
#include <ntsecapi.h>
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!RtlGenRandom(data, chunk)) return FALSE;
        data += chunk; len -= chunk;
    }
    return TRUE;
}
EOF
x86_64-w64-mingw32-gcc -shared -O2 -o "$work/bin/bcryptprimitives.dll" "$work/bcp.c" -ladvapi32

gate() { "$wine" "$work/bin/gate.exe" "$@"; }

step() { echo "== $*"; }

step "gate --version"
gate --version | grep -q '^gate ' || fail "--version did not say gate"

repo=$work/repo
git init -q -b main "$repo"
cd "$repo"
git config user.email smoke@example.com
git config user.name smoke
echo hello >README.md
git add README.md
git commit -qm init

step "gate init"
gate init >/dev/null
[ -f .gate/policy.yaml ] && [ -f .gate/plan.yaml ] || fail "init wrote no policy or plan"
git add .gate
git commit -qm "gate: policy and plan"

step "gate install: the hooks record the binary as Git for Windows' sh runs it"
gate install >/dev/null
recorded=$(sed -n "s/^recorded='\(.*\)'$/\1/p" .git/hooks/pre-commit)
case $recorded in
  [A-Z]:/*/gate.exe) ;;
  *) fail "the hook records '$recorded', not a drive path with /" ;;
esac

step "gate start: a task file written through the portable platform"
git checkout -qb work
echo "add the export columns" | gate start --issue 17 --brief - >/dev/null
ls .gate/tasks/*.md >/dev/null 2>&1 || fail "no task file"

step "gate status --json: the work tree a plain drive path (no verbatim prefix)"
mkdir -p src/export
echo "date,amount" >src/export/columns.csv
status=$(gate status --json) || true
printf '%s\n' "$status" | grep -q '"schema": "gate.status/1"' || fail "status printed no status document"
printf '%s\n' "$status" | grep -q '"worktree": "[A-Z]:\\\\' ||
  fail "the worktree is not a plain drive path: $(printf '%s\n' "$status" | grep worktree)"

step "gate check: every check, exit 0 under the advisory default"
gate check >/dev/null || fail "gate check exited $?"

step "gate verify: sh is not on Wine's PATH, and gate says so"
if gate verify export-tests >"$work/verify.out" 2>&1; then
  fail "verify passed without sh"
fi
grep -q 'cannot start sh' "$work/verify.out" || fail "verify did not name sh: $(cat "$work/verify.out")"

step "gate doctor: the hooks run this gate (the recorded Z:/… is this Z:\\…)"
gate doctor >"$work/doctor.out" 2>&1 || true
for hook in pre-commit prepare-commit-msg pre-push post-checkout; do
  grep -q "hook $hook .*runs this gate" "$work/doctor.out" ||
    fail "doctor does not see this gate in the $hook hook: $(cat "$work/doctor.out")"
done

echo "windows-smoke: ok"
