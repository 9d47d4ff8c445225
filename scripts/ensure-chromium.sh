#!/usr/bin/env bash
# Makes sure a Chromium the tests can drive headless (through playwright-core) is installed, and prints
# its path on stdout. Uses TALLY_TEST_CHROMIUM when set, else `chromium` or `chromium-browser` on PATH;
# when neither is there, on Debian/Ubuntu as root, installs Debian's chromium. Elsewhere it says what
# to do and fails.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup-lib.sh"

if [ -n "${TALLY_TEST_CHROMIUM:-}" ]; then
  [ -x "$TALLY_TEST_CHROMIUM" ] && { echo "$TALLY_TEST_CHROMIUM"; exit 0; }
  say "TALLY_TEST_CHROMIUM=$TALLY_TEST_CHROMIUM is not an executable; fix the path or unset the variable"; exit 1
fi

found() { command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null; }

if path=$(found); then echo "$path"; exit 0; fi
if ! can_apt_install; then
  say "no Chromium found. Install it (e.g. 'sudo apt-get install chromium') or set TALLY_TEST_CHROMIUM"
  say "to a Chromium or Chrome binary, then run this command again."
  exit 1
fi
say "installing Debian's chromium (the HTML report tests render pages in it)"
apt_install chromium
path=$(found) || { say "chromium was installed but is not on PATH"; exit 1; }
echo "$path"
