/* The name mapping of nczarr_map.h (tests/netcdf_c_par/run.sh). */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char* env(const char* name)
{
    const char* v = getenv(name);
    return v ? v : "";
}

const char* nczarr_map_url(const char* path)
{
    /* a few rotating buffers: a call's result is used at once */
    static char bufs[8][4096];
    static int next;
    const char* base;
    char* out;
    if (path == NULL || strstr(path, "://") != NULL)
        return path;
    base = strrchr(path, '/');
    base = base ? base + 1 : path;
    out = bufs[next];
    next = (next + 1) % 8;
    snprintf(out, sizeof bufs[0], "%s%s.zarr%s", env("NCZARR_PAR_PREFIX"), base, env("NCZARR_PAR_SUFFIX"));
    return out;
}

static int rm_entry(const char* p, const struct stat* st, int flag, struct FTW* ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(p); /* every rank may remove the same tree: losing a race is fine */
    return 0;
}

int nczarr_map_remove(const char* path)
{
    const char* prefix = env("NCZARR_PAR_PREFIX");
    const char* base;
    char dir[4096];
    if (strncmp(prefix, "file://", 7) != 0)
        return -1; /* S3: the run's objects stay under its own key prefix */
    base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(dir, sizeof dir, "%s%s.zarr", prefix + 7, base);
    if (access(dir, F_OK) != 0)
        return -1;
    return nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
