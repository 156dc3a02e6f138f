#!/usr/bin/env bash
# The pattern table of CAV 2016 Section 5 with hitfam: for the complete binary trees T_h, the
# sizes of the pattern families (three modes, before and after deduplication), simple, doubletree,
# the paper's bound, and auto's choice. Builds and runs the benchmark tests/bench/bench_pattern.
#
# usage: papers/chistikov2016/pattern_table.sh BUILD_DIR [MAX_H]
#   BUILD_DIR  a meson build directory of hitfam (a release build is much faster)
#   MAX_H      largest tree height (default 12)
# Prints the markdown rows of pattern_table.md on standard output.
set -eu
build=${1:?usage: pattern_table.sh BUILD_DIR [MAX_H]}
max_h=${2:-12}
ninja -C "$build" tests/bench/bench_pattern >&2
exec "$build/tests/bench/bench_pattern" table "$max_h" nolimit
