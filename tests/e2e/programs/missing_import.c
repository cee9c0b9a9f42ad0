/* Imports a function no embedder provides: the module must not instantiate.
 * (wasm-mpicc refuses undefined non-MPI symbols, so the import is explicit.) */
__attribute__((import_module("env"), import_name("host_thing"))) void host_thing(void);
int main(void) { host_thing(); return 0; }
