/* Which path the toolchain's memcpy, memmove and memset take at the bulk
 * threshold (128 bytes) and one byte below: each export makes one call,
 * and an interpreter's trace shows whether memory.copy or memory.fill ran.
 * No MPI and no main: built with -nostartfiles -Wl,--no-entry. */
#include <string.h>

unsigned char a[512], b[512];
/* the compiler sees neither the pointers nor the size: real calls */
unsigned char *volatile from = a, *volatile to = b;
static volatile unsigned long size = 128;

__attribute__((export_name("copy_at"))) void copy_at(void) { memcpy(to, from, size); }
__attribute__((export_name("copy_below"))) void copy_below(void) { memcpy(to, from, size - 1); }
__attribute__((export_name("move_at"))) void move_at(void) { memmove(to, from, size); }
__attribute__((export_name("move_below"))) void move_below(void) { memmove(to, from, size - 1); }
__attribute__((export_name("fill_at"))) void fill_at(void) { memset(to, 1, size); }
__attribute__((export_name("fill_below"))) void fill_below(void) { memset(to, 1, size - 1); }
