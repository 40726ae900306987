#!/usr/bin/env bash
# Prepares this machine for the bubblewrap sandbox kind (sandbox/bwrap/): installs bubblewrap, newuidmap/newgidmap
# (Debian: uidmap) and libseccomp's Python bindings (python3-seccomp, which compile the sandboxes' seccomp filter),
# and, as root, gives root a range of 65,536 subordinate ids in /etc/subuid and /etc/subgid: root's sandboxes run as
# those ids (sandbox/bwrap/identity.ts), never as host root. Idempotent: each step is skipped when its result exists.
# LOCFIX_BWRAP_SUBIDS overrides the range's first id (default 524288, the start of the range systemd's
# UID/GID documentation sets aside for containers).
set -euo pipefail

log() { echo "[setup-bwrap] $*" >&2; }

need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v newuidmap >/dev/null 2>&1 || need+=(uidmap)
/usr/bin/python3 -c 'import seccomp' >/dev/null 2>&1 || need+=(python3-seccomp)
if [ "${#need[@]}" -gt 0 ]; then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; then
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
fi

if [ "$(id -u)" = 0 ]; then
  first="${LOCFIX_BWRAP_SUBIDS:-524288}"
  last=$((first + 65535))
  for file in /etc/subuid /etc/subgid; do
    if ! awk -F: '($1 == "root" || $1 == "0") && $3 >= 65536 { found = 1 } END { exit !found }' "$file" 2>/dev/null; then
      log "giving root the subordinate ids $first-$last in $file"
      if [ "$file" = /etc/subuid ]; then usermod --add-subuids "$first-$last" root; else usermod --add-subgids "$first-$last" root; fi
    fi
  done
fi
log "bwrap $(bwrap --version | cut -d' ' -f2), newuidmap, python3-seccomp ready"
