#!/usr/bin/env bash
# test_node.sh HITFAM NODEDIR: record.js and replay.js on the fixture programs, then the cache bug
# found end to end (record -> hitfam gen --d 3 -> replay every row). Exit 77 (skip) without node.
set -u -o pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 HITFAM NODEDIR" >&2
    exit 2
fi
HITFAM=$1
DIR=$2
NODE=$(command -v node || command -v nodejs || true)
if [ -z "$NODE" ]; then
    echo "SKIP: node (Debian package nodejs) is not installed; make deps installs it"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

record() { # record PROGRAM OUT
    "$NODE" "$DIR/record.js" -o "$2" "$1" >"$2.stdout" 2>"$2.stderr" || fail "record $1 exited $?: $(head -3 "$2.stderr")"
}

# The event names of a DOT file written by record.js, sorted.
names() { grep -o '^  [^ ]* \[type=' "$1" | sed 's/ \[type=$//; s/^  //' | sort; }

# The words of a program's log, sorted: the steps logged whatever their order.
words() { tr -s ' ;' '\n\n' <"$1" | sort; }

# The rows to replay: all of them, or SAMPLE rows spread evenly over the family (the first and
# the last among them) when SAMPLE is set and smaller.
pick_rows() { # pick_rows ROWS SAMPLE
    if [ -z "$2" ] || [ "$2" -ge "$1" ]; then
        seq 1 "$1"
    else
        awk -v n="$1" -v s="$2" 'BEGIN { for (k = 0; k < s; k++) print 1 + int(k * (n - 1) / (s - 1) + 0.5) }' | uniq
    fi
}

# replay_rows NAME PROGRAM DOT FAMILY EXACT [SAMPLE]: replays every row (or SAMPLE of them);
# EXACT=1 requires the played order to equal the row and to pass hitfam verify (as a 1-hitting
# family of one schedule). Prints the number of rows whose program run exited 1 into
# $work/NAME.failing.
replay_rows() {
    local name=$1 prog=$2 dot=$3 fam=$4 exact=$5 sample=${6:-}
    local rows i rc failing=0 stall=1000 n=0
    # a row of an order with all its causality never waits for an event that does not come: a
    # long stall limit costs nothing there and keeps a loaded machine from tripping the fallback
    [ "$exact" = 1 ] && stall=10000
    rows=$(grep -vc '^#' "$fam")
    for i in $(pick_rows "$rows" "$sample"); do
        n=$((n + 1))
        "$NODE" "$DIR/replay.js" --family "$fam" --row "$i" --stall "$stall" -o "$work/$name.played$i" \
            "$prog" >"$work/$name.out$i" 2>"$work/$name.err$i"
        rc=$?
        if [ "$rc" -eq 1 ]; then
            failing=$((failing + 1))
        elif [ "$rc" -ne 0 ]; then
            fail "$name row $i: replay exited $rc: $(head -3 "$work/$name.err$i")"
        fi
        if [ ! -s "$work/$name.played$i" ]; then
            fail "$name row $i: no played order written"
            continue
        fi
        head -1 "$work/$name.played$i" | grep -q '^# hitfam ' || fail "$name row $i: no family header"
        if [ "$exact" = 1 ]; then
            if [ "$(grep -v '^#' "$fam" | sed -n "${i}p")" != "$(tail -1 "$work/$name.played$i")" ]; then
                fail "$name row $i: the played order differs from the row: $(head -3 "$work/$name.err$i")"
            fi
            "$HITFAM" verify --d 1 "$dot" "$work/$name.played$i" >/dev/null ||
                fail "$name row $i: hitfam verify does not accept the played order"
        fi
    done
    echo "$failing" >"$work/$name.failing"
    echo "$name: $n of $rows rows replayed, $failing with the program failing"
}

# 0. Quoting: names that need quotes survive record.js's DOT writer, hitfam and the family reader;
#    the await rewrite of awaits.js keeps what programs compute.
"$NODE" "$DIR/test_quoting.js" "$HITFAM" || fail "test_quoting.js"
"$NODE" "$DIR/test_awaits.js" || fail "test_awaits.js"

# 1. Every fixture: the DOT is read by hitfam, names are the same in two runs, the program's own
#    log has the same steps under the recorder.
FIXTURES="timers interval thens promises awaits generators fspromises fsops child http"
for f in $FIXTURES; do
    prog="$DIR/fixtures/$f.js"
    "$NODE" "$prog" >"$work/$f.plain" 2>&1 || fail "$f: the program itself exited $?"
    record "$prog" "$work/$f.dot"
    record "$prog" "$work/$f.again.dot"
    [ "$(words "$work/$f.plain")" = "$(words "$work/$f.dot.stdout")" ] ||
        fail "$f: the program logs other steps under record.js"
    "$HITFAM" stats --d 2 "$work/$f.dot" >"$work/$f.stats" || fail "$f: hitfam stats refuses the DOT"
    [ "$(grep -c '\[type=' "$work/$f.dot")" -ge 3 ] || fail "$f: fewer than 3 events recorded"
    if ! diff <(names "$work/$f.dot") <(names "$work/$f.again.dot") >/dev/null; then
        fail "$f: event names differ between two recordings"
    fi
    echo "$f: $(grep -c '\[type=' "$work/$f.dot") events, names stable"
done
# Programs whose order does not depend on timing give the same file byte for byte.
for f in timers interval thens fsops; do
    cmp -s "$work/$f.dot" "$work/$f.again.dot" || fail "$f: two recordings differ"
done
grep -q 'type=Timeout' "$work/timers.dot" || fail "timers: no Timeout events"
grep -q 'type=Immediate' "$work/timers.dot" || fail "timers: no Immediate events"
grep -q 'type=TickObject' "$work/timers.dot" || fail "timers: no TickObject events"
grep -q 'type=PROMISE' "$work/promises.dot" || fail "promises: no PROMISE events"
grep -q 'type=PROMISE' "$work/thens.dot" || fail "thens: no PROMISE events"
grep -q 'type=FSREQCALLBACK' "$work/fsops.dot" || fail "fsops: no FSREQCALLBACK events"
grep -q 'type=FSREQPROMISE' "$work/fspromises.dot" || fail "fspromises: no FSREQPROMISE events"
grep -q 'type=Microtask' "$work/awaits.dot" || fail "awaits: no Microtask events"
grep -q 'type=PROCESSWRAP' "$work/child.dot" || fail "child: no PROCESSWRAP events"
grep -q 'type=TCPWRAP' "$work/http.dot" || fail "http: no TCPWRAP events"
# The await rewrite changes no name: a recording without it names the same events.
for f in promises awaits generators; do
    "$NODE" "$DIR/record.js" --no-rewrite -o "$work/$f.plain.dot" "$DIR/fixtures/$f.js" >/dev/null 2>&1 ||
        fail "$f: record --no-rewrite exited $?"
    diff <(names "$work/$f.dot") <(names "$work/$f.plain.dot") >/dev/null ||
        fail "$f: the await rewrite changes the names"
done
# Promise.all waits for all its inputs: its reaction comes after both workers' reactions.
grep -q '"main.P10" -> "main.P12"' "$work/promises.dot" && grep -q '"main.P11" -> "main.P12"' "$work/promises.dot" ||
    fail "promises: the Promise.all reaction lacks an edge from one of its inputs"

# 2. Replay: every fixture plays the rows of its 2- and 3-hitting families exactly (every row of
#    the 2-hitting family; of the 3-hitting one all rows of timers and interval, whose logs are
#    checked below, and 4 rows spread over the family for the others: README.md has the table of
#    all rows), and the program never fails under replay.
for f in $FIXTURES; do
    for d in 2 3; do
        sample=
        [ "$d" = 3 ] && [ "$f" != timers ] && [ "$f" != interval ] && sample=4
        "$HITFAM" gen --d $d "$work/$f.dot" -o "$work/$f.d$d.fam" || fail "$f: hitfam gen --d $d"
        replay_rows "$f-d$d" "$DIR/fixtures/$f.js" "$work/$f.dot" "$work/$f.d$d.fam" 1 $sample
        [ "$(cat "$work/$f-d$d.failing")" = 0 ] || fail "$f: a replayed row made the program fail"
    done
done
# The played order is not just written: the program's own steps ran in that order. timers.js and
# interval.js log one word per callback; map each event of a row to its word and compare.
steps_in_row() { # steps_in_row FAMILY I MAP: the words of row I's events, in the row's order
    grep -v '^#' "$1" | sed -n "${2}p" | tr ' ' '\n' | tr -d '"' |
        while read -r ev; do awk -v e="$ev" '$1 == e { print $2 }' "$3"; done | tr '\n' ' '
}
cat >"$work/timers.map" <<'MAP'
main.I0 i1
main.I0.N0 i1.n
main.T0 t1
main.T0.I0 t1.i
main.T0.N0 t1.n
main.T1 t2
main.T1.T0 t2.t
main.T2 iv0
main.T2:1 iv1
MAP
cat >"$work/interval.map" <<'MAP'
main.T0 iv0
main.T0:1 iv1
main.T0:2 iv2
main.T1 t
main.T2 u
MAP
for f in timers interval; do
    rows=$(grep -vc '^#' "$work/$f.d3.fam")
    for i in $(seq 1 "$rows"); do
        want=$(steps_in_row "$work/$f.d3.fam" "$i" "$work/$f.map")
        got=$(tr '\n' ' ' <"$work/$f-d3.out$i")
        [ "${want% }" = "${got% }" ] || fail "$f row $i: the program ran its steps as '$got', the row says '$want'"
    done
done

# The others log their steps in an order that timing decides: under replay they log the same
# steps as in a plain run. (Not awaits.js: which timer wins its Promise.race is the schedule's
# choice, and the log says which.)
for f in thens promises generators fspromises fsops child http; do
    rows=$(grep -vc '^#' "$work/$f.d2.fam")
    for i in $(seq 1 "$rows"); do
        [ "$(words "$work/$f.plain")" = "$(words "$work/$f-d2.out$i")" ] ||
            fail "$f row $i: the program logs other steps under replay"
    done
done

# Programs in open/ are not yet played exactly (README.md): under replay of the rows of their
# 2-hitting family they still complete, without a spurious error, and log the same steps.
for f in posts streams; do
    prog="$DIR/open/$f.js"
    "$NODE" "$prog" >"$work/$f.plain" 2>&1 || fail "$f: the program itself exited $?"
    record "$prog" "$work/$f.dot"
    "$HITFAM" gen --d 2 "$work/$f.dot" -o "$work/$f.d2.fam" || fail "$f: hitfam gen --d 2"
    replay_rows "$f-d2" "$prog" "$work/$f.dot" "$work/$f.d2.fam" 0
    [ "$(cat "$work/$f-d2.failing")" = 0 ] || fail "$f: a replayed row made the program fail"
    for i in $(seq 1 "$(grep -vc '^#' "$work/$f.d2.fam")"); do
        [ "$(words "$work/$f.plain")" = "$(words "$work/$f-d2.out$i")" ] ||
            fail "$f row $i: the program logs other steps under replay"
    done
done

# 3. The cache bug: no 2-hitting row exposes it, some 3-hitting row does, every row plays exactly.
bug="$DIR/cache_bug.js"
record "$bug" "$work/bug.dot"
record "$bug" "$work/bug.again.dot"
cmp -s "$work/bug.dot" "$work/bug.again.dot" || fail "cache_bug: two recordings differ"
"$HITFAM" gen --d 2 "$work/bug.dot" -o "$work/bug.d2.fam" || fail "cache_bug: hitfam gen --d 2"
"$HITFAM" gen --d 3 "$work/bug.dot" -o "$work/bug.d3.fam" || fail "cache_bug: hitfam gen --d 3"
"$HITFAM" verify --d 3 "$work/bug.dot" "$work/bug.d3.fam" >/dev/null || fail "cache_bug: family not 3-hitting"
replay_rows bug-d2 "$bug" "$work/bug.dot" "$work/bug.d2.fam" 1
replay_rows bug-d3 "$bug" "$work/bug.dot" "$work/bug.d3.fam" 1
[ "$(cat "$work/bug-d2.failing")" = 0 ] || fail "cache_bug: a row of the 2-hitting family exposes the bug"
[ "$(cat "$work/bug-d3.failing")" -ge 1 ] || fail "cache_bug: no row of the 3-hitting family exposes the bug"
grep -q STALE "$work"/bug-d3.out* || fail "cache_bug: no STALE line in the failing rows"

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "all node checks passed"
