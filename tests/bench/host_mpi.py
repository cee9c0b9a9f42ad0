"""The host MPI under test (EMBEDDER_TEST_MPI, which `make test` sets from
MPI=...): its compiler wrapper, launcher and launcher flags, for every
benchmark test."""
import os
import shutil

MPI = os.environ.get("EMBEDDER_TEST_MPI", "openmpi")
MPICC = shutil.which(f"mpicc.{MPI}")
MPIRUN = shutil.which(f"mpirun.{MPI}")
# root in containers/CI, and more ranks than cores on small machines
MPIRUN_FLAGS = ["--allow-run-as-root", "--oversubscribe"] if MPI == "openmpi" else []
