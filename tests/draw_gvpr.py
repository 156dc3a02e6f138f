#!/usr/bin/env python3
"""hitfam draw and verify --explain write DOT that Graphviz reads as the order with the right
events marked, checked with Graphviz's gvpr and nothing of hitfam's but its output:
- every drawing has the nodes of the order, byte for byte, and its solid edges have the
  transitive closure of the order's edges (both as gvpr reads the input file);
- each label starts with the event's name (backslashes doubled, as label escapes need);
- `draw --row I`: the dashed edges form one path through every event, that path is schedule I
  of the family (read from its JSON form) and a linear extension of the order, and each label
  ends with the event's position in it;
- `verify --explain` on a family that is not hitting: the highlighted events, in the order of
  the bold edges, form a tuple that is admissible and that no schedule of the family orders.
Graphviz is installed by the README's test command: a missing gvpr fails the test.
Usage: draw_gvpr.py HITFAM SOURCE_ROOT"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SCRIPT = (
    'N { printf("N %d %s\\n%d %s\\n%d %s\\n", length($.name), $.name, length($.label), '
    '$.label, length($.fillcolor), $.fillcolor) } '
    'E { printf("E %d %s %d %s %d %s %d %s\\n", length($.tail.name), $.tail.name, '
    'length($.head.name), $.head.name, length($.style), $.style, length($.constraint), '
    '$.constraint) }')


def fields(out, i, k):
    """k length-prefixed byte strings at out[i:]; returns them and the next index."""
    got = []
    for _ in range(k):
        j = out.index(b" ", i)
        n = int(out[i:j])
        got.append(out[j + 1:j + 1 + n])
        i = j + 1 + n + 1  # the value, then a space or a newline
    return got, i


def read_graph(dot_bytes):
    """nodes {name: (label, fillcolor)} in order, edges [(tail, head, style, constraint)]."""
    out = subprocess.run(["gvpr", SCRIPT], input=dot_bytes, capture_output=True, check=True).stdout
    nodes, edges, i = {}, [], 0
    while i < len(out):
        tag, i = out[i:i + 2], i + 2
        if tag == b"N ":
            (name,), i = fields(out, i, 1)
            (label, color), i = fields(out, i, 2)
            nodes[name] = (label, color)
        elif tag == b"E ":
            f, i = fields(out, i, 4)
            edges.append(tuple(f))
        else:
            raise ValueError("unexpected gvpr output at byte %d" % (i - 2))
    return nodes, edges


def closure(nodes, pairs):
    succ = {x: set() for x in nodes}
    for a, b in pairs:
        succ[a].add(b)
    below = {}

    def reach(x):
        if x not in below:
            below[x] = set()
            for y in succ[x]:
                below[x] |= {y} | reach(y)
        return below[x]

    return {(a, b) for a in nodes for b in reach(a)}


def label_of_name(name):
    return name.replace(b"\\", b"\\\\")


failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def run(args, **kw):
    return subprocess.run(args, capture_output=True, **kw)


def main():
    hitfam, root = sys.argv[1], sys.argv[2]
    if not shutil.which("gvpr"):
        print("gvpr (Graphviz) is missing: the README's test command installs graphviz")
        return 1
    files = [os.path.join(root, "examples", f) for f in ("page.dot", "eventloop.dot")]
    for sub in ("tests/data/posets", "tests/data/dot"):
        d = os.path.join(root, sub)
        files += [os.path.join(d, f) for f in sorted(os.listdir(d))
                  if f.endswith(".dot") and not f.startswith("reject_")]
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            base = os.path.basename(path)
            with open(path, "rb") as fh:
                data = fh.read()
            # hitfam skips a UTF-8 byte order mark, which gvpr refuses
            order_nodes, order_edges = read_graph(data[3:] if data.startswith(b"\xef\xbb\xbf") else data)
            lt = closure(order_nodes, [(e[0], e[1]) for e in order_edges])
            plain = run([hitfam, "draw", "--conflicts", path])
            if plain.returncode != 0:
                check(b"cannot be drawn" in plain.stderr, "%s: draw failed: %r" % (base, plain.stderr))
                continue
            nodes, edges = read_graph(plain.stdout)
            check(list(nodes) == list(order_nodes), "%s: the drawing's nodes differ" % base)
            solid = [(e[0], e[1]) for e in edges if e[3] != b"false"]
            check(closure(nodes, solid) == lt, "%s: the drawing's order differs" % base)
            for name, (label, _) in nodes.items():
                check(label.startswith(label_of_name(name)), "%s: label of %r" % (base, name))
            fam = os.path.join(tmp, "fam.json")
            g = run([hitfam, "gen", "--d", "2", "--format", "json", "-o", fam, path])
            if not check(g.returncode == 0, "%s: gen failed" % base):
                continue
            with open(fam, "rb") as fh:
                family = json.loads(fh.read().decode("utf-8", "surrogateescape"))
            names = [e.encode("utf-8", "surrogateescape") for e in family["events"]]
            rows = [[names[i] for i in r] for r in family["schedules"]]
            for r, row in enumerate(rows[:3], 1):
                d = run([hitfam, "draw", path, fam, "--row", str(r)])
                if not check(d.returncode == 0, "%s: draw --row %d failed" % (base, r)):
                    continue
                nodes, edges = read_graph(d.stdout)
                step = {e[0]: e[1] for e in edges if e[2] == b"dashed"}
                start = [x for x in nodes if x not in set(step.values())]
                path_ = start[:1]
                while path_ and path_[-1] in step and len(path_) <= len(nodes):
                    path_.append(step[path_[-1]])
                check(path_ == row, "%s row %d: the dashed path is not the schedule" % (base, r))
                at = {x: k for k, x in enumerate(path_)}
                check(all(at[a] < at[b] for a, b in lt if a in at and b in at),
                      "%s row %d: the path is no linear extension" % (base, r))
                for x, (label, _) in nodes.items():
                    check(label.endswith(b"\\n#%d" % (at.get(x, -2) + 1)),
                          "%s row %d: label of %r" % (base, r, x))
                checked += 1
            # the first schedule alone is rarely 2-hitting: explain what it misses
            one = os.path.join(tmp, "one.json")
            family["schedules"] = family["schedules"][:1]
            with open(one, "wb") as fh:
                fh.write(json.dumps(family).encode("utf-8", "surrogateescape"))
            ex = os.path.join(tmp, "explain.dot")
            if os.path.exists(ex):
                os.remove(ex)
            v = run([hitfam, "verify", "--d", "2", "--explain", ex, path, one])
            if v.returncode == 0:
                check(not os.path.exists(ex), "%s: --explain wrote a file for a hitting family" % base)
                continue
            if not check(v.returncode == 1 and os.path.exists(ex), "%s: verify --explain" % base):
                continue
            with open(ex, "rb") as fh:
                nodes, edges = read_graph(fh.read())
            marked = [x for x, (label, color) in nodes.items() if color == b"#f4a3a3"]
            then = {e[0]: e[1] for e in edges if e[2] == b"bold"}
            first = [x for x in marked if x not in set(then.values())]
            tup = first[:1]
            while tup and tup[-1] in then:
                tup.append(then[tup[-1]])
            if check(len(tup) == 2 and sorted(tup) == sorted(marked),
                     "%s: the explained tuple %r" % (base, tup)):
                a, b = tup
                check((b, a) not in lt, "%s: the explained tuple is not admissible" % base)
                r0 = rows[0]
                check(r0.index(b) < r0.index(a), "%s: the explained tuple is hit" % base)
                checked += 1
    for f in failures:
        print("FAIL " + f)
    print("%d drawings checked, %d failures" % (checked, len(failures)))
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
