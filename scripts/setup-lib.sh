# What the setup scripts share (sourced, not run): how they speak, and how they install Debian packages.
# shellcheck shell=bash

say() { printf 'tally setup: %s\n' "$*" >&2; }

# Root on Debian or Ubuntu with apt-get: a script may install what is missing; elsewhere it says what to do.
can_apt_install() { [ "$(id -u)" = 0 ] && [ -r /etc/debian_version ] && command -v apt-get >/dev/null 2>&1; }

# Installs Debian packages quietly: first from the package lists the machine has (no download of the
# lists), then, if that fails, after `apt-get update`. needrestart's hook is suspended: it restarts
# nothing here and only prints warnings without a terminal.
apt_install() {
  export DEBIAN_FRONTEND=noninteractive NEEDRESTART_SUSPEND=1
  apt-get install -y -qq "$@" >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null && apt-get install -y -qq "$@" >/dev/null; }
}
