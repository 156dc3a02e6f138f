#!/usr/bin/env python3
"""hitfam reads every DOT file exactly as Graphviz does: for each DOT file of the project (the
test inputs, the examples and the fuzz corpus) that hitfam accepts, Graphviz's gvpr must list
the same nodes, byte for byte and in the same order, and the same order relation (hitfam keeps
the Hasse diagram, so transitive closures are compared). Files that hitfam refuses are listed
with gvpr's view, as a count. Graphviz is installed by the README's test command: a missing
gvpr fails the test.
Usage: dot_gvpr.py DOT_DUMP SOURCE_ROOT"""
import os
import shutil
import subprocess
import sys

GVPR_SCRIPT = (
    'BEG_G { printf("G\\n") } '
    'N { printf("N %d %s\\n", length($.name), $.name) } '
    'E { printf("E %d %s %d %s\\n", length($.tail.name), $.tail.name, '
    'length($.head.name), $.head.name) }')


def take(data, i, count):
    """The `count` bytes at data[i:], then the index after the newline that follows them."""
    value = data[i:i + count]
    if data[i + count:i + count + 1] != b"\n" and data[i + count:i + count + 1] != b" ":
        raise ValueError("malformed record")
    return value, i + count + 1


def read_int(data, i):
    """The decimal number at data[i:] and the index after the space or newline ending it."""
    j = i
    while data[j:j + 1].isdigit():
        j += 1
    if j == i or data[j:j + 1] not in (b" ", b"\n"):
        raise ValueError("malformed number at byte %d" % i)
    return int(data[i:j]), j + 1


def parse_gvpr(out):
    """[(nodes in order, set of (tail, head))] per graph."""
    graphs, i = [], 0
    while i < len(out):
        tag = out[i:i + 2]
        if tag == b"G\n":
            graphs.append(([], set()))
            i += 2
        elif tag == b"N ":
            n, i = read_int(out, i + 2)
            name, i = take(out, i, n)
            graphs[-1][0].append(name)
        elif tag == b"E ":
            n, i = read_int(out, i + 2)
            tail, i = take(out, i, n)
            n, i = read_int(out, i)
            head, i = take(out, i, n)
            graphs[-1][1].add((tail, head))
        else:
            raise ValueError("unexpected gvpr output at byte %d" % i)
    return graphs


def parse_dump(out):
    """{path: None (refused) or (names, set of (i, j))}."""
    files, i, cur = {}, 0, None
    while i < len(out):
        tag = out[i:i + 2]
        n, i = read_int(out, i + 2)
        if tag == b"F ":
            path, i = take(out, i, n)
            cur = path.decode()
            files[cur] = ([], set())
        elif tag == b"X ":
            files[cur] = None
        elif tag == b"N ":
            name, i = take(out, i, n)
            files[cur][0].append(name)
        elif tag == b"E ":
            m, i = read_int(out, i)
            files[cur][1].add((n, m))
    return files


def closure(nodes, pairs):
    index = {v: k for k, v in enumerate(nodes)}
    succ = [set() for _ in nodes]
    for a, b in pairs:
        succ[index[a] if not isinstance(a, int) else a].add(index[b] if not isinstance(b, int) else b)
    order = set()
    for s in range(len(nodes)):
        seen, stack = set(), list(succ[s])
        while stack:
            v = stack.pop()
            if v not in seen:
                seen.add(v)
                stack.extend(succ[v])
        order.update((s, v) for v in seen)
    return order


def random_names(rng, count):
    """Byte strings (no NUL) built mostly from the bytes that matter to DOT's quoting."""
    alphabet = [b"\\", b'"', b"\n", b"\r", b"<", b">", b"%", b" ", b"a", b"Z", b"_", b"0",
                b"-", b".", b"\t", b"\xc3\xa9", b"\xff", b"#", b";", b"{", b"}", b"\x01"]
    names, seen = [], set()
    while len(names) < count:
        name = b"".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 9)))
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names


def check_writer(dump, gvpr, env):
    """Names written by hf_dot_write_name read back through gvpr as themselves; a refused name
    is one that neither the quoted form nor the angle-bracket form gives back."""
    import random
    rng = random.Random(20261124)
    names = random_names(rng, 3000)
    stdin = b"".join(b"%d %s\n" % (len(n), n) for n in names)
    out = subprocess.run([dump, "--ids"], input=stdin, capture_output=True, check=True).stdout
    first, dot = out.split(b"\n", 1)
    refused = {int(x) for x in first.split()[1:]}
    graphs = parse_gvpr(subprocess.run([gvpr, GVPR_SCRIPT], input=dot, capture_output=True,
                                       env=env, check=True).stdout)
    want = [n for i, n in enumerate(names) if i not in refused]
    bad = 0
    if graphs[0][0] != want:
        got = graphs[0][0]
        for k in range(min(len(got), len(want))):
            if got[k] != want[k]:
                print("not ok - written %r, Graphviz read %r" % (want[k], got[k]))
                break
        bad += 1
    # each refusal is needed: both forms hitfam knows fail in Graphviz
    tries = []
    for i in sorted(refused):
        n = names[i]
        tries.append((i, b'"' + n.replace(b'"', b'\\"') + b'"'))
        tries.append((i, b"<" + n + b">"))
    for i, text in tries:
        r = subprocess.run([gvpr, GVPR_SCRIPT], input=b"digraph { " + text + b" }",
                           capture_output=True, env=env)
        g = parse_gvpr(r.stdout) if r.returncode == 0 and r.stdout else []
        if len(g) == 1 and g[0][0] == [names[i]]:
            print("not ok - %r was refused but Graphviz reads %r back" % (names[i], text))
            bad += 1
    print("%d names written, %d refused (each refusal confirmed with gvpr)" %
          (len(names), len(refused)))
    if len(refused) > len(names) // 4:
        print("not ok - too many refusals")
        bad += 1
    return bad


def main():
    dump, root = sys.argv[1], sys.argv[2]
    gvpr = shutil.which("gvpr")
    if not gvpr:
        print("gvpr (Debian package graphviz) is missing: the README's test command installs it")
        return 1
    paths = []
    for base in ("tests/data", "examples", "fuzz/corpus/dot"):
        for dirpath, _, names in os.walk(os.path.join(root, base)):
            for name in sorted(names):
                if base == "fuzz/corpus/dot" or name.endswith(".dot"):
                    paths.append(os.path.join(dirpath, name))
    paths.sort()
    ours = parse_dump(subprocess.run([dump] + paths, capture_output=True, check=True).stdout)
    env = dict(os.environ, LC_ALL="C")
    compared = refused = unreadable = failed = 0
    for path in paths:
        mine = ours[path]
        if mine is None:
            refused += 1
            continue
        with open(path, "rb") as f:
            text = f.read()
        if text.startswith(b"\xef\xbb\xbf"):
            # hitfam skips a leading byte order mark wherever it is; Graphviz only before a
            # blank (the one documented difference): give gvpr the text after it
            text = text[3:]
        try:
            r = subprocess.run([gvpr, GVPR_SCRIPT], input=text, capture_output=True, env=env,
                               timeout=60)
            graphs = parse_gvpr(r.stdout) if r.returncode == 0 else None
        except (subprocess.TimeoutExpired, ValueError):
            graphs = None
        if not graphs or len(graphs) != 1:
            # hitfam accepted one graph: Graphviz must read it too
            print("not ok - %s: gvpr could not read a file hitfam accepts" % path)
            unreadable += 1
            continue
        names, edges = graphs[0]
        problems = []
        if names != mine[0]:
            problems.append("nodes differ:\n  gvpr:   %r\n  hitfam: %r" % (names, mine[0]))
        elif closure(names, edges) != closure(mine[0], mine[1]):
            problems.append("the order differs")
        if problems:
            failed += 1
            print("not ok - %s: %s" % (path, "; ".join(problems)))
        compared += 1
    failed += check_writer(dump, gvpr, env)
    print("%d files compared with gvpr, %d refused by hitfam, %d failures" %
          (compared, refused, failed + unreadable))
    if compared < 40:
        print("too few files compared: were the inputs moved?")
        return 1
    return 1 if failed or unreadable else 0


if __name__ == "__main__":
    sys.exit(main())
