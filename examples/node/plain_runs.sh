#!/usr/bin/env bash
# plain_runs.sh [N] [PROGRAM]: runs PROGRAM (default cache_bug.js) N times (default 200) without
# recorder or player and prints how many runs failed (exit status 1): the rate README.md quotes.
set -u
n=${1:-200}
prog=${2:-$(dirname "$0")/cache_bug.js}
node=$(command -v node || command -v nodejs) || { echo "node is not installed" >&2; exit 77; }
failed=0
for _ in $(seq 1 "$n"); do
    "$node" "$prog" >/dev/null 2>&1
    [ $? -eq 1 ] && failed=$((failed + 1))
done
echo "$prog: $failed of $n plain runs failed (load average $(cut -d' ' -f1 /proc/loadavg))"
