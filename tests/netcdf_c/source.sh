# Sourced by tests/netcdf_c/run.sh and tests/netcdf_c_par/run.sh: the newest
# netCDF-C's source, from Debian unstable's source package (4.10.1 at the
# time of writing), unpacked into target/netcdf-c. Only the source is
# downloaded (apt-get source; the deb-src entry is added when the machine
# has none); nothing is installed, and a copy already unpacked is reused.
#
# netcdf_c_source WORKDIR: sets $src to the unpacked netcdf-c-* directory,
# or returns non-zero with a message.
netcdf_c_source() {
    local work=$1
    mkdir -p "$work"
    src=$(find "$work" -maxdepth 1 -type d -name 'netcdf-c-*' | head -1)
    [ -n "$src" ] && return 0
    (
        cd "$work" || exit 1
        cat > /etc/apt/sources.list.d/nczarr-rs-netcdf-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
        apt-get update -qq > apt.log 2>&1
        apt-get source --download-only netcdf/sid >> apt.log 2>&1 || { cat apt.log; exit 1; }
        tar xzf netcdf_*.orig.tar.gz
    ) || { echo "netcdf-c tests: could not get Debian's netCDF-C source"; return 1; }
    src=$(find "$work" -maxdepth 1 -type d -name 'netcdf-c-*' | head -1)
    [ -n "$src" ]
}
