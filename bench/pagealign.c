/* An experiment for the parallel benchmark (docs/PARALLEL.md,
 * "Performance"), not part of the library: preloaded, it makes every
 * malloc of 1 MiB or more start on a page boundary (glibc's own large
 * blocks start 16 bytes past one). A chunk read from a file into such a
 * block avoids the slow kernel copy described there.
 *
 *   gcc -O2 -shared -fPIC -o pagealign.so bench/pagealign.c
 *   BENCH_READ_ONLY=1 mpirun -np 1 -x LD_PRELOAD=$PWD/pagealign.so par_bench URL */
#include <stddef.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t);

void *malloc(size_t n)
{
    if (n >= (1u << 20)) {
        void *p;
        return posix_memalign(&p, 4096, n) ? NULL : p;
    }
    return __libc_malloc(n);
}
