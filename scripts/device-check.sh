#!/usr/bin/env bash
# The one-shot check to run on a lent GPU machine (the device tool): installs envcheck into a
# throwaway venv from this checkout, without network if the machine has none (dependencies come
# from the machine's Python when present), then records the real probe and doctor output.
#   bash scripts/device-check.sh [OUT_DIR]      (on the device tool, OUT_DIR is $OUT)
set -u
out="${1:-${OUT:-/tmp/envcheck-device}}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
python3 -m venv --system-site-packages "$out/venv" >"$out/setup.log" 2>&1
"$out/venv/bin/python" -m pip install --no-deps --no-build-isolation -q . >>"$out/setup.log" 2>&1 \
  || "$out/venv/bin/python" -m pip install -q . >>"$out/setup.log" 2>&1
# Run from $out: in the checkout, python -m would import ./envcheck instead of the installed one.
cd "$out" || exit 1
run() { echo "\$ envcheck $*"; timeout 120 "$out/venv/bin/envcheck" "$@"; echo "(exit $?)"; }
{
  nvidia-smi --query-gpu=driver_version,name,compute_cap,memory.total --format=csv 2>&1 | head -5
  run --version
  run probe
  run doctor --no-smoke
} >"$out/report.txt" 2>&1
envcheck_json() { timeout 120 "$out/venv/bin/envcheck" "$@"; }
envcheck_json probe --json >"$out/probe.json" 2>"$out/probe.stderr"
envcheck_json doctor --no-smoke --json >"$out/doctor.json" 2>"$out/doctor.stderr"
cat "$out/report.txt"
