/* libc shims that the compiler may emit calls to; forward to syscalls. The build links this into every
 * program; the definitions are weak so a program may supply its own. */
#include "sol.h"
__attribute__((weak)) void *memcpy(void *dst, const void *src, u64 n) { sol_memcpy_(dst, src, n); return dst; }
__attribute__((weak)) void *memmove(void *dst, const void *src, u64 n) { sol_memmove_(dst, src, n); return dst; }
__attribute__((weak)) void *memset(void *dst, int c, u64 n) { sol_memset_(dst, (u8)c, n); return dst; }
__attribute__((weak)) int memcmp(const void *a, const void *b, u64 n) { int r = 0; sol_memcmp_(a, b, n, &r); return r; }
