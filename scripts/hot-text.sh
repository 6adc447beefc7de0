#!/bin/sh
# Regenerate link/hot-text.ld: the functions gate's hooks run, laid out
# first in gate's text on Linux x86_64 (decision 0033, docs/performance.md
# "Hooks on every commit").
#
#   scripts/hot-text.sh [DIR]        (default DIR: /tmp/gate-hot-text)
#
# A hook touches about 1.4 MB of a 10 MB text. Left where the linker puts
# them, those functions lie on ~100 different 64 KiB windows, and each
# window is a page fault (the kernel maps a fault's neighbours with it):
# 97 faults, a quarter of a pre-commit's wall time. Laid out first, 26.
#
# It builds gate as install.sh does (static, non-PIE) but with its symbols,
# runs each hook once in a repository made under DIR, under valgrind's
# callgrind, and writes a linker script that puts every function that ran
# at the start of .text:
#   - Rust functions by the sections rustc gives them (`.text.<mangled
#     name>`), the parts that change from build to build (the legacy hash,
#     v0's crate disambiguators, LLVM's `.N` suffixes) made wildcards: they
#     match the same functions whatever the profile, directory or version;
#   - C functions (glibc's, linked statically) by the archive member that
#     defines them (`*libc.a:malloc.o`).
# A function renamed since is simply not matched and lies where the linker
# puts it: a stale script costs page faults, never a build.
# Needs cargo, git, gcc, nm, python3, valgrind (apt-get install valgrind).
set -eu

dir=${1:-/tmp/gate-hot-text}
root=$(cd "$(dirname "$0")/.." && pwd)
for tool in cargo git gcc nm python3 valgrind; do
  command -v "$tool" >/dev/null 2>&1 || { echo "hot-text.sh: $tool is missing (apt-get install valgrind)" >&2; exit 1; }
done
target=x86_64-unknown-linux-gnu
[ "$(rustc -vV | sed -n 's/^host: //p')" = $target ] || { echo "hot-text.sh: runs on $target only" >&2; exit 1; }
rm -rf "$dir"; mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

echo "== building gate with its symbols"
(cd "$root" && RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static" \
  CARGO_PROFILE_RELEASE_STRIP=false \
  cargo build --quiet --release --locked --target $target --target-dir "$root/target/hot-text")
gate=$root/target/hot-text/$target/release/gate

echo "== a repository with a task, gate's hooks and a remote"
r=$dir/repo
git init -q -b main "$r"
git -C "$r" config user.name Hot; git -C "$r" config user.email hot@example.com
i=0
while [ $i -lt 200 ]; do
  mkdir -p "$r/src/d$((i % 10))"; echo "file $i" > "$r/src/d$((i % 10))/f$i.txt"; i=$((i + 1))
done
git -C "$r" add -A && git -C "$r" commit -q -m init
git init -q --bare "$dir/remote.git"
git -C "$r" remote add origin "$dir/remote.git"
(cd "$r" && "$gate" init >/dev/null && git add -A && git commit -q --no-verify -m gate)
printf 'hot\n' | (cd "$r" && "$gate" start --operator Hot --scope 'src/**' --id T-hot --brief - >/dev/null)
git -C "$r" add -A && git -C "$r" commit -q --no-verify -m task
git -C "$r" push -q --no-verify origin main
(cd "$r" && "$gate" install >/dev/null)
printf 'x\n' >> "$r/src/d0/f0.txt" && git -C "$r" add src/d0/f0.txt
printf 'a message\n' > "$r/.git/HOT_MSG"
old=$(git -C "$r" rev-parse HEAD)

run() { # $1: a name for its profile; stdin: the hook's input; the rest: gate's arguments
  name=$1; shift
  (cd "$r" && valgrind -q --tool=callgrind --demangle=no --dump-instr=no \
    --callgrind-out-file="$dir/out.$name" "$gate" "$@" >/dev/null 2>&1) || :
  [ -s "$dir/out.$name" ] || { echo "hot-text.sh: callgrind wrote nothing for $name" >&2; exit 1; }
}
echo "== running the hooks under callgrind"
run version --version </dev/null
run pre-commit hook pre-commit </dev/null
run prepare-commit-msg hook prepare-commit-msg .git/HOT_MSG </dev/null
git -C "$r" commit -q --no-verify -m "an edit" -m "Task: T-hot"
new=$(git -C "$r" rev-parse HEAD)
printf 'refs/heads/main %s refs/heads/main %s\n' "$new" "$old" > "$dir/push-lines"
run pre-push hook pre-push origin "$dir/remote.git" < "$dir/push-lines"
run post-checkout hook post-checkout "$old" "$new" 1 </dev/null
printf '{"session_id":"s","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"%s/src/d0/new.txt","content":"x\\n"}}' "$r" "$r" > "$dir/tool-use"
run pre-tool-use hook claude-code pre-tool-use < "$dir/tool-use"

echo "== writing link/hot-text.ld"
libs=
for l in libc.a libm.a libgcc_eh.a libgcc.a; do
  f=$(gcc -print-file-name=$l) && [ -f "$f" ] && libs="$libs $f"
done
mkdir -p "$root/link"
# The most frequent first: every commit runs the first two, every agent's
# tool call the fourth.
# shellcheck disable=SC2086
python3 "$root/scripts/hot-text.py" "$root/link/hot-text.ld" \
  "$dir/out.version" "$dir/out.pre-commit" "$dir/out.prepare-commit-msg" \
  "$dir/out.pre-tool-use" "$dir/out.post-checkout" "$dir/out.pre-push" -- $libs
