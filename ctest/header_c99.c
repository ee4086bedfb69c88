/* <netcdf.h> compiles as strict C99 (-std=c99 -Wall -Wextra -Werror -pedantic). */
#include <netcdf.h>
#include <netcdf.h> /* include guard */

typedef char assert_ebadid[(NC_EBADID == -33) ? 1 : -1];
typedef char assert_size64[(sizeof(size64_t) == 8) ? 1 : -1];

int main(void) {
    nc_type t = NC_FLOAT;
    int (*fn)(int, const char *) = nczmap_exists;
    (void)fn;
    return (t == 5 && nc_strerror(NC_NOERR) != NULL) ? 0 : 1;
}
