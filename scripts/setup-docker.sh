#!/usr/bin/env bash
# Prepares Docker for locfix's sandboxes: installs the daemon and debootstrap from Debian's packages,
# starts dockerd without networking (containers never get a network), and builds the offline base
# image locfix/base:bookworm. Idempotent: every step is skipped when its result already exists.
# Runs as root (CI runs it from .ci/run).
set -euo pipefail

BASE_IMAGE="${LOCFIX_BASE_IMAGE:-locfix/base:bookworm}"
DOCKERD_LOG="${LOCFIX_DOCKERD_LOG:-/var/log/locfix-dockerd.log}"
BASE_PACKAGES="python3,python3-pytest,git,patch,ca-certificates"

log() { echo "[setup-docker] $*" >&2; }

need_install=()
command -v dockerd >/dev/null 2>&1 || need_install+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || need_install+=(debootstrap)
if [ "${#need_install[@]}" -gt 0 ]; then
  log "installing ${need_install[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Only refresh the package lists when the install cannot find the packages with the current ones.
  if ! apt-get install -y --no-install-recommends "${need_install[@]}" >/dev/null; then
    apt-get update >/dev/null
    apt-get install -y --no-install-recommends "${need_install[@]}" >/dev/null
  fi
fi

if ! docker info >/dev/null 2>&1; then
  log "starting dockerd (log: $DOCKERD_LOG)"
  mkdir -p "$(dirname "$DOCKERD_LOG")"
  # --bridge=none/--iptables=false: the daemon creates no network of its own; containers run with
  # network mode none anyway.
  nohup dockerd --bridge=none --iptables=false >"$DOCKERD_LOG" 2>&1 &
  for _ in $(seq 1 60); do
    if docker info >/dev/null 2>&1; then break; fi
    sleep 1
  done
  if ! docker info >/dev/null 2>&1; then
    log "dockerd did not come up within 60 s; last lines of its log:"
    tail -n 30 "$DOCKERD_LOG" >&2 || true
    exit 1
  fi
fi
log "docker daemon answers"

if ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  rootfs="$(mktemp -d /tmp/locfix-rootfs.XXXXXX)"
  trap 'rm -rf "$rootfs"' EXIT
  log "building $BASE_IMAGE with debootstrap (bookworm, minbase)"
  debootstrap --variant=minbase --include="$BASE_PACKAGES" bookworm "$rootfs" >/tmp/locfix-debootstrap.log 2>&1 || {
    log "debootstrap failed; last lines of /tmp/locfix-debootstrap.log:"
    tail -n 30 /tmp/locfix-debootstrap.log >&2
    exit 1
  }
  # Keep the image small: package caches are not needed inside the sandbox.
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["/bin/bash"]' \
    - "$BASE_IMAGE" >/dev/null
  log "built $BASE_IMAGE"
else
  log "$BASE_IMAGE present"
fi
