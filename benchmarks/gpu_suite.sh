#!/usr/bin/env bash
# The GPU suite (`pytest -m gpu tests/`) split over every GPU of the host, then the tests that need a
# whole GPU (out-of-memory campaigns, runs split over two GPUs) alone: a 4-GPU host runs the 160
# tests in about 5 minutes, where one GPU takes over 15. Test i goes to part i mod P (P the GPUs);
# part p sees GPUs p and p + 1 mod P. Logs: gpu_suite-part<p>.log and gpu_suite-alone.log in
# $1 (default: the current folder); a summary of each last.
#
#     bash benchmarks/gpu_suite.sh [LOG_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
logs=${1:-.}
mkdir -p "$logs"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
((gpus > 0)) || { echo "gpu_suite.sh: no GPU (nvidia-smi lists none)" >&2; exit 1; }
alone='test_gpu_oom.py\|parts_over_gpus'
ids=$(mktemp)
python3 -m pytest -m gpu tests/ --collect-only -q -p no:cacheprovider 2>/dev/null | grep '::' >"$ids"
grep -v "$alone" "$ids" >"$ids.shared"
grep "$alone" "$ids" >"$ids.alone"
for ((p = 0; p < gpus; p++)); do
  awk -v p="$p" -v P="$gpus" 'NR % P == p' "$ids.shared" >"$ids.$p"
  visible=$p
  ((gpus > 1)) && visible=$p,$(((p + 1) % gpus))
  CUDA_VISIBLE_DEVICES=$visible python3 -m pytest -q -m gpu -p no:cacheprovider $(cat "$ids.$p") >"$logs/gpu_suite-part$p.log" 2>&1 &
done
wait
python3 -m pytest -q -m gpu -p no:cacheprovider $(cat "$ids.alone") >"$logs/gpu_suite-alone.log" 2>&1
for f in "$logs"/gpu_suite-*.log; do
  echo "== $f: $(tail -1 "$f")"
  grep -E '^(FAILED|ERROR)' "$f"
done
rm -f "$ids" "$ids".*
