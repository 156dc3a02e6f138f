#!/bin/sh
# Find the block families of method scramble again and rewrite lib/scramble_bases.c:
#   papers/any-order/scramble/run.sh            (about a minute on one core)
# Each search is deterministic for its seed and stops at its first success, so the rows
# written are the ones in rows/ (the script fails if a search fails).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/search" "$here/search.c" -lm
# events and rows per group: the most events found for each r (Sperner allows 2, 3, 6, 10, 20,
# 35, 70 for r = 2..8)
for sr in 2:2 3:3 6:4 10:5 17:6 26:7 40:8; do
    s=${sr%:*} r=${sr#*:}
    "$work/search" "$s" "$r" 50000000 3 > "$work/${s}_$r.txt"
    cmp -s "$work/${s}_$r.txt" "$here/rows/${s}_$r.txt" || echo "rows/${s}_$r.txt differs"
done
"$here/make_bases.py" "$here/rows" "$here/../../../lib/scramble_bases.c"
