#!/usr/bin/python3
"""Check the block families found by search.c and write lib/scramble_bases.c.

    papers/any-order/scramble/make_bases.py ROWS_DIR lib/scramble_bases.c

ROWS_DIR holds one file per block family, named S_R.txt (s events, r rows per group), as
search.c prints it. Each family is checked here (every ordered triple hit, every ordered pair
separated by each group) before it is written; tests/test_gen_scramble.c checks the compiled
table again."""
import itertools
import os
import re
import sys


def load(path):
    rows = []
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        cut, rest = line.split(':')
        rows.append((int(cut), [int(x) for x in rest.split()]))
    return rows


def check(s, r, rows):
    assert len(rows) == 2 * r, 'wrong number of rows'
    pos = []
    for cut, perm in rows:
        assert sorted(perm) == list(range(s)), 'not a permutation'
        assert 0 <= cut <= s
        p = [0] * s
        for i, e in enumerate(perm):
            p[e] = i
        pos.append(p)
    for a, b, c in itertools.permutations(range(s), 3):
        assert any(p[a] < p[b] < p[c] for p in pos), 'triple %s not hit' % ((a, b, c),)
    for g in range(2):
        for a, b in itertools.permutations(range(s), 2):
            assert any(pos[j][a] < rows[j][0] <= pos[j][b] for j in range(g * r, g * r + r)), \
                'pair %s not separated by group %d' % ((a, b), g)


def main():
    src, out = sys.argv[1], sys.argv[2]
    fams = []
    for name in os.listdir(src):
        m = re.fullmatch(r'(\d+)_(\d+)\.txt', name)
        if m:
            s, r = int(m.group(1)), int(m.group(2))
            rows = load(os.path.join(src, name))
            check(s, r, rows)
            fams.append((r, s, rows))
    fams.sort()
    # keep the largest s per r, and only those that beat every smaller r
    best = {}
    for r, s, rows in fams:
        if r not in best or s > best[r][0]:
            best[r] = (s, rows)
    chosen, top = [], 0
    for r in sorted(best):
        if best[r][0] > top:
            chosen.append((r,) + best[r])
            top = best[r][0]
    with open(out, 'w') as f:
        f.write('/* Block families of method scramble, written by '
                'papers/any-order/scramble/make_bases.py\n'
                ' * from the rows search.c found (papers/any-order/scramble/rows). Do not edit. */\n'
                '#include "gen_scramble.h"\n\n')
        for r, s, rows in chosen:
            f.write('static const uint8_t rows_%d[] = {\n' % r)
            for cut, perm in rows:
                f.write('    ' + ', '.join(str(e) for e in perm) + ',\n')
            f.write('};\nstatic const uint8_t cuts_%d[] = {%s};\n\n'
                    % (r, ', '.join(str(c) for c, _ in rows)))
        f.write('const hf_i_scramble_base hf_i_scramble_bases[] = {\n')
        for r, s, rows in chosen:
            f.write('    {%d, %d, rows_%d, cuts_%d},\n' % (r, s, r, r))
        f.write('};\nconst size_t hf_i_scramble_base_count =\n'
                '    sizeof hf_i_scramble_bases / sizeof hf_i_scramble_bases[0];\n')
    for r, s, _ in chosen:
        print('r = %d: %d events' % (r, s))


main()
