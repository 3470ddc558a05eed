#!/usr/bin/env bash
# Make sure the services of the scale-out tests (tests/cluster) are installed from Debian's
# packages: redis-server, and PostgreSQL's server binaries (initdb, pg_ctl, postgres). The
# tests start their own instances in temporary directories on free ports of 127.0.0.1; nothing
# here starts a service or enables one at boot.
set -euo pipefail
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
if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi
echo "ensure-services: installing from Debian: ${missing[*]}" >&2
$SUDO apt-get update -qq
# policy-rc.d would be the usual way to keep services from starting; the packages' own
# services are stopped again right after, as the tests run their own instances.
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
for service in redis-server postgresql; do
  if command -v service >/dev/null 2>&1; then
    $SUDO service "$service" stop >/dev/null 2>&1 || true
  fi
done
command -v redis-server >/dev/null
ls /usr/lib/postgresql/*/bin/initdb >/dev/null
