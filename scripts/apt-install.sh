# Shared by scripts/ensure-*.sh (sourced, not run): installing Debian packages the tests need.
#   deb_installed PACKAGE      true when dpkg has the package installed
#   as_root COMMAND...         run a command as root (through sudo when not root)
#   wait_for_apt_locks         wait while another apt-get or dpkg holds Debian's package locks
#                              (as on a fresh cloud machine running its updates), saying so on
#                              stderr; give up with a message after APT_LOCK_WAIT seconds
#                              (default 900)
#   apt_install WHO PACKAGE... apt-get update and install, quietly, saying first on stderr what
#                              WHO installs
# APT_LOCK_FILES (space-separated) names the lock files to watch; the default is Debian's.
APT_LOCK_FILES=${APT_LOCK_FILES:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock}
APT_LOCK_WAIT=${APT_LOCK_WAIT:-900}

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

# dpkg and apt hold their locks with fcntl(2) record locks, which flock(1) cannot see: ask for
# the same kind of lock, without blocking, and let it go at once. Prints the first busy file.
_busy_apt_lock() {
  python3 - "$@" <<'PY'
import fcntl, os, sys
for path in sys.argv[1:]:
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        continue  # absent, or not ours to open: nothing to wait for
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print(path)
        sys.exit(0)
    finally:
        os.close(fd)
sys.exit(1)
PY
}

wait_for_apt_locks() {
  local waited=0 busy
  # Without root the lock files cannot be opened and count as free: apt's own wait (below)
  # covers that case.
  # shellcheck disable=SC2086  # the list is split on purpose
  while busy=$(_busy_apt_lock $APT_LOCK_FILES); do
    if [ "$waited" -eq 0 ]; then
      echo "apt: another package manager holds $busy (system updates?); waiting up to ${APT_LOCK_WAIT} s" >&2
    fi
    if [ "$waited" -ge "$APT_LOCK_WAIT" ]; then
      echo "apt: $busy is still held after ${APT_LOCK_WAIT} s; giving up (set APT_LOCK_WAIT to wait longer)" >&2
      return 1
    fi
    sleep 2
    waited=$((waited + 2))
  done
  if [ "$waited" -gt 0 ]; then
    echo "apt: the package locks are free after ${waited} s; going on" >&2
  fi
}

apt_install() {
  local who=$1
  shift
  echo "$who: installing from Debian: $*" >&2
  wait_for_apt_locks
  # apt's own wait covers a lock taken between the check above and these commands
  as_root apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT" update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT" \
    install -y -qq "$@" >/dev/null
}
