#!/usr/bin/env python3
"""Write a deterministic `git fast-import` stream of a generated history.

    scripts/gen-history.py COMMITS FILES [DEPTH] | git fast-import --quiet

A root commit adds FILES files in 100 directories (DEPTH 2, the default:
`src/dNN/`), or in 100 × 8 directories one level deeper (DEPTH 3:
`src/dNN/eN/`, a three-level tree); each later commit makes
one to four changes — content edits, additions, deletions, renames (pure and
with an edit), chmod +x / -x — with fixed dates. Every 100th commit merges a
short side branch (two commits) back with `--no-ff` shape.

DEPTH `wide` is shaped as git/git is: wide directories (a quarter of the
files at the root, another quarter in `t/`, the rest in `Documentation/`
and `src/dNN/`) and a merge every third commit on main, of a topic of one
to four commits forked from main 10 to 300 commits before, so that a
merge's bases are old and its parents differ at many names. Topics edit
and add files, main edits them; nothing is deleted or renamed.

The same arguments always give the same commit ids. Used by
scripts/bench.sh.
"""
import random
import sys


class Stream:
    """A `git fast-import` stream of commits, marked 1, 2, … in order."""

    def __init__(self, out):
        self.out = out
        self.mark = 0

    def data(self, b):
        self.out.write(b"data %d\n" % len(b))
        self.out.write(b)
        self.out.write(b"\n")

    def commit(self, branch, msg, ops, parents, when):
        """Write a commit on `branch` with `ops` (fast-import file commands)
        over its first parent; return its mark."""
        self.mark += 1
        out = self.out
        out.write(b"commit refs/heads/%s\nmark :%d\n" % (branch.encode(), self.mark))
        out.write(b"author Bench <bench@example.com> %d +0000\n" % when)
        out.write(b"committer Bench <bench@example.com> %d +0000\n" % when)
        self.data(msg.encode())
        if parents:
            out.write(b"from :%d\n" % parents[0])
            for p in parents[1:]:
                out.write(b"merge :%d\n" % p)
        for op in ops:
            out.write(op)
        return self.mark

    def done(self):
        self.out.write(b"done\n")


def lines(rng, template, tag, most):
    """A file's content: 3 to `most` lines of `template` (tag, line, random)."""
    out = [template % (tag, i, rng.randrange(1 << 30)) for i in range(rng.randint(3, most))]
    return b"\n".join(out) + b"\n"


def main():
    commits, files = int(sys.argv[1]), int(sys.argv[2])
    shape = sys.argv[3] if len(sys.argv) > 3 else "2"
    if shape == "wide":
        return wide(commits, files)
    depth = int(shape) if shape in ("2", "3") else 0
    if depth not in (2, 3):
        sys.exit("gen-history.py: DEPTH is 2, 3 or wide")
    rng = random.Random(7)
    stream = Stream(sys.stdout.buffer)
    commit = stream.commit
    t0 = 1_700_000_000

    def content(tag):
        return lines(rng, b"// %s line %d %d", tag, 40)

    live = {}  # path -> executable?
    names = iter(range(10**9))

    def new_path():
        n = next(names)
        if depth == 3:
            return "src/d%02d/e%d/f%06d.rs" % (n % 100, n // 100 % 8, n)
        return "src/d%02d/f%06d.rs" % (n % 100, n)

    def modify(path, executable, body):
        mode = b"100755" if executable else b"100644"
        return b"M %s inline %s\n" % (mode, path.encode()) + b"data %d\n" % len(body) + body + b"\n"

    def random_ops(tag):
        ops = []
        for _ in range(rng.randint(1, 4)):
            kind = rng.random()
            paths = list(live)
            if kind < 0.55 or len(paths) < 10:
                p = rng.choice(paths) if paths and kind < 0.55 else new_path()
                live[p] = live.get(p, False)
                ops.append(modify(p, live[p], content(tag)))
            elif kind < 0.70:
                p = new_path()
                live[p] = False
                ops.append(modify(p, False, content(tag)))
            elif kind < 0.80:
                p = rng.choice(paths)
                del live[p]
                ops.append(b"D %s\n" % p.encode())
            elif kind < 0.92:
                p = rng.choice(paths)
                q = new_path()
                live[q] = live.pop(p)
                ops.append(b"R %s %s\n" % (p.encode(), q.encode()))
                if rng.random() < 0.3:
                    ops.append(modify(q, live[q], content(tag)))
            else:
                p = rng.choice(paths)
                live[p] = not live[p]
                ops.append(modify(p, live[p], content(tag)))
        return ops

    root_ops = []
    for _ in range(files):
        p = new_path()
        live[p] = False
        root_ops.append(modify(p, False, content(b"root")))
    tip = commit("main", "root\n", root_ops, [], t0)
    n = 1
    while n < commits:
        when = t0 + n * 60
        if n % 100 == 0 and n + 3 <= commits:
            # A side branch that only adds files, merged back cleanly: the
            # merge brings its additions in and changes nothing itself.
            side, added = tip, []
            for k in range(2):
                ops = []
                for _ in range(rng.randint(1, 3)):
                    p, body = new_path(), content(b"side")
                    added.append((p, body))
                    ops.append(modify(p, False, body))
                side = commit("side", "side %d/%d\n" % (n, k), ops, [side], when + k)
            tip = commit("main", "work %d\n" % n, random_ops(b"main"), [tip], when + 2)
            for p, _ in added:
                live[p] = False
            merged = [modify(p, False, body) for p, body in added]
            tip = commit("main", "merge side %d\n" % n, merged, [tip, side], when + 3)
            n += 4
        else:
            tip = commit("main", "work %d\n" % n, random_ops(b"main"), [tip], when)
            n += 1
    stream.done()


def wide(commits, files):
    """The `wide` shape (see the module's comment)."""
    rng, stream, t0 = random.Random(29), Stream(sys.stdout.buffer), 1_700_000_000
    commit = stream.commit

    def content(tag):
        return lines(rng, b"/* %s line %d %d */", tag, 30)

    def modify(path, body):
        return b"M 100644 inline %s\n" % path.encode() + b"data %d\n" % len(body) + body + b"\n"

    names = iter(range(10**9))

    def new_path():
        n = next(names)
        place = n % 8
        if place < 2:
            return "f%06d.c" % n
        if place < 4:
            return "t/t%06d.sh" % n
        if place < 5:
            return "Documentation/d%06d.txt" % n
        return "src/d%02d/f%06d.c" % (n % 100, n)

    paths = [new_path() for _ in range(files)]
    tip = commit("main", "root\n", [modify(p, content(b"root")) for p in paths], [], t0)
    main_line = [tip]
    when = t0
    made = 1
    while made < commits:
        when += 60
        if len(main_line) > 10 and len(main_line) % 3 == 0 and made + 6 <= commits:
            fork = main_line[-rng.randint(10, min(300, len(main_line) - 1))]
            side, edits = fork, []
            for k in range(rng.randint(1, 4)):
                ops = []
                for _ in range(rng.randint(1, 3)):
                    p = rng.choice(paths) if rng.random() < 0.8 else new_path()
                    body = content(b"topic")
                    edits.append((p, body))
                    ops.append(modify(p, body))
                when += 1
                side = commit("topic", "topic %d/%d\n" % (made, k), ops, [side], when)
                made += 1
            for p, _ in edits:
                if p not in paths:
                    paths.append(p)
            # The merge holds main's tree with the topic's files.
            when += 1
            tip = commit("main", "Merge branch topic %d\n" % made, [modify(p, b) for p, b in edits], [tip, side], when)
            made += 1
        else:
            ops = [modify(rng.choice(paths), content(b"main")) for _ in range(rng.randint(1, 3))]
            tip = commit("main", "work %d\n" % made, ops, [tip], when)
            made += 1
        main_line.append(tip)
    stream.done()


if __name__ == "__main__":
    main()
