#!/usr/bin/env bash
# Issue 6 on the lent NVIDIA H200: the whole test suite with the Metal carrier on the GPU
# (MLX's CUDA backend), then benchmarks/bench_metal.py; before both, benchmarks/gpu/diagnose_metal.py
# (host-view timings and scatter buffer addresses at N = 10**8). Logs go to $OUT (or
# /tmp/stridewave-gpu-logs/): device.txt, diagnose.log, pytest.log, bench_metal.log.
#
# Precondition (see benchmarks/gpu/README.md and /work/shared/design/GPU.md): the mlx and
# mlx-cuda-13 0.32.4 wheels are unpacked into /tmp/site (or $STRIDEWAVE_GPU_SITE); the
# image's python3 (3.12) has numpy, ml_dtypes, pytest and hypothesis. Pure-Python wheels
# the image lacks (typing_extensions) may be carried in .gpu-b/ and are unpacked too.
#
# Usage, from the repository root on the device machine:
#   bash benchmarks/gpu/run_on_h200.sh            # tests + benchmarks at N = 10**7 and 10**8
#   bash benchmarks/gpu/run_on_h200.sh --no-big   # benchmarks at N = 10**7 only
# Exit status: 0 when tests and benchmarks ran and the tests passed; 3 when MLX is not on
# the GPU (nothing else is run); otherwise pytest's status.
set -u -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SITE=${STRIDEWAVE_GPU_SITE:-/tmp/site}
export PYTHONPATH="$SITE:$PWD${PYTHONPATH:+:$PYTHONPATH}"
unset STRIDEWAVE_METAL_DEVICE          # the GPU, never MLX's CPU device
export PYTHONDONTWRITEBYTECODE=1
LOG=${OUT:-/tmp/stridewave-gpu-logs}
mkdir -p "$LOG"
BIG=--big
[ "${1:-}" = "--no-big" ] && BIG=

for whl in .gpu-b/typing_extensions-*.whl; do
    [ -f "$whl" ] && ! python3 -c "import typing_extensions" 2>/dev/null \
        && python3 -m zipfile -e "$whl" "$SITE"
done

{
    echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
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
} 2>&1 | tee "$LOG/device.txt"

if ! python3 -c "import mlx.core as mx, sys; sys.exit(0 if mx.default_device() == mx.gpu else 1)"
then
    echo "MLX is not on the GPU here (see $LOG/device.txt); nothing run." | tee -a "$LOG/device.txt"
    exit 3
fi

echo "== diagnose_metal.py (N = 10**8)" | tee "$LOG/diagnose.log"
timeout 120 python3 benchmarks/gpu/diagnose_metal.py 2>&1 | tee -a "$LOG/diagnose.log"
echo "diagnose exit status: ${PIPESTATUS[0]}" | tee -a "$LOG/diagnose.log"

echo "== pytest (Metal on the GPU)" | tee "$LOG/pytest.log"
timeout 300 python3 -m pytest -q -p no:cacheprovider -rs 2>&1 | tee -a "$LOG/pytest.log"
tests=${PIPESTATUS[0]}
echo "pytest exit status: $tests" | tee -a "$LOG/pytest.log"

echo "== bench_metal.py $BIG" | tee "$LOG/bench_metal.log"
timeout 150 python3 benchmarks/bench_metal.py $BIG 2>&1 | tee -a "$LOG/bench_metal.log"
echo "bench exit status: ${PIPESTATUS[0]}" | tee -a "$LOG/bench_metal.log"
exit "$tests"
