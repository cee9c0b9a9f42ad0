#!/usr/bin/env bash
# Re-captures tests/bench/data/external_quick/: the raw output of one quick run
# of the external codes (HPCC and NetPIPE, natively and under the embedder, 2
# ranks, tiny sizes, 2 repetitions), its run log and the machine facts.
# tests/bench/test_external.py parses these files. Needs the Debian mirror
# (or the tarballs cached in $XDG_CACHE_HOME/mpi-wasm-embedder-sources/).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$root/benchmarks/run.py" --external only --quick --external-reps 2 --out "$tmp"
res=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)
rm -rf "$here/external_quick"
mkdir "$here/external_quick"
cp -r "$res/raw" "$res/runs.csv" "$res/sizes.csv" "$res/meta.json" "$here/external_quick/"
echo "captured into $here/external_quick"
