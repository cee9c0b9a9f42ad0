/* Force-included (-include) into every HDF5 translation unit for wasm32-wasi.
 * Provides stand-ins for libc pieces Debian bookworm's wasi-libc lacks. */
#ifndef HDF5_WASM_COMPAT_H
#define HDF5_WASM_COMPAT_H
#ifdef __wasi__
#include <stddef.h>
/* <dlfcn.h>: no dynamic loading in WASI.  H5PL (filter plugins) calls dlopen
 * unconditionally on non-Windows; make every plugin load fail cleanly. */
#define RTLD_LAZY   1
#define RTLD_NOW    2
#define RTLD_GLOBAL 0x100
#define RTLD_LOCAL  0
static inline void *hdf5_wasm_dlopen(const char *f, int m) { (void)f; (void)m; return NULL; }
static inline void *hdf5_wasm_dlsym(void *h, const char *s) { (void)h; (void)s; return NULL; }
static inline int   hdf5_wasm_dlclose(void *h) { (void)h; return 0; }
static inline char *hdf5_wasm_dlerror(void) { return (char *)"dynamic loading not supported on wasm32-wasi"; }
#define dlopen  hdf5_wasm_dlopen
#define dlsym   hdf5_wasm_dlsym
#define dlclose hdf5_wasm_dlclose
#define dlerror hdf5_wasm_dlerror
/* tzset(): WASI has no time zones (UTC only); a no-op is exact. */
#define tzset() ((void)0)
#endif
#endif
