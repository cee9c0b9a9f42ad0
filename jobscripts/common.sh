# Shared by the job scripts (sourced, not run). Each script sets its knobs,
# then sources this file from $EMBEDDER_HOME/jobscripts: sbatch runs a copy of
# the script from Slurm's spool directory, so the script's own location is no
# guide to the checkout.

set -euo pipefail
# Knobs hold option lists as plain strings ("--env-inherit SLURM_*"); they are
# split on spaces but never glob-expanded against the job's directory.
set -f

die() { echo "$(basename "${0}"): $*" >&2; exit 2; }

[ -n "${SLURM_JOB_ID:-}" ] || die "not inside a Slurm job: submit with sbatch (or run inside salloc)"
[ -x "$EMBEDDER" ] || die "no embedder at $EMBEDDER: build it (make build) or set EMBEDDER"

# The embedder with the options that are part of the compiled code's cache key
# (backend, strict traps) and the node-local cache: the warm-up step and the
# ranks must agree on them, or every rank compiles again.
embedder_cmd() {
  EMB=("$EMBEDDER" --cache-dir "$CACHE_DIR")
  if [ -n "${MPI_LIB:-}" ]; then EMB+=(--mpi-lib "$MPI_LIB"); fi
  # shellcheck disable=SC2206  # split on purpose
  EMB+=(${BACKEND_OPTS:-})
}

# One compile per node, before any rank starts: N ranks on a cold cache would
# wait on one lock per node anyway, but here no rank pays for it and a module
# the engine rejects fails the job before the ranks are started.
warm_cache() {
  local nodes=${SLURM_JOB_NUM_NODES:-1}
  srun --mpi=none --nodes="$nodes" --ntasks="$nodes" --ntasks-per-node=1 "${EMB[@]}" compile "$@"
}

# The ranks: srun with the job's PMI plugin, or the MPI's own mpirun, which
# finds the allocation by itself (Open MPI and MPICH's Hydra start their
# daemons with srun).
launch() {
  case "$LAUNCH" in
    # shellcheck disable=SC2086
    srun) srun --mpi="$SRUN_MPI" ${SRUN_ARGS:-} "$@" ;;
    # shellcheck disable=SC2086
    mpirun) "$MPIRUN" ${MPIRUN_ARGS:-} "$@" ;;
    *) die "LAUNCH is srun or mpirun, not '$LAUNCH'" ;;
  esac
}

# The paper's scaling sweeps: benchmarks/run.py's main phase (native and wasm
# interleaved) for every nodes x ranks-per-node pair, through srun. One
# results directory per ranks-per-node value, each in the layout plots/plot.py
# reads (imb.csv, hpcg.csv, raw/, meta.json), plotted at the end.
sweep() {
  local program=$1 rpn ranks n out run_dir
  local out_base=${RESULTS_DIR:-$EMBEDDER_HOME/results/slurm-$SLURM_JOB_ID-$program}
  for rpn in $RANKS_PER_NODE_LIST; do
    ranks=""
    for n in $NODES_LIST; do ranks+="${ranks:+,}$((n * rpn))"; done
    out="$out_base/rpn$rpn"
    mkdir -p "$out"
    # shellcheck disable=SC2086
    python3 "$EMBEDDER_HOME/benchmarks/run.py" --launcher srun --mpirun-args="--mpi=$SRUN_MPI ${SRUN_ARGS:-}" \
      --ranks-per-node "$rpn" --ranks "$ranks" --reps "$REPS" --phases main --programs "$program" \
      --external off --mpicc "$MPICC" --cache-dir "$CACHE_DIR" --out "$out" ${BENCH_ARGS:-}
    # run.py names its directory by the UTC time it started: the newest sorts last
    run_dir=$(find "$out" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
    if [ "$PLOT" = 1 ]; then python3 "$EMBEDDER_HOME/plots/plot.py" "$run_dir"; fi
    echo "sweep: $program, $rpn ranks per node, ranks $ranks: $run_dir"
  done
}
