#!/usr/bin/env bash
# Reproduce the tree sizes of Chistikov, Majumdar, Niksic (CAV 2016) with the hitfam CLI: for the
# complete binary trees T_h, the 3-hitting family sizes of Claim 3.2 and of Section 4 (double trees).
#
# usage: papers/chistikov2016/reproduce.sh PATH/TO/hitfam [MAX_H [VERIFY_H]]
#   MAX_H     largest tree height (default 10; T_h has 2^(h+1)-1 events)
#   VERIFY_H  also generate both families and check them with `hitfam verify` for h <= VERIFY_H
#             (default 6; 0 skips)
# Prints one row per h; exits 1 if a size differs from the paper's formula (2n-2h, 4h; capped
# by the number of all schedules, which only matters for T_1) or a family fails verification.
set -u
hitfam=${1:?usage: reproduce.sh PATH/TO/hitfam [MAX_H [VERIFY_H]]}
max_h=${2:-10}
verify_h=${3:-6}
d=3
[ -x "$hitfam" ] || { echo "reproduce: $hitfam is not executable" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hitfam-cav16.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# T_h with events named by their path from the root: n, n0, n1, n00, ... (u0, u1 = children of u).
tree_dot() {
    awk -v h="$1" 'BEGIN {
        print "digraph T" h " {"
        level[0] = "n"; count = 1
        for (depth = 0; depth < h; depth++) {
            next_count = 0
            for (i = 0; i < count; i++)
                for (b = 0; b < 2; b++) {
                    child = level[i] b
                    print "  " level[i] " -> " child ";"
                    next_level[next_count++] = child
                }
            for (i = 0; i < next_count; i++) level[i] = next_level[i]
            count = next_count
        }
        if (h == 0) print "  n;"
        print "}"
    }'
}

# The first integer after "key": in the one-line JSON of `hitfam stats --json`.
json_int() { sed -n "s/.*\"$1\": \\([0-9][0-9]*\\).*/\\1/p" <<<"$2"; }

status=0
printf '%3s %6s %8s %8s %10s %4s %7s %6s  %s\n' \
    h events simple 2n-2h doubletree 4h bound ratio check
for ((h = 1; h <= max_h; h++)); do
    dot="$tmp/T$h.dot"
    tree_dot "$h" >"$dot"
    json=$("$hitfam" stats --json --exact --d "$d" "$dot") || { echo "reproduce: stats failed on T_$h" >&2; exit 2; }
    n=$(json_int events "$json")
    simple=$(json_int simple "$json")
    dtree=$(json_int doubletree "$json")
    bound=$(json_int lower_bound "$json")
    linext=$(json_int linear_extensions "$json")
    want_simple=$((2 * n - 2 * h))
    want_dtree=$((4 * h))
    # Families keep distinct schedules only: none can outgrow the set of all schedules (T_1 has
    # just 2, so both formulas start to hold at h = 2).
    if [ "${#linext}" -le 15 ]; then
        [ "$want_simple" -le "$linext" ] || want_simple=$linext
        [ "$want_dtree" -le "$linext" ] || want_dtree=$linext
    fi
    check=ok
    [ "$simple" = "$want_simple" ] || check="simple: $simple, expected $want_simple"
    [ "$dtree" = "$want_dtree" ] || check="doubletree: $dtree, expected $want_dtree"
    if [ "$check" = ok ] && [ "$h" -le "$verify_h" ]; then
        for m in simple doubletree; do
            "$hitfam" gen --d "$d" --method "$m" -o "$tmp/$m.txt" "$dot" &&
                "$hitfam" verify --d "$d" "$dot" "$tmp/$m.txt" >/dev/null ||
                check="$m family failed verify"
            got=$(grep -vc '^#' "$tmp/$m.txt")
            want=$simple; [ "$m" = doubletree ] && want=$dtree
            [ "$got" = "$want" ] || check="$m wrote $got schedules, predicted $want"
        done
        [ "$check" = ok ] && check="ok, verified"
    fi
    [ "${check%%,*}" = ok ] || status=1
    ratio=$(awk -v a="$dtree" -v b="$bound" 'BEGIN { printf "%.2f", a / b }')
    printf '%3d %6d %8d %8d %10d %4d %7d %6s  %s\n' \
        "$h" "$n" "$simple" $((2 * n - 2 * h)) "$dtree" $((4 * h)) "$bound" "$ratio" "$check"
done
echo "d=$d; simple = Claim 3.2 (distinct schedules), doubletree = Section 4 (4 per level),"
echo "bound = hitfam's lower bound (docs/bounds.md), ratio = doubletree / bound."
exit $status
