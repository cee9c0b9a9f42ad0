/* Shim: wasi-libc has no <sys/wait.h> (no processes).  HDF5 1.10.8's H5private.h
 * includes it unconditionally under H5_HAVE_UNISTD_H; the library only defines
 * HDwait/HDwaitpid macros; no library code calls them. */
#ifndef HDF5_WASM_SHIM_SYS_WAIT_H
#define HDF5_WASM_SHIM_SYS_WAIT_H
#include <sys/types.h>
#endif
