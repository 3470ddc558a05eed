#!/usr/bin/env bash
# Make sure Debian's Chromium is installed for the browser tests (tests/web).
# Playwright drives /usr/bin/chromium; we never run `playwright install` (it downloads a browser).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi
echo "ensure-chromium: installing Debian's chromium" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
test -x /usr/bin/chromium
