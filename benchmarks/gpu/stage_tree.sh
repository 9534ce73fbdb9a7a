#!/usr/bin/env bash
# Copy this checkout's project files (tracked, plus untracked ones git does not ignore)
# into .gpu-b/tree/, so that a `run` call that carries .gpu-b can test this working tree
# even when the device tool sends another checkout (a helper's worktree: the tool always
# sends the checkout its session started in). Run on the workstation, in the repository
# root, before the second of the two calls (benchmarks/gpu/README.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
rm -rf .gpu-b/tree
mkdir -p .gpu-b/tree
git ls-files -z --cached --others --exclude-standard \
    | xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' \
    | tar --null -T - -cf - | tar -xf - -C .gpu-b/tree
du -sh .gpu-b/tree
