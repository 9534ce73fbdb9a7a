#!/usr/bin/env bash
# Run the Metal carrier on the lent NVIDIA H200 (MLX's CUDA backend): the whole test
# suite, benchmarks/bench_metal.py and benchmarks/gpu/diagnose_metal.py, then any extra
# scripts named on the command line. Logs go to $OUT (or /tmp/stridewave-gpu-logs/):
# device.txt, diagnose.log, pytest.log, bench_metal.log, and <script name>.log per extra.
#
# Precondition (benchmarks/gpu/README.md, /work/shared/design/GPU.md): the first part of
# the MLX CUDA wheel was copied to /tmp/parts/ by the call before (or the wheels are
# already unpacked into /tmp/site, or $STRIDEWAVE_GPU_SITE); the second part, the mlx
# wheel and a typing_extensions wheel are in the folder given by --parts (default
# .gpu-b/ beside this checkout's root), with wheels of pure-Python dependencies the image
# lacks in its whl/ subfolder (array-api-compat). The image's python3 (3.12) has numpy,
# ml_dtypes, pytest and hypothesis.
#
# Usage, from anywhere on the device machine (the script runs from its own checkout):
#   bash benchmarks/gpu/run_on_h200.sh [options] [extra.py|extra.sh [args...]] ...
# Options:
#   --no-big         benchmarks at N = 10**7 only (default: also 10**8)
#   --only-extra     skip diagnose, tests and benchmarks; run the extra scripts only
#   --no-tests       skip the test suite
#   --parts DIR      where gpu.part.ab and the mlx wheel are (default: .gpu-b)
#   --timeout S      limit for each extra script, seconds (default 120)
#   --xdist N        run the tests in N processes (pytest-xdist, in the image); default 1
#   --               the rest are extra-script arguments (a lone ';' separates scripts)
# Extra scripts: each is a path relative to this checkout's root, run with python3 (.py)
# or bash (anything else), with the arguments that follow it up to the next script path
# (a word ending in .py or .sh) or ';'. Example:
#   bash benchmarks/gpu/run_on_h200.sh --only-extra benchmarks/gpu/probe_metal.py 10000000
# Exit status: 3 when MLX is not on the GPU (nothing else is run); 4 when the wheel
# parts are missing (the second call landed on a fresh machine: start again from the
# first call); otherwise pytest's status (0 with --no-tests or --only-extra, unless an
# extra script failed: then 5).
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
SITE=${STRIDEWAVE_GPU_SITE:-/tmp/site}
PARTS=.gpu-b
BIG=--big
STANDARD=1
TESTS=1
EXTRA_TIMEOUT=120
XDIST=1
EXTRAS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --no-big) BIG= ;;
        --only-extra) STANDARD=0 ;;
        --no-tests) TESTS=0 ;;
        --parts) PARTS=$2; shift ;;
        --timeout) EXTRA_TIMEOUT=$2; shift ;;
        --xdist) XDIST=$2; shift ;;
        --) shift; EXTRAS+=("$@"); break ;;
        *) EXTRAS+=("$1") ;;
    esac
    shift
done
# From a staged copy (.gpu-b/tree/, benchmarks/gpu/stage_tree.sh) the parts are one up.
if ! [ -d "$PARTS" ] && [ "$(basename "$(dirname "$ROOT")")" = .gpu-b ]; then
    PARTS=$(dirname "$ROOT")
fi
export PYTHONPATH="$SITE:$ROOT${PYTHONPATH:+:$PYTHONPATH}"
unset STRIDEWAVE_METAL_DEVICE          # the GPU, never MLX's CPU device
export PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
LOG=${OUT:-/tmp/stridewave-gpu-logs}
mkdir -p "$LOG"

# -- MLX: unpack the two wheel parts once per machine -------------------------------------
if ! [ -d "$SITE/mlx" ]; then
    if ! [ -f /tmp/parts/gpu.part.aa ] || ! ls "$PARTS"/gpu.part.ab >/dev/null 2>&1; then
        echo "run_on_h200: the MLX wheel parts are missing (/tmp/parts/gpu.part.aa from the" \
            "first call, $PARTS/gpu.part.ab): start again from the first call." | tee "$LOG/device.txt"
        exit 4
    fi
    mkdir -p "$SITE"
    cat /tmp/parts/gpu.part.aa "$PARTS"/gpu.part.ab | xz -d | tar xf - -C "$SITE" || exit 4
    for whl in "$PARTS"/mlx-*.whl; do python3 -m zipfile -e "$whl" "$SITE" || exit 4; done
fi
for whl in "$PARTS"/typing_extensions-*.whl; do
    [ -f "$whl" ] && ! python3 -c "import typing_extensions" 2>/dev/null \
        && python3 -m zipfile -e "$whl" "$SITE"
done
# Pure-Python dependencies the image lacks (e.g. array-api-compat): wheels in $PARTS/whl/.
for whl in "$PARTS"/whl/*.whl; do
    [ -f "$whl" ] && python3 -m zipfile -e "$whl" "$SITE"
done

{
    echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname), checkout $ROOT"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
    python3 - <<'PY'
import sys

import mlx.core as mx
import numpy

print("python", sys.version.split()[0], "numpy", numpy.__version__, "mlx", mx.__version__)
print("mx.default_device() =", mx.default_device(), "| mx.cuda.is_available() =",
      mx.cuda.is_available())
PY
    python3 -m stridewave info | sed -n '/^carriers:/,$p'
} 2>&1 | tee -a "$LOG/device.txt"

if ! python3 -c "import mlx.core as mx, sys; sys.exit(0 if mx.default_device() == mx.gpu else 1)"
then
    echo "MLX is not on the GPU here (see $LOG/device.txt); nothing run." | tee -a "$LOG/device.txt"
    exit 3
fi

tests=0
if [ "$STANDARD" = 1 ]; then
    echo "== diagnose_metal.py (N = 10**8)" | tee "$LOG/diagnose.log"
    timeout 75 python3 benchmarks/gpu/diagnose_metal.py 2>&1 | tee -a "$LOG/diagnose.log"
    echo "diagnose exit status: ${PIPESTATUS[0]}" | tee -a "$LOG/diagnose.log"

    if [ "$TESTS" = 1 ]; then
        echo "== pytest (Metal on the GPU)" | tee "$LOG/pytest.log"
        parallel=()
        [ "$XDIST" != 1 ] && parallel=(-p xdist -n "$XDIST")
        timeout 380 python3 -m pytest -q -p no:cacheprovider -rfEs ${parallel[@]+"${parallel[@]}"} 2>&1 \
            | tee -a "$LOG/pytest.log"
        tests=${PIPESTATUS[0]}
        echo "pytest exit status: $tests" | tee -a "$LOG/pytest.log"
    fi

    echo "== bench_metal.py $BIG" | tee "$LOG/bench_metal.log"
    timeout 130 python3 benchmarks/bench_metal.py $BIG 2>&1 | tee -a "$LOG/bench_metal.log"
    echo "bench exit status: ${PIPESTATUS[0]}" | tee -a "$LOG/bench_metal.log"
fi

# -- extra scripts: path [args...] groups ---------------------------------------------------
extra_failed=0
run_extra() {
    local script=$1; shift
    local name log status
    name=$(basename "$script")
    log="$LOG/${name%.*}.log"
    echo "== $script $*" | tee "$log"
    case "$script" in
        *.py) timeout "$EXTRA_TIMEOUT" python3 "$script" "$@" 2>&1 | tee -a "$log" ;;
        *) timeout "$EXTRA_TIMEOUT" bash "$script" "$@" 2>&1 | tee -a "$log" ;;
    esac
    status=${PIPESTATUS[0]}
    echo "$script exit status: $status" | tee -a "$log"
    [ "$status" = 0 ] || extra_failed=1
}
current=()
for word in "${EXTRAS[@]+"${EXTRAS[@]}"}"; do
    if [ "$word" = ";" ]; then
        [ ${#current[@]} -gt 0 ] && run_extra "${current[@]}"
        current=()
    elif [ ${#current[@]} -gt 0 ] && { [[ "$word" == *.py ]] || [[ "$word" == *.sh ]]; } \
        && [ -f "$word" ]; then
        run_extra "${current[@]}"
        current=("$word")
    else
        current+=("$word")
    fi
done
[ ${#current[@]} -gt 0 ] && run_extra "${current[@]}"

[ "$tests" != 0 ] && exit "$tests"
[ "$extra_failed" = 1 ] && exit 5
exit 0
