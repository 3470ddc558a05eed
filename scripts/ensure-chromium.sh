#!/usr/bin/env bash
# Make sure Debian's Chromium and the fonts the pages need are installed for the browser tests
# (tests/web): Playwright drives /usr/bin/chromium; we never run `playwright install` (it
# downloads a browser). The Japanese pages need a CJK font (fonts-noto-cjk) to be legible in
# the screenshots, and the reactions of the table page (issue 10) a colour emoji font
# (fonts-noto-color-emoji).
set -euo pipefail
missing=()
if [ ! -x /usr/bin/chromium ]; then
  missing+=(chromium fonts-dejavu-core)
fi
if ! dpkg-query -W -f='${Status}' fonts-noto-cjk 2>/dev/null | grep -q "install ok installed"; then
  missing+=(fonts-noto-cjk)
fi
if ! dpkg-query -W -f='${Status}' fonts-noto-color-emoji 2>/dev/null | grep -q "install ok installed"; then
  missing+=(fonts-noto-color-emoji)
fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi
echo "ensure-chromium: installing from Debian: ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
test -x /usr/bin/chromium
