# Shared by scripts/ensure-*.sh (sourced, not run): installing Debian packages the tests need.
#   deb_installed PACKAGE      true when dpkg has the package installed
#   as_root COMMAND...         run a command as root (through sudo when not root)
#   apt_install WHO PACKAGE... apt-get update and install, quietly, saying first on stderr what
#                              WHO installs
deb_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  else
    sudo "$@"
  fi
}

apt_install() {
  local who=$1
  shift
  echo "$who: installing from Debian: $*" >&2
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
