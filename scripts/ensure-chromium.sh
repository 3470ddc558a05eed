#!/usr/bin/env bash
# Make sure Debian's Chromium and the fonts the pages need are installed for the browser tests
# (tests/web): Playwright drives /usr/bin/chromium; we never run `playwright install` (it
# downloads a browser). The Japanese pages need a CJK font (fonts-noto-cjk) to be legible in
# the screenshots, and the reactions of the table page (issue 10) a colour emoji font
# (fonts-noto-color-emoji).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
missing=()
if [ ! -x /usr/bin/chromium ]; then
  missing+=(chromium fonts-dejavu-core)
fi
for font in fonts-noto-cjk fonts-noto-color-emoji; do
  if ! deb_installed "$font"; then
    missing+=("$font")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
apt_install ensure-chromium "${missing[@]}"
test -x /usr/bin/chromium
