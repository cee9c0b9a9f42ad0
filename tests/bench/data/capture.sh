#!/usr/bin/env bash
# Re-captures tests/bench/data/quick/: the raw output of one quick benchmark
# run (imb and hpcg, natively and under the embedder, tiny sizes), its run log
# and the machine facts. tests/bench/test_runner.py parses these files.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$root/benchmarks/run.py" --quick --ranks 1,2 --reps 2 --out "$tmp"
res=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)
rm -rf "$here/quick"
mkdir "$here/quick"
cp -r "$res/raw" "$res/runs.csv" "$res/sizes.csv" "$res/meta.json" "$here/quick/"
echo "captured into $here/quick"
