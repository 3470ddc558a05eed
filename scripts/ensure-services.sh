#!/usr/bin/env bash
# Make sure the services of the scale-out tests (tests/cluster) are installed from Debian's
# packages: redis-server, and PostgreSQL's server binaries (initdb, pg_ctl, postgres). The
# tests start their own instances in temporary directories on free ports of 127.0.0.1; nothing
# here starts a service or enables one at boot.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
missing=()
if ! command -v redis-server >/dev/null 2>&1 && [ ! -x /usr/bin/redis-server ]; then
  missing+=(redis-server)
fi
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  missing+=(postgresql)
fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
# policy-rc.d would be the usual way to keep services from starting; the packages' own
# services are stopped again right after, as the tests run their own instances.
apt_install ensure-services "${missing[@]}"
for service in redis-server postgresql; do
  if command -v service >/dev/null 2>&1; then
    as_root service "$service" stop >/dev/null 2>&1 || true
  fi
done
command -v redis-server >/dev/null
ls /usr/lib/postgresql/*/bin/initdb >/dev/null
