/* uname (linked as --wrap=uname): wasi-libc's answer with the host's node
 * name instead of its placeholder; sysname "wasi" and machine "wasm32"
 * stay, since that is what the program runs on. */
#include <string.h>
#include <sys/utsname.h>

#include "wasm_mpi_host.h"

int __real_uname(struct utsname *u);

int __wrap_uname(struct utsname *u) {
    if (__real_uname(u) != 0)
        return -1;
    int n = wasm_mpi_host_name(u->nodename, sizeof u->nodename - 1);
    if (n >= 0)
        u->nodename[n < (int)sizeof u->nodename - 1 ? n : (int)sizeof u->nodename - 1] = '\0';
    return 0;
}
