/*
 * netcdf_meta.h: what this library (libnczarr_rs) is, in netCDF-C's terms
 * (same macro names and include guard as netCDF-C's netcdf_meta.h, the
 * macros of 4.9.x and of 4.10 both). The version is the netCDF API version
 * nc_inq_libvers() reports. NC_HAS_* describe libnczarr_rs, not any
 * netCDF-C: NCZarr (directory, zip, S3 and in-memory stores), zlib,
 * Zstandard and Blosc built in; no HDF5, HDF4, DAP, parallel I/O, CDF-5,
 * netCDF-3 files or V2 API (a process's own libnetcdf serves those).
 */
#ifndef NETCDF_META_H
#define NETCDF_META_H

#define NC_VERSION_MAJOR 4
#define NC_VERSION_MINOR 9
#define NC_VERSION_PATCH 2
#define NC_VERSION_NOTE  ""
#define NC_VERSION       "4.9.2"

#define NC_HAS_NC2       0 /* V2 API: no */
#define NC_HAS_NC4       1 /* the netCDF-4 data model */
#define NC_HAS_HDF4      0
#define NC_HAS_HDF5      0
#define NC_HAS_SZIP      0
#define NC_HAS_SZIP_WRITE 0
#define NC_HAS_DAP2      0
#define NC_HAS_DAP4      0
#define NC_HAS_BYTERANGE 0
#define NC_HAS_DISKLESS  1 /* NC_DISKLESS/NC_INMEMORY: the in-memory store */
#define NC_HAS_MMAP      0
#define NC_HAS_JNA       0
#define NC_HAS_PNETCDF   0
#define NC_HAS_PARALLEL4 0
#define NC_HAS_PARALLEL  0

#define NC_HAS_CDF5          0
#define NC_HAS_ERANGE_FILL   0
#define NC_RELAX_COORD_BOUND 1
#define NC_DISPATCH_VERSION  5 /* nczarr_rs_udf_dispatch()'s table */
#define NC_HAS_PAR_FILTERS   0
#define NC_HAS_LOGGING       0
#define NC_HAS_MULTIFILTERS  1 /* several filters per variable */

#define NC_HAS_QUANTIZE      1
#define NC_HAS_ZSTD          1
#define NC_HAS_BENCHMARKS    0
#define NC_HAS_BLOSC         1
#define NC_HAS_BZ2           0
#define NC_HAS_UDF_SELF_LOAD 0
#define NC_HAS_S3            1
#define NC_HAS_S3_AWS        0
#define NC_HAS_S3_INTERNAL   1 /* S3 without the AWS C++ SDK */
#define NC_HAS_HDF5_ROS3     0
#define NC_HAS_NCZARR        1

#endif /* NETCDF_META_H */
