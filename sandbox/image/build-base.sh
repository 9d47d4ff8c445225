#!/usr/bin/env bash
# Makes sure the sandbox's base image exists. Uses a local copy if present, else tries
# 'docker pull'; where no registry answers, builds a minimal Debian bookworm with debootstrap and
# imports it, with the updates and security suites listed like a pulled image's. Prints the base
# image reference on stdout. The sandbox, the tally image and the compose stack's images build on it.
#   BASE_IMAGE      the image to use (default debian:bookworm-slim)
#   DEBIAN_MIRROR   mirror for debootstrap (default: the host's apt mirror, else deb.debian.org)
#   DEBIAN_SECURITY_MIRROR   mirror of the security suite (default http://deb.debian.org/debian-security)
set -euo pipefail

base=${BASE_IMAGE:-debian:bookworm-slim}
local_base=tally/bookworm-base:2
say() { printf 'tally image: %s\n' "$*" >&2; }

if docker image inspect "$base" >/dev/null 2>&1; then echo "$base"; exit 0; fi
if docker image inspect "$local_base" >/dev/null 2>&1; then echo "$local_base"; exit 0; fi
if timeout 60 docker pull -q "$base" >/dev/null 2>&1; then echo "$base"; exit 0; fi

say "cannot pull $base (no registry); building $local_base with debootstrap"
if ! command -v debootstrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null \
      || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
  else
    say "debootstrap is missing: install it (apt-get install debootstrap) or make $base pullable"; exit 1
  fi
fi

mirror=${DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$(grep -rhoE '^(URIs:|deb) +https?://[^ ]+/debian/?' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
    | grep -oE 'https?://[^ ]+' | head -n1 || true)
  mirror=${mirror:-http://deb.debian.org/debian}
fi

root=$(mktemp -d /tmp/tally-rootfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
say "debootstrap bookworm from $mirror (a few minutes)"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 \
  || { say "debootstrap failed; see $root.log"; exit 1; }
rm -f "$root.log"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
# debootstrap lists only 'bookworm main': add the suites that carry the security fixes.
printf '%s\n' "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
  "deb ${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security} bookworm-security main" > "$root/etc/apt/sources.list"
tar -C "$root" -c . | docker import -c 'CMD ["/bin/bash"]' - "$local_base" >/dev/null
say "built $local_base"
echo "$local_base"
