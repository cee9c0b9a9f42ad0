/* Shim: wasi-libc (Debian bookworm) has no <setjmp.h>.  HDF5 1.10.8 includes it
 * unconditionally from H5private.h; only H5detect.c calls setjmp/longjmp (to
 * recover from SIGBUS/SIGSEGV in alignment probes, which cannot occur in wasm:
 * unaligned loads/stores never trap).  setjmp always returns 0, longjmp aborts. */
#ifndef HDF5_WASM_SHIM_SETJMP_H
#define HDF5_WASM_SHIM_SETJMP_H
#include <stdlib.h>
typedef int jmp_buf[1];
typedef int sigjmp_buf[1];
#define setjmp(b) ((void)(b), 0)
#define sigsetjmp(b, s) ((void)(b), (void)(s), 0)
static inline _Noreturn void longjmp(jmp_buf b, int v) { (void)b; (void)v; abort(); }
static inline _Noreturn void siglongjmp(sigjmp_buf b, int v) { (void)b; (void)v; abort(); }
#endif
