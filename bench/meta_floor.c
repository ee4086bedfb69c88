/* The floor of bench.c's meta10k-create (not part of the tests): the same
 * tree of directories and small files, made by a bare C program with the
 * system calls our file driver makes for it and nothing else, on every
 * core. The tree: 100 group directories of 100 variable directories; a
 * variable's .zarray (153 bytes) and .zattrs (457), a group's .zgroup
 * (18) and .zattrs (1 040), the root's .zgroup and .zattrs: 20 202 files
 * and 10 100 directories, as our store of that dataset.
 *
 * Each file is written as the driver writes an object: a temporary file
 * created O_EXCL|O_NOFOLLOW in the object's directory (opened O_PATH),
 * one write, close, renameat2(RENAME_NOREPLACE) to its name. No JSON, no
 * model, no netCDF: what is left is the kernel's work, the limit for any
 * library that writes each object atomically.
 *
 *   meta_floor meta10k-create DIR  -> RESULT meta10k-floor <seconds> 0 <peak RSS KiB>
 * (the arguments of bench.c's case; bench/run2.sh runs it so)
 *
 * Threads: one per online core (BENCH_THREADS overrides), groups dealt out
 * in turn. BENCH_RUN names the tree (meta10k-floor-<run>), as bench.c. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int root_fd, nthreads;
static char body[2048];

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

/* one object, as the driver writes a new one */
static void object(int dir, const char *name, size_t len, unsigned long *n, int id) {
    char tmp[64];
    snprintf(tmp, sizeof tmp, ".nczarr-rs-tmp.%d.%d.%lu", (int)getpid(), id, (*n)++);
    int f = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (f < 0) die("openat");
    if (write(f, body, len) != (ssize_t)len) die("write");
    if (close(f) != 0) die("close");
    if (renameat2(dir, tmp, dir, name, RENAME_NOREPLACE) != 0) die("renameat2");
}

/* a directory made below `parent`, opened O_PATH (as the driver's walk) */
static int subdir(int parent, const char *name) {
    if (mkdirat(parent, name, 0777) != 0) die("mkdirat");
    int d = openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d < 0) die("openat dir");
    return d;
}

static void *worker(void *arg) {
    int id = (int)(long)arg;
    unsigned long n = 0;
    for (int g = id; g < 100; g += nthreads) {
        char gname[16];
        snprintf(gname, sizeof gname, "g%02d", g);
        int gd = subdir(root_fd, gname);
        object(gd, ".zgroup", 18, &n, id);
        object(gd, ".zattrs", 1040, &n, id);
        for (int v = 0; v < 100; v++) {
            char vname[16];
            snprintf(vname, sizeof vname, "var%03d", v);
            int vd = subdir(gd, vname);
            object(vd, ".zarray", 153, &n, id);
            object(vd, ".zattrs", 457, &n, id);
            close(vd);
        }
        close(gd);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3 || strcmp(argv[1], "meta10k-create") != 0) {
        fprintf(stderr, "usage: meta_floor meta10k-create DIR\n");
        return 2;
    }
    memset(body, ' ', sizeof body);
    nthreads = getenv("BENCH_THREADS") ? atoi(getenv("BENCH_THREADS")) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (nthreads < 1) nthreads = 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/meta10k-floor-%s", argv[2], getenv("BENCH_RUN") ? getenv("BENCH_RUN") : "0");
    double t0 = now();
    if (mkdir(path, 0777) != 0) die(path);
    root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) die(path);
    unsigned long n = 0;
    object(root_fd, ".zgroup", 18, &n, 999);
    object(root_fd, ".zattrs", 1040, &n, 999);
    pthread_t t[256];
    if (nthreads > 256) nthreads = 256;
    for (long i = 0; i < nthreads; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) die("pthread_create");
    for (int i = 0; i < nthreads; i++) pthread_join(t[i], NULL);
    double t1 = now();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("RESULT meta10k-floor %.6f 0 %ld\n", t1 - t0, ru.ru_maxrss);
    return 0;
}
