/* Minimal assertion helpers for the C tests. */
#ifndef NCZARR_TEST_UTIL_H
#define NCZARR_TEST_UTIL_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <netcdf.h>

static int t_failures = 0;
static int t_checks = 0;

#define CHECK(cond) do { t_checks++; if (!(cond)) { t_failures++; \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)

/* Expect an exact netCDF status code. */
#define EXPECT(call, want) do { int t_rc_ = (call); t_checks++; if (t_rc_ != (want)) { t_failures++; \
    fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d (%s)\n", __FILE__, __LINE__, #call, \
            t_rc_, nc_strerror(t_rc_), (int)(want), nc_strerror(want)); } } while (0)

#define OK(call) EXPECT(call, NC_NOERR)

static inline int t_finish(const char *name) {
    printf("%s: %d checks, %d failed\n", name, t_checks, t_failures);
    if (t_checks == 0) fprintf(stderr, "%s: no check ran\n", name);
    return t_failures == 0 && t_checks > 0 ? 0 : 1;
}

static inline int t_path_exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

/* mkdir -p for the scratch directory given on the command line. */
static inline void t_mkdirs(const char *path) {
    char buf[4096];
    size_t i, n = strlen(path);
    if (n >= sizeof buf) return;
    memcpy(buf, path, n + 1);
    for (i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            mkdir(buf, 0777);
            buf[i] = c;
        }
    }
}

/* The scratch directory of a test: argv[1] if absolute, else argv[1] (or
   `fallback`) below the working directory; created. 0, or 2 on failure. */
static inline int t_scratch(char *base, size_t size, int argc, char **argv, const char *fallback) {
    if (argc > 1 && argv[1][0] == '/') snprintf(base, size, "%s", argv[1]);
    else {
        char cwd[1024];
        if (!getcwd(cwd, sizeof cwd)) return 2;
        snprintf(base, size, "%s/%s", cwd, argc > 1 ? argv[1] : fallback);
    }
    t_mkdirs(base);
    return 0;
}
#endif
