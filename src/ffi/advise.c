/*
 * nc_advise, netCDF-C's V2 API error reporter. It is variadic, which stable
 * Rust cannot define: this shim formats the message and hands it to
 * nczarr_rs_advise (src/ffi/library.rs), which forwards it to the real
 * libnetcdf or reports it as netCDF-C does by default.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int nczarr_rs_advise(const char *routine_name, int err, const char *message);

void nc_advise(const char *cdf_routine_name, int err, const char *fmt, ...)
{
    char small[512];
    char *message = small;
    int n = 0;
    va_list args;
    small[0] = '\0';
    if (fmt != NULL) {
        va_start(args, fmt);
        n = vsnprintf(small, sizeof small, fmt, args);
        va_end(args);
        if (n >= (int)sizeof small && (message = malloc((size_t)n + 1)) != NULL) {
            va_start(args, fmt);
            vsnprintf(message, (size_t)n + 1, fmt, args);
            va_end(args);
        } else {
            message = small;
        }
    }
    (void)nczarr_rs_advise(cdf_routine_name, err, message);
    if (message != small)
        free(message);
}
