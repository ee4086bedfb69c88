/*
 * netcdf.h: the netCDF C API as provided by libnczarr_rs.
 *
 * An unchanged netCDF C program that does `#include <netcdf.h>` compiles
 * against libnczarr_rs when this directory (installed as
 * <prefix>/include/nczarr_rs) is on its include path, e.g. by linking the
 * CMake target nczarr_rs::nczarr_rs or with `pkg-config --cflags nczarr_rs`.
 * Every declaration lives in the generated nczarr_rs.h.
 */
#ifndef NCZARR_RS_NETCDF_H
#define NCZARR_RS_NETCDF_H
#include "nczarr_rs.h"
#endif /* NCZARR_RS_NETCDF_H */
