/* The embedder's import module "wasm_mpi_host" (embedder/src/host_facts.rs):
 * host facts WASI does not give. Only the compat functions that need one
 * import it, so a module that never calls them runs on any WASI runtime. */
#ifndef WASM_MPI_HOST_H
#define WASM_MPI_HOST_H

#define WASM_MPI_HOST_IMPORT(name) \
    __attribute__((import_module("wasm_mpi_host"), import_name(#name)))

/* Copies min(len, n) bytes of the host's name (no NUL) to buf and returns
 * n, the name's full length; -1 if buf is outside the guest memory. */
WASM_MPI_HOST_IMPORT(host_name) int wasm_mpi_host_name(char *buf, unsigned long len);

/* What a native process on this host gets for kind
 * WASM_MPI_CPUS_ONLINE (sysconf _SC_NPROCESSORS_ONLN), WASM_MPI_CPUS_CONF
 * (_SC_NPROCESSORS_CONF) or WASM_MPI_CPUS_AFFINITY (the CPUs in its
 * affinity mask); -1 on failure. */
#define WASM_MPI_CPUS_ONLINE 0
#define WASM_MPI_CPUS_CONF 1
#define WASM_MPI_CPUS_AFFINITY 2
WASM_MPI_HOST_IMPORT(cpu_count) int wasm_mpi_host_cpu_count(int kind);

#endif
