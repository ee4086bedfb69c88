# The MPI build's netcdf_meta.h and netcdf_par.h (-DNCZARR_RS_MPI=ON): made
# at configure time from the default build's, in include/, by replacing
# what describes the build. Every text replaced must be found, so that a
# header edited without this file stops the configure step instead of
# installing a stale claim.

# Copies `in` to `out` with each (old, new) pair of ARGN replaced (CMake
# lists: no text may hold a semicolon).
function(_nczarr_rs_edit in out)
  file(READ "${in}" text)
  set(pairs ${ARGN})
  list(LENGTH pairs n)
  math(EXPR odd "${n} % 2")
  if(odd)
    message(FATAL_ERROR "mpi_headers.cmake: an edit of ${in} is not a pair (a semicolon in its text?)")
  endif()
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last} 2)
    math(EXPR j "${i} + 1")
    list(GET pairs ${i} old)
    list(GET pairs ${j} new)
    string(FIND "${text}" "${old}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "mpi_headers.cmake: ${in} no longer has \"${old}\": update the MPI build's edits")
    endif()
    string(REPLACE "${old}" "${new}" text "${text}")
  endforeach()
  file(WRITE "${out}" "${text}")
endfunction()

# Writes the two headers into `dst`; their paths go to `out_var`.
function(nczarr_rs_mpi_headers src dst out_var)
  file(MAKE_DIRECTORY "${dst}")
  _nczarr_rs_edit("${src}/netcdf_meta.h" "${dst}/netcdf_meta.h"
    "no HDF5, HDF4, DAP, parallel I/O, CDF-5,
 * netCDF-3 files or V2 API (a process's own libnetcdf serves those)."
    "parallel I/O over MPI
 * (this is libnczarr_rs's MPI build: netcdf_par.h), but no HDF5, HDF4,
 * DAP, CDF-5, netCDF-3 files or V2 API (a process's own libnetcdf serves
 * those)."
    "#define NC_HAS_PARALLEL4 0" "#define NC_HAS_PARALLEL4 1 /* the MPI build */"
    "#define NC_HAS_PARALLEL  0" "#define NC_HAS_PARALLEL  1 /* the MPI build */"
    "#define NC_HAS_PAR_FILTERS   0" "#define NC_HAS_PAR_FILTERS   1 /* filtered variables, collectively */")
  _nczarr_rs_edit("${src}/netcdf_par.h" "${dst}/netcdf_par.h"
    " * libnczarr_rs is built without parallel I/O (NC_HAS_PARALLEL is 0 in
 * <netcdf_meta.h>): for its own datasets every function here returns
 * NC_ENOPAR, as a netCDF-C built without it does. Paths and ncids that are
 * netCDF-C's go to the process's libnetcdf."
    " * This is libnczarr_rs's MPI build (NC_HAS_PARALLEL is 1 in
 * <netcdf_meta.h>), for the MPI whose <mpi.h> it was built with: every rank
 * of `comm` creates or opens the dataset together, on the library's own
 * duplicate of `comm`. NC_MPIIO (NC_MPIPOSIX, NC_PNETCDF) and `info` are
 * accepted and ignored. A filtered variable is collective, as in netCDF-C.
 * Paths and ncids that are netCDF-C's go to the process's libnetcdf.")
  set(${out_var} "${dst}/netcdf_meta.h" "${dst}/netcdf_par.h" PARENT_SCOPE)
endfunction()
