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
#include <netcdf_filter.h>
#include <pthread.h>
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
 * CHUNKS, without fill, compressed by CODEC (NULL: uncompressed; see
 * def_codec), and writes it whole from DATA (NULL: values i % 1000003,
 * prepared before the clock starts at *T0). */
static void def_codec(int nc, int v, const char *codec);
static void write_var(const char *path, int nd, const size_t *shape, const size_t *chunks, const float *data,
                      const char *codec, double *t0, double *t1) {
    static const char *names[3] = {"x", "y", "z"};
    size_t n = 1, i;
    int nc, v, d[3], k;
    float *ramp = NULL;
    for (k = 0; k < nd; k++) n *= shape[k];
    if (!data) {
        ramp = malloc(n * sizeof(float));
        if (!ramp) exit(1);
        for (i = 0; i < n; i++) ramp[i] = (float)(i % 1000003);
        data = ramp;
    }
    *t0 = now();
    E(nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc));
    for (k = 0; k < nd; k++) E(nc_def_dim(nc, names[k], shape[k], &d[k]));
    E(nc_def_var(nc, "v", NC_FLOAT, nd, d, &v));
    E(nc_def_var_chunking(nc, v, NC_CHUNKED, chunks));
    E(nc_def_var_fill(nc, v, 1, NULL));
    if (codec) def_codec(nc, v, codec);
    E(nc_enddef(nc));
    E(nc_put_var_float(nc, v, data));
    E(nc_close(nc));
    *t1 = now();
    free(ramp);
}

/* The read cases: opens PATH and reads its variable "v" whole into DATA
 * (touched before the clock starts at *T0). */
static void read_var(const char *path, float *data, size_t n, double *t0, double *t1) {
    int nc, v;
    memset(data, 0xff, n * sizeof(float));
    *t0 = now();
    E(nc_open(path, NC_NOWRITE, &nc));
    E(nc_inq_varid(nc, "v", &v));
    E(nc_get_var_float(nc, v, data));
    E(nc_close(nc));
    *t1 = now();
}

/* ---- the cases of issue 15 (bench/run2.sh) ------------------------------ */

/* The compressed cases' value at (x, y, z): integer arithmetic, so that C
 * and numpy (bench/zarr_bench.py) store the same floats. A slope plus a
 * small pattern: compressible, but not trivially. */
static float zvalue(size_t x, size_t y, size_t z) {
    return (float)((x * 3 + y * 5 + z * 7) % 4096) + (float)((x * y + z * 131) % 97) * 0.125f;
}

/* BENCH_CODEC: zlib1, zlib4, zlib6 (each with shuffle), zstd1, zstd3,
 * blosc-lz4 (clevel 5, byte shuffle). */
static void def_codec(int nc, int v, const char *codec) {
    if (strncmp(codec, "zlib", 4) == 0) {
        E(nc_def_var_deflate(nc, v, 1, 1, atoi(codec + 4)));
    } else if (strncmp(codec, "zstd", 4) == 0) {
        E(nc_def_var_zstandard(nc, v, atoi(codec + 4)));
    } else if (strcmp(codec, "blosc-lz4") == 0) {
        E(nc_def_var_blosc(nc, v, 1 /* BLOSC_LZ4 */, 5, 0, 1 /* BLOSC_SHUFFLE */));
    } else {
        fprintf(stderr, "bench: unknown BENCH_CODEC %s\n", codec);
        exit(2);
    }
}

struct thread_job { int nc, v; size_t n; float *out; int rc; };

static void *read_job(void *arg) {
    struct thread_job *j = arg;
    j->rc = nc_get_var_float(j->nc, j->v, j->out);
    return NULL;
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
        write_var(path, 3, shape, ch, NULL, NULL, &t0, &t1);
        bytes = total * sizeof(float);
    } else if (strcmp(c, "read") == 0) {
        float *data = malloc(total * sizeof(float));
        if (!data) return 1;
        read_var(path, data, total, &t0, &t1);
        for (i = 0; i < total; i += 4099)
            if (data[i] != (float)(i % 1000003)) { fprintf(stderr, "bench: wrong value at %lu\n", (unsigned long)i); return 1; }
        bytes = total * sizeof(float);
        free(data);
    } else if (strcmp(c, "write-1d") == 0) {
        url(path, sizeof path, dir, "one.zarr");
        write_var(path, 1, &N1D, &CH1D, NULL, NULL, &t0, &t1);
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
    } else if (strcmp(c, "zwrite") == 0 || strcmp(c, "zread") == 0) {
        /* a compressed float32 variable of ZX x ZY x ZZ (default 512 x 256 x
         * 256, 128 MiB) in 64^3 chunks, written or read whole */
        const char *codec = getenv("BENCH_CODEC") ? getenv("BENCH_CODEC") : "zlib1";
        size_t ZX = env_size("BENCH_ZX", 512), ZY = env_size("BENCH_ZY", 256), ZZ = env_size("BENCH_ZZ", 256);
        size_t n = ZX * ZY * ZZ, x, y, z;
        float *data = malloc(n * sizeof(float));
        char name[64];
        if (!data) return 1;
        snprintf(name, sizeof name, "z-%s.zarr", codec);
        url(path, sizeof path, dir, name);
        if (strcmp(c, "zwrite") == 0) {
            size_t shape[3] = {ZX, ZY, ZZ}, ch[3] = {CH, CH, CH};
            for (x = 0, i = 0; x < ZX; x++) for (y = 0; y < ZY; y++) for (z = 0; z < ZZ; z++) data[i++] = zvalue(x, y, z);
            write_var(path, 3, shape, ch, data, codec, &t0, &t1);
        } else {
            read_var(path, data, n, &t0, &t1);
            for (i = 0; i < n; i += 4099) {
                x = i / (ZY * ZZ); y = i / ZZ % ZY; z = i % ZZ;
                if (data[i] != zvalue(x, y, z)) { fprintf(stderr, "bench: wrong value at %lu\n", (unsigned long)i); return 1; }
            }
        }
        bytes = n * sizeof(float);
        free(data);
    } else if (strcmp(c, "small-setup") == 0 || strcmp(c, "get1") == 0 || strcmp(c, "vara1") == 0 || strcmp(c, "put1") == 0) {
        /* small calls: 200 000 one-element calls at random positions of a
         * 128^3 float32 variable in chunks of SCHUNK^3 (BENCH_SCHUNK: 32, 64
         * or 128), uncompressed; the first touch of each chunk included */
        size_t S = 128, sch = env_size("BENCH_SCHUNK", 32), idx[3], one[3] = {1, 1, 1}, ncalls = 200000;
        unsigned long long s = 88172645463325252ULL;
        char name[64];
        float val;
        snprintf(name, sizeof name, "small-%lu.zarr", (unsigned long)sch);
        url(path, sizeof path, dir, name);
        if (strcmp(c, "small-setup") == 0) {
            size_t shape[3] = {S, S, S}, ch[3] = {sch, sch, sch};
            write_var(path, 3, shape, ch, NULL, NULL, &t0, &t1);
        } else {
            int put = strcmp(c, "put1") == 0, vara = strcmp(c, "vara1") == 0;
            t0 = now();
            E(nc_open(path, put ? NC_WRITE : NC_NOWRITE, &nc));
            E(nc_inq_varid(nc, "v", &v));
            for (i = 0; i < ncalls; i++) {
                float want;
                s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                idx[0] = s % S; idx[1] = (s >> 20) % S; idx[2] = (s >> 40) % S;
                want = (float)((idx[0] * S * S + idx[1] * S + idx[2]) % 1000003);
                if (put) {
                    E(nc_put_var1_float(nc, v, idx, &want));
                } else {
                    if (vara) E(nc_get_vara_float(nc, v, idx, one, &val));
                    else E(nc_get_var1_float(nc, v, idx, &val));
                    if (val != want) { fprintf(stderr, "bench: wrong point\n"); return 1; }
                }
            }
            E(nc_close(nc));
            t1 = now();
            bytes = ncalls * sizeof(float);
        }
    } else if (strcmp(c, "meta10k-create") == 0 || strcmp(c, "meta10k-open") == 0) {
        /* 100 groups of 100 variables with 10 attributes each; the open
         * case walks it with nc_inq_* and reads every attribute */
        int g, j, k, nvars = 0, natts = 0, d;
        char store[64];
        /* one store per run (BENCH_RUN): ext4 makes a create slow for 30 s
         * after many deletes (it skips recently freed inodes one by one),
         * so runs do not clobber each other's stores */
        snprintf(store, sizeof store, "meta10k-%s.zarr", getenv("BENCH_RUN") ? getenv("BENCH_RUN") : "0");
        url(path, sizeof path, dir, store);
        t0 = now();
        if (strcmp(c, "meta10k-create") == 0) {
            E(nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc));
            E(nc_def_dim(nc, "x", 10, &d));
            for (g = 0; g < 100; g++) {
                int grp;
                char gname[32];
                snprintf(gname, sizeof gname, "g%02d", g);
                E(nc_def_grp(nc, gname, &grp));
                for (j = 0; j < 100; j++) {
                    char name[64];
                    snprintf(name, sizeof name, "var%03d", j);
                    E(nc_def_var(grp, name, NC_DOUBLE, 1, &d, &v));
                    for (k = 0; k < 10; k++) {
                        char att[32];
                        double val = g + j + k * 0.5;
                        snprintf(att, sizeof att, "att%d", k);
                        E(nc_put_att_double(grp, v, att, NC_DOUBLE, 1, &val));
                    }
                }
            }
            E(nc_close(nc));
        } else {
            int ngrps, grps[128];
            E(nc_open(path, NC_NOWRITE, &nc));
            E(nc_inq_grps(nc, &ngrps, grps));
            if (ngrps > 128) return 1;
            for (g = 0; g < ngrps; g++) {
                int nv, varids[128];
                E(nc_inq_varids(grps[g], &nv, varids));
                if (nv > 128) return 1;
                for (j = 0; j < nv; j++) {
                    char name[NC_MAX_NAME + 1];
                    nc_type t;
                    int nd, dims[NC_MAX_VAR_DIMS], na;
                    E(nc_inq_var(grps[g], varids[j], name, &t, &nd, dims, &na));
                    nvars++;
                    for (k = 0; k < na; k++) {
                        char att[NC_MAX_NAME + 1];
                        size_t len;
                        double val;
                        E(nc_inq_attname(grps[g], varids[j], k, att));
                        E(nc_inq_att(grps[g], varids[j], att, &t, &len));
                        E(nc_get_att_double(grps[g], varids[j], att, &val));
                        natts++;
                    }
                }
            }
            E(nc_close(nc));
            if (nvars != 10000 || natts != 100000) { fprintf(stderr, "bench: %d vars %d atts\n", nvars, natts); return 1; }
        }
        t1 = now();
    } else if (strcmp(c, "threads-setup") == 0 || strcmp(c, "threads") == 0) {
        /* BENCH_THREADS threads each read a distinct zstd-1 variable of
         * 256^3 float32 (64 MiB) whole from one open dataset; with 1, the
         * same variables are read one after the other */
        size_t T = env_size("BENCH_THREADS", 1), NV = 4, S = 256, n = S * S * S, x, y, z;
        int d[3], vs[4], t;
        url(path, sizeof path, dir, "threads.zarr");
        if (strcmp(c, "threads-setup") == 0) {
            size_t ch[3] = {CH, CH, CH};
            float *data = malloc(n * sizeof(float));
            if (!data) return 1;
            for (x = 0, i = 0; x < S; x++) for (y = 0; y < S; y++) for (z = 0; z < S; z++) data[i++] = zvalue(x, y, z);
            t0 = now();
            E(nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc));
            E(nc_def_dim(nc, "x", S, &d[0])); E(nc_def_dim(nc, "y", S, &d[1])); E(nc_def_dim(nc, "z", S, &d[2]));
            for (t = 0; t < (int)NV; t++) {
                char name[16];
                snprintf(name, sizeof name, "v%d", t);
                E(nc_def_var(nc, name, NC_FLOAT, 3, d, &vs[t]));
                E(nc_def_var_chunking(nc, vs[t], NC_CHUNKED, ch));
                E(nc_def_var_fill(nc, vs[t], 1, NULL));
                E(nc_def_var_zstandard(nc, vs[t], 1));
            }
            E(nc_enddef(nc));
            for (t = 0; t < (int)NV; t++) E(nc_put_var_float(nc, vs[t], data));
            E(nc_close(nc));
            t1 = now();
            free(data);
        } else {
            struct thread_job jobs[4];
            pthread_t th[4];
            if (T != 1 && T != 2 && T != 4) { fprintf(stderr, "bench: BENCH_THREADS is 1, 2 or 4\n"); return 2; }
            for (t = 0; t < (int)NV; t++) {
                jobs[t].out = malloc(n * sizeof(float));
                if (!jobs[t].out) return 1;
                memset(jobs[t].out, 0xff, n * sizeof(float));
            }
            t0 = now();
            E(nc_open(path, NC_NOWRITE, &nc));
            for (t = 0; t < (int)NV; t++) {
                char name[16];
                snprintf(name, sizeof name, "v%d", t);
                E(nc_inq_varid(nc, name, &jobs[t].v));
                jobs[t].nc = nc; jobs[t].n = n; jobs[t].rc = 0;
            }
            /* NV variables in rounds of T threads */
            for (t = 0; t < (int)NV; t += (int)T) {
                int k;
                for (k = 0; k < (int)T; k++)
                    if (pthread_create(&th[k], NULL, read_job, &jobs[t + k])) return 1;
                for (k = 0; k < (int)T; k++) pthread_join(th[k], NULL);
            }
            for (t = 0; t < (int)NV; t++) E(jobs[t].rc);
            E(nc_close(nc));
            t1 = now();
            for (t = 0; t < (int)NV; t++) {
                for (i = 0; i < n; i += 4099) {
                    x = i / (S * S); y = i / S % S; z = i % S;
                    if (jobs[t].out[i] != zvalue(x, y, z)) { fprintf(stderr, "bench: wrong value\n"); return 1; }
                }
                free(jobs[t].out);
            }
            bytes = NV * n * sizeof(float);
        }
    } else {
        fprintf(stderr, "bench: unknown case %s\n", c);
        return 2;
    }
    printf("RESULT %s %.6f %lu %ld\n", c, t1 - t0, (unsigned long)bytes, peak_kib());
    return 0;
}
