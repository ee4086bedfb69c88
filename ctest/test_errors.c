/* nc_strerror, nc_inq_libvers and the netCDF constants as a C program sees them. */
#include "test_util.h"
#include <errno.h>

#define TEXT(code, want) CHECK(strcmp(nc_strerror(code), want) == 0)

int main(void) {
    float f = NC_FILL_FLOAT;
    double d = NC_FILL_DOUBLE;
    signed char b = NC_FILL_BYTE;
    short s = NC_FILL_SHORT;
    long long ll = NC_FILL_INT64;
    unsigned long long ull = NC_FILL_UINT64;

    /* texts exactly as netCDF-C words them */
    TEXT(NC_NOERR, "No error");
    TEXT(NC_EBADID, "NetCDF: Not a valid ID");
    TEXT(NC_EINVAL, "NetCDF: Invalid argument");
    TEXT(NC_EEXIST, "NetCDF: File exists && NC_NOCLOBBER");
    TEXT(NC_ENOTNC, "NetCDF: Unknown file format");
    TEXT(NC_ERANGE, "NetCDF: Numeric conversion not representable");
    TEXT(NC_ENCZARR, "NetCDF: NCZarr error");
    TEXT(NC_EEMPTY, "NetCDF: Attempt to read empty NCZarr map key");
    TEXT(NC_EOBJECT, "NetCDF: Some object exists when it should not");
    TEXT(NC_ENOOBJECT, "NetCDF: Some object not found");
    TEXT(NC_EPLUGIN, "NetCDF: Unclassified failure in accessing a dynamically loaded plugin");
    TEXT(NC_EINTERNAL, "NetCDF: internal library error; Please contact Unidata support");
    /* codes netCDF-C has no text for */
    TEXT(-1, "Unknown Error");
    TEXT(-31, "Unknown Error");
    TEXT(NC_ENOTZARR, "Unknown Error");
    TEXT(-123456, "Unknown Error");
    /* positive codes are errno values */
    TEXT(ENOENT, "No such file or directory");
    CHECK(NC_ISSYSERR(ENOENT) && !NC_ISSYSERR(NC_EBADID));
    CHECK(nc_strerror(ENOENT) == nc_strerror(ENOENT)); /* static, not reallocated */

    CHECK(nc_inq_libvers() != NULL && strstr(nc_inq_libvers(), "nczarr-rs") != NULL);

    /* values of netCDF-C's netcdf.h */
    CHECK(NC_EBADID == -33 && NC_EEMPTY == -139 && NC_EOBJECT == -140 && NC_ENOOBJECT == -141);
    CHECK(NC_ENCZARR == -137 && NC_EURL == NC_EDAPURL && NC_ENTOOL == NC_EMAXNAME);
    CHECK(0 - NC_EBADID == 33); /* parenthesized negative macros */
    CHECK(NC_STRING == 12 && NC_INT64 == 10 && NC_LONG == NC_INT);
    CHECK(NC_NETCDF4 == 0x1000 && NC_NOCLOBBER == 0x4 && NC_WRITE == 1 && NC_UDF1 == 0x80);
    CHECK(NC_FORMATX_NCZARR == 10 && NC_FORMAT_NETCDF4 == 3 && NC_GLOBAL == -1);
    CHECK(NC_MAX_NAME == 256 && NC_MAX_VAR_DIMS == 1024 && NC_NOFILL == 0x100);
    CHECK(f == NC_FILL_FLOAT && d == NC_FILL_DOUBLE); /* float literal keeps its f suffix */
    CHECK(b == -127 && s == -32767 && ll == -9223372036854775806LL && ull == 18446744073709551614ULL);
    CHECK(sizeof(size64_t) == 8 && sizeof(nc_type) == sizeof(int));
    CHECK(strcmp(_FillValue, "_FillValue") == 0);
    return t_finish("test_errors");
}
