#!/usr/bin/env bash
# A/B of the array API benchmark on the device machine: this checkout's package ("new")
# against an older copy of the package ("old"), run after run in one session, so that
# both see the same GPU (its clock and state move between sessions by ±10%).
#
# Here, before the device calls (the old tree must be an untracked, unignored folder so
# that it travels; carry its built accelerator explicitly):
#   mkdir -p abtest/old && git archive REV stridewave | tar -x -C abtest/old
#   cp stridewave/carriers/_speedups.abi3.so abtest/old/stridewave/carriers/
# Then, as an extra script of run_on_h200.sh (which unpacks MLX into /tmp/site), with
#   carry: [".gpu-b", "stridewave/carriers/_speedups.abi3.so",
#           "abtest/old/stridewave/carriers/_speedups.abi3.so"]
#   bash benchmarks/gpu/run_on_h200.sh --only-extra --timeout 400 \
#       benchmarks/gpu/ab_bench_array_api.sh [OLD_TREE] [PAIRS]
# OLD_TREE defaults to abtest/old, PAIRS to 4. Prints each run's per-process ratios
# and their median (the benchmark's default: 5 processes on metal).
set -u
cd "$(dirname "$0")/../.."
old=${1:-abtest/old}
pairs=${2:-4}
for i in $(seq 1 "$pairs"); do
  for v in new old; do
    if [ "$v" = old ]; then path=/tmp/site:$PWD/$old; else path=/tmp/site:$PWD; fi
    echo "== $v $i"
    PYTHONPATH=$path python3 benchmarks/bench_array_api.py --device metal 2>&1 | tail -5
  done
done
