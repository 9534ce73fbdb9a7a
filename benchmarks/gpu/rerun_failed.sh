#!/usr/bin/env bash
# Re-run the tests a results/<run>/pytest-failed.txt lists ("FAILED node-id" lines), on
# the device machine as an extra script of run_on_h200.sh, with short tracebacks:
#   bash benchmarks/gpu/run_on_h200.sh --only-extra benchmarks/gpu/rerun_failed.sh LIST [N]
# N: pytest-xdist processes (default 8).
set -u -f
list=$1
workers=${2:-8}
mapfile -t ids < <(sed -n 's/^FAILED \([^ ]*\).*/\1/p' "$list")
echo "re-running ${#ids[@]} tests from $list"
exec python3 -m pytest -q -p no:cacheprovider -p no:benchmark -p xdist -n "$workers" \
    --tb=short -o addopts="--strict-markers --import-mode=importlib" "${ids[@]}"
