/* The rest of netcdf.h: user types answer NC_ENOTNC4 (as netCDF-C's NCZarr),
 * netCDF-3 tuning NC_ENOTNC3, and the library helpers work. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"
#include <unistd.h>

static char base[2048];

int main(int argc, char **argv) {
    char a[4200], b[4200], z[4200], check[4300];
    int nc, nc2, x, v, t, eq, old, id, mask, ppb, thr, al;
    nc_type tt;
    size_t n;
    unsigned int fid;
    nc_vlen_t vl;
    const char *strs[2] = {"one", "two"};
    char *dup[2];
    double vals[4] = {1.5, 2.5, 3.5, 4.5}, back[4];
    if (t_scratch(base, sizeof base, argc, argv, "compat_scratch")) return 2;
    snprintf(a, sizeof a, "file://%s/a.zarr#mode=nczarr,file", base);
    snprintf(b, sizeof b, "file://%s/b.zarr#mode=nczarr,file", base);
    snprintf(z, sizeof z, "file://%s/c.zip#mode=nczarr,zip", base);

    OK(nc__create_mp(a, NC_CLOBBER, 0, 0, NULL, &nc));
    OK(nc_def_dim(nc, "x", 4, &x));
    OK(nc_def_var(nc, "v", NC_DOUBLE, 1, &x, &v));
    OK(nc_put_att_text(nc, v, "units", 1, "K"));
    OK(nc_put_var_double(nc, v, vals));

    /* user-defined types: NCZarr has none */
    EXPECT(nc_def_compound(nc, 8, "c", &tt), NC_ENOTNC4);
    EXPECT(nc_def_vlen(nc, "vl", NC_INT, &tt), NC_ENOTNC4);
    EXPECT(nc_def_enum(nc, NC_INT, "e", &tt), NC_ENOTNC4);
    EXPECT(nc_def_opaque(nc, 4, "o", &tt), NC_ENOTNC4);
    /* inquiries use netCDF-4's NC4_inq_user_type: no such type */
    EXPECT(nc_inq_user_type(nc, 32, NULL, NULL, NULL, NULL, NULL), NC_EBADTYPE);
    EXPECT(nc_inq_compound_size(nc, 32, &n), NC_ENOTNC4);
    EXPECT(nc_def_compound(424242, 8, "c", &tt), NC_EBADID);
    OK(nc_inq_type_equal(nc, NC_INT, nc, NC_INT, &eq));
    CHECK(eq == 1);
    OK(nc_inq_type_equal(nc, NC_INT, nc, NC_FLOAT, &eq));
    CHECK(eq == 0);
    EXPECT(nc_inq_type_equal(nc, 40, nc, NC_INT, &eq), NC_EBADTYPE);

    /* a filter this build does not have (szip reports off); turning
       fletcher32 off is a no-op */
    EXPECT(nc_def_var_szip(nc, v, 32, 32), NC_ENOFILTER);
    OK(nc_inq_var_szip(nc, v, &mask, &ppb));
    CHECK(mask == 0 && ppb == 0);
    OK(nc_def_var_fletcher32(nc, v, 0));
    OK(nc_inq_var_filter(nc, v, &fid, &n, NULL));
    CHECK(fid == 0 && n == 0);
    EXPECT(nc_def_var_quantize(nc, v, NC_NOQUANTIZE, 0), NC_ELATEDEF); /* as netCDF-C: on disk already */
    EXPECT(nc_def_var_quantize(nc, v, NC_QUANTIZE_BITROUND, 8), NC_ELATEDEF); /* data written */
    EXPECT(nc_def_var_quantize(nc, NC_GLOBAL, NC_QUANTIZE_BITROUND, 8), NC_EGLOBAL);

    /* netCDF-3 tuning on netCDF-4 data */
    EXPECT(nc_set_base_pe(nc, 0), NC_ENOTNC3);
    EXPECT(nc_inq_base_pe(nc, &id), NC_ENOTNC3);

    /* nc_copy_var into another dataset with the same dimension */
    OK(nc_create(b, NC_CLOBBER, &nc2));
    EXPECT(nc_copy_var(nc, v, nc2), NC_EBADDIM); /* no dimension x there yet */
    OK(nc_def_dim(nc2, "x", 4, &t));
    OK(nc_copy_var(nc, v, nc2));
    OK(nc_inq_varid(nc2, "v", &id));
    OK(nc_get_var_double(nc2, id, back));
    CHECK(memcmp(vals, back, sizeof vals) == 0);
    OK(nc_inq_attlen(nc2, id, "units", &n));
    CHECK(n == 1);
    OK(nc_close(nc2));
    OK(nc_close(nc));

    /* helpers */
    OK(nc__open_mp(a, NC_NOWRITE, 0, NULL, &nc));
    OK(nc_copy_data(nc, NC_STRING, strs, 2, dup));
    CHECK(strcmp(dup[0], "one") == 0 && strcmp(dup[1], "two") == 0 && dup[0] != strs[0]);
    OK(nc_free_string(2, dup));
    {
        double *copy = NULL;
        OK(nc_copy_data_all(nc, NC_DOUBLE, vals, 4, (void **)&copy));
        CHECK(copy && copy[3] == 4.5);
        free(copy);
    }
    vl.len = 3;
    vl.p = malloc(12);
    OK(nc_free_vlen(&vl));
    CHECK(vl.p == NULL);
    OK(nc_close(nc));

    OK(nc_set_default_format(NC_FORMAT_NETCDF4, &old));
    OK(nc_set_default_format(old, &old));
    CHECK(old == NC_FORMAT_NETCDF4);
    EXPECT(nc_set_default_format(99, &old), NC_EINVAL);
    OK(nc_set_alignment(4096, 512));
    OK(nc_get_alignment(&thr, &al));
    CHECK(thr == 4096 && al == 512);
    OK(nc_set_log_level(3));
    OK(nc_initialize());

    /* nc_delete removes a directory dataset and a zip archive */
    OK(nc_delete(a));
    snprintf(check, sizeof check, "%s/a.zarr", base);
    CHECK(!t_path_exists(check));
    EXPECT(nc_delete(a), 2 /* ENOENT */);
    OK(nc_create(z, NC_CLOBBER, &nc));
    OK(nc_close(nc));
    OK(nc_delete_mp(z, 0));
    snprintf(check, sizeof check, "%s/c.zip", base);
    CHECK(!t_path_exists(check));
    EXPECT(nc_def_user_format(NC_UDF0, NULL, NULL), NC_ENOTBUILT);
    OK(nc_finalize());
    return t_finish("test_nc_compat");
}
