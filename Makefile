# make demo   set up, build, compile examples/*.c to wasm, run them on 4 ranks
# make test   set up, build, run the unit and end-to-end tests
# make fuzz   fuzz the import layer (1,000,000 MPI calls) and the backends (10,000 modules)
# make bench  native vs wasm benchmarks, tidy CSVs, plots and a report (RANKS=1,2 REPS=3)
# MPI=mpich   use MPICH instead of OpenMPI (the embedder is rebuilt against it)
# make test-mpich-sandbox  the fault-timing and hostile-guest tests on MPICH too (a second embedder in target-mpich)

MPI ?= openmpi
NP ?= 4
export LLVM_SYS_150_PREFIX ?= /usr/lib/llvm-15
export MPICC := mpicc.$(MPI)
MPIRUN := mpirun.$(MPI)
ifeq ($(MPI),openmpi)
  # root in containers/CI, and more ranks than cores on small machines
  MPIRUN_FLAGS := --allow-run-as-root --oversubscribe
endif
export EMBEDDER_TEST_MPI := $(MPI)

EMBEDDER := target/release/embedder
WASM_MPICC := toolchain/bin/wasm-mpicc
EXAMPLES := $(patsubst %.c,%.wasm,$(wildcard examples/*.c))

RANKS ?= 1,2
REPS ?= 3

.PHONY: all setup build examples demo test unit e2e test-mpich-sandbox fuzz bench clean

all: build examples

setup:
	@bash scripts/setup.sh

# rsmpi's build script does not notice a different MPICC: rebuild the MPI
# crates (about a minute; the Wasmer/LLVM tree is reused) when MPI changes.
build: setup
	@if [ -f target/release/.mpi ] && [ "$$(cat target/release/.mpi)" != "$(MPI)" ]; then \
	  echo "switching the embedder to $(MPI)"; \
	  cargo clean --release -q -p mpi-sys -p mpi -p embedder; fi
	cargo build --release
	@echo $(MPI) > target/release/.mpi

examples/%.wasm: examples/%.c $(WASM_MPICC) toolchain/libexec/wasm-mpi-wrapper.sh mpi-header/mpi.h mpi-header/mpi-imports.syms
	$(WASM_MPICC) -o $@ $<

examples: setup $(EXAMPLES)

demo: build examples
	$(MPIRUN) $(MPIRUN_FLAGS) -np $(NP) $(EMBEDDER) examples/ring.wasm 3
	$(MPIRUN) $(MPIRUN_FLAGS) -np $(NP) $(EMBEDDER) examples/hello.wasm

unit: build
	cargo test --release

e2e: build
	python3 -m pytest -q tests

# with OpenMPI as the main MPI, the fault-timing tests also run on MPICH
test: unit e2e $(if $(filter openmpi,$(MPI)),test-mpich-sandbox)

# A second embedder built against MPICH in its own target directory, seeded
# from target/ (only the MPI crates and the embedder recompile); as in
# `build`, the MPI crates are rebuilt when the directory held another MPI.
MPICH_TARGET := target-mpich
test-mpich-sandbox: build
	@if [ ! -d $(MPICH_TARGET) ] && [ -d target ]; then cp -a target $(MPICH_TARGET); fi
	@if [ -f $(MPICH_TARGET)/release/.mpi ] && [ "$$(cat $(MPICH_TARGET)/release/.mpi)" != mpich ] || \
	    { [ ! -f $(MPICH_TARGET)/release/.mpi ] && [ -d $(MPICH_TARGET)/release ]; }; then \
	  CARGO_TARGET_DIR=$(MPICH_TARGET) cargo clean --release -q -p mpi-sys -p mpi -p embedder; fi
	CARGO_TARGET_DIR=$(MPICH_TARGET) MPICC=mpicc.mpich cargo build --release
	@echo mpich > $(MPICH_TARGET)/release/.mpi
	EMBEDDER_BIN=$(MPICH_TARGET)/release/embedder EMBEDDER_TEST_MPI=mpich python3 -m pytest -q tests/e2e/test_fault_timing.py tests/e2e/test_hostile.py tests/e2e/test_hostile_spans.py tests/e2e/test_hostile_state.py

# docs/security.md: random MPI argument vectors from inside a guest (1 rank,
# then 2 ranks), and wasm-smith modules compared across LLVM/Cranelift/Singlepass
FUZZ_CALLS ?= 1000000
FUZZ_MODULES ?= 10000
FUZZ_SEED ?= 1
fuzz: build
	@status=0; \
	python3 tests/fuzz/mpi_fuzz.py --calls $(FUZZ_CALLS) --per-run 20000 --seed $(FUZZ_SEED) --timeout 60 || status=1; \
	python3 tests/fuzz/mpi_fuzz.py --calls $(FUZZ_CALLS) --per-run 20000 --seed $$(( $(FUZZ_SEED) + 1000 )) --np 2 --timeout 60 || status=1; \
	target/release/fuzz-modules --seed $(FUZZ_SEED) --modules $(FUZZ_MODULES) --save results/fuzz-modules || status=1; \
	exit $$status

# native vs wasm, interleaved; results/<timestamp>/ with CSVs, plots and report.md
bench: build
	python3 benchmarks/run.py --ranks $(RANKS) --reps $(REPS) --out results
	python3 plots/plot.py "$$(ls -d results/*/ | grep -v reference | sort | tail -n 1)"

clean:
	cargo clean
	rm -rf $(MPICH_TARGET)
	rm -f examples/*.wasm
