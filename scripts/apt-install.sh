# Sourced: apt_install PACKAGE... installs Debian packages through apt-get
# (as root, or with sudo), quietly; nothing when given none. Used by
# scripts/setup-deps.sh and the harnesses that need more
# (tests/mpi_python/run.sh).
apt_install() {
  [ $# -gt 0 ] || return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "apt-install: installing $*"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
