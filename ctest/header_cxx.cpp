// <netcdf.h> compiles as C++11 (-Wall -Wextra -Werror -pedantic) with C linkage.
#include <netcdf.h>
#include <cstring>

static_assert(NC_EBADID == -33, "error codes match netCDF-C");
static_assert(sizeof(size64_t) == 8, "size64_t is 64-bit");

int main() {
    const char *text = nc_strerror(NC_EEMPTY);
    return std::strcmp(text, "NetCDF: Attempt to read empty NCZarr map key") == 0 ? 0 : 1;
}
