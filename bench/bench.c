/* bench: one benchmark source for any netCDF library with NCZarr.
 *
 *   bench CASE DIR
 *
 * CASE is one of: write, read, slabs, points, meta-create, meta-open.
 * DIR holds the datasets (file driver). Each case runs in its own process
 * (bench/run.sh) so the reported peak RSS is that case's. Prints one line:
 *   RESULT <case> <seconds> <bytes moved> <peak RSS KiB>
 *
 * The data: a float32 variable of NX x NY x NZ (default 1024x512x512,
 * 1 GiB; BENCH_NX/NY/NZ override) with 64^3 chunks, uncompressed.
 *
 * Destination buffers are touched before the clock starts: faulting in a
 * fresh 1 GiB buffer costs the same for every library (0.19 s of CPU on the
 * reference VM) and would otherwise hide the libraries' own costs.
 *
 * The 1-D cases (write-1d, read-1d, strided-1d; not in run.sh's default
 * list) measure the data path's memory: a float32 variable of N1D
 * elements (default 10^8, 381 MiB; BENCH_N1D overrides) in chunks of 10^6,
 * uncompressed, written and read whole, and read with stride 7. Their peak
 * RSS is the caller's buffer plus what the library adds. */
#define _POSIX_C_SOURCE 200809L
#include <netcdf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define E(x) do { int r_ = (x); if (r_) { fprintf(stderr, "bench: %s:%d %s: %s\n", __FILE__, __LINE__, #x, nc_strerror(r_)); exit(1); } } while (0)

static size_t NX = 1024, NY = 512, NZ = 512;
static const size_t CH = 64;
static size_t N1D = 100000000;
static const size_t CH1D = 1000000;
static const ptrdiff_t STRIDE1D = 7;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long peak_kib(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return r.ru_maxrss;
}

static size_t env_size(const char *name, size_t dflt) {
    const char *v = getenv(name);
    return v && *v ? (size_t)strtoull(v, NULL, 10) : dflt;
}

static void url(char *out, size_t n, const char *dir, const char *name) {
    snprintf(out, n, "file://%s/%s#mode=nczarr,file", dir, name);
}

/* The write cases: creates PATH with a float variable "v" of SHAPE in
 * CHUNKS, uncompressed, without fill, and writes it whole from values
 * i % 1000003 (prepared before the clock starts at *T0). */
static void write_var(const char *path, int nd, const size_t *shape, const size_t *chunks, double *t0, double *t1) {
    static const char *names[3] = {"x", "y", "z"};
    size_t n = 1, i;
    int nc, v, d[3], k;
    float *data;
    for (k = 0; k < nd; k++) n *= shape[k];
    data = malloc(n * sizeof(float));
    if (!data) exit(1);
    for (i = 0; i < n; i++) data[i] = (float)(i % 1000003);
    *t0 = now();
    E(nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc));
    for (k = 0; k < nd; k++) E(nc_def_dim(nc, names[k], shape[k], &d[k]));
    E(nc_def_var(nc, "v", NC_FLOAT, nd, d, &v));
    E(nc_def_var_chunking(nc, v, NC_CHUNKED, chunks));
    E(nc_def_var_fill(nc, v, 1, NULL));
    E(nc_enddef(nc));
    E(nc_put_var_float(nc, v, data));
    E(nc_close(nc));
    *t1 = now();
    free(data);
}

int main(int argc, char **argv) {
    char path[4096];
    const char *c, *dir;
    double t0, t1;
    size_t bytes = 0, total, i;
    int nc, v;
    if (argc != 3) { fprintf(stderr, "usage: bench CASE DIR\n"); return 2; }
    c = argv[1];
    dir = argv[2];
    NX = env_size("BENCH_NX", NX); NY = env_size("BENCH_NY", NY); NZ = env_size("BENCH_NZ", NZ);
    N1D = env_size("BENCH_N1D", N1D);
    total = NX * NY * NZ;
    url(path, sizeof path, dir, "big.zarr");

    if (strcmp(c, "write") == 0) {
        size_t shape[3] = {NX, NY, NZ}, ch[3] = {CH, CH, CH};
        write_var(path, 3, shape, ch, &t0, &t1);
        bytes = total * sizeof(float);
    } else if (strcmp(c, "read") == 0) {
        float *data = malloc(total * sizeof(float));
        if (!data) return 1;
        memset(data, 0xff, total * sizeof(float));
        t0 = now();
        E(nc_open(path, NC_NOWRITE, &nc));
        E(nc_inq_varid(nc, "v", &v));
        E(nc_get_var_float(nc, v, data));
        E(nc_close(nc));
        t1 = now();
        for (i = 0; i < total; i += 4099)
            if (data[i] != (float)(i % 1000003)) { fprintf(stderr, "bench: wrong value at %lu\n", (unsigned long)i); return 1; }
        bytes = total * sizeof(float);
        free(data);
    } else if (strcmp(c, "write-1d") == 0) {
        url(path, sizeof path, dir, "one.zarr");
        write_var(path, 1, &N1D, &CH1D, &t0, &t1);
        bytes = N1D * sizeof(float);
    } else if (strcmp(c, "read-1d") == 0 || strcmp(c, "strided-1d") == 0) {
        int strided = strcmp(c, "strided-1d") == 0;
        size_t start = 0, count = strided ? (N1D + STRIDE1D - 1) / STRIDE1D : N1D;
        size_t step = strided ? (size_t)STRIDE1D : 1;
        float *data = malloc(count * sizeof(float));
        if (!data) return 1;
        memset(data, 0xff, count * sizeof(float));
        url(path, sizeof path, dir, "one.zarr");
        t0 = now();
        E(nc_open(path, NC_NOWRITE, &nc));
        E(nc_inq_varid(nc, "v", &v));
        E(nc_get_vars_float(nc, v, &start, &count, strided ? &STRIDE1D : NULL, data));
        E(nc_close(nc));
        t1 = now();
        for (i = 0; i < count; i += 4099)
            if (data[i] != (float)((i * step) % 1000003)) { fprintf(stderr, "bench: wrong value at %lu\n", (unsigned long)i); return 1; }
        bytes = count * sizeof(float);
        free(data);
    } else if (strcmp(c, "slabs") == 0) {
        /* planes [:, :, k]: orthogonal to the chunks, 1/64 of every chunk they touch */
        size_t start[3] = {0, 0, 0}, count[3], k, nplanes = 16;
        float *plane = malloc(NX * NY * sizeof(float));
        memset(plane, 0xff, NX * NY * sizeof(float));
        count[0] = NX; count[1] = NY; count[2] = 1;
        t0 = now();
        E(nc_open(path, NC_NOWRITE, &nc));
        E(nc_inq_varid(nc, "v", &v));
        for (k = 0; k < nplanes; k++) {
            start[2] = (k * 37) % NZ;
            E(nc_get_vara_float(nc, v, start, count, plane));
            if (plane[NY + 1] != (float)((1 * NY * NZ + 1 * NZ + start[2]) % 1000003)) { fprintf(stderr, "bench: wrong slab\n"); return 1; }
        }
        E(nc_close(nc));
        t1 = now();
        bytes = nplanes * NX * NY * sizeof(float);
        free(plane);
    } else if (strcmp(c, "points") == 0) {
        size_t idx[3], n = 10000;
        unsigned long long s = 88172645463325252ULL;
        float val;
        t0 = now();
        E(nc_open(path, NC_NOWRITE, &nc));
        E(nc_inq_varid(nc, "v", &v));
        for (i = 0; i < n; i++) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            idx[0] = s % NX; idx[1] = (s >> 20) % NY; idx[2] = (s >> 40) % NZ;
            E(nc_get_var1_float(nc, v, idx, &val));
            if (val != (float)((idx[0] * NY * NZ + idx[1] * NZ + idx[2]) % 1000003)) { fprintf(stderr, "bench: wrong point\n"); return 1; }
        }
        E(nc_close(nc));
        t1 = now();
        bytes = n * sizeof(float);
    } else if (strcmp(c, "meta-create") == 0 || strcmp(c, "meta-open") == 0) {
        /* 1000 variables with 10 attributes each */
        int d, j, k, nvars = 0, natts = 0;
        url(path, sizeof path, dir, "meta.zarr");
        t0 = now();
        if (strcmp(c, "meta-create") == 0) {
            E(nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc));
            E(nc_def_dim(nc, "x", 10, &d));
            for (j = 0; j < 1000; j++) {
                char name[64];
                snprintf(name, sizeof name, "var%04d", j);
                E(nc_def_var(nc, name, NC_DOUBLE, 1, &d, &v));
                for (k = 0; k < 10; k++) {
                    char att[32];
                    double val = j + k * 0.5;
                    snprintf(att, sizeof att, "att%d", k);
                    E(nc_put_att_double(nc, v, att, NC_DOUBLE, 1, &val));
                }
            }
            E(nc_close(nc));
        } else {
            E(nc_open(path, NC_NOWRITE, &nc));
            E(nc_inq_nvars(nc, &nvars));
            for (j = 0; j < nvars; j++) {
                int n;
                E(nc_inq_varnatts(nc, j, &n));
                natts += n;
            }
            E(nc_close(nc));
            if (nvars != 1000 || natts != 10000) { fprintf(stderr, "bench: %d vars %d atts\n", nvars, natts); return 1; }
        }
        t1 = now();
    } else {
        fprintf(stderr, "bench: unknown case %s\n", c);
        return 2;
    }
    printf("RESULT %s %.6f %lu %ld\n", c, t1 - t0, (unsigned long)bytes, peak_kib());
    return 0;
}
