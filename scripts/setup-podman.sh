#!/usr/bin/env bash
# Podman's Docker-compatible API as a second kind of engine for the docker-pool backend's test: installs
# Debian's podman and catatonit (the init it starts in containers), caps the container ulimits below this
# machine's hard limits, and serves the API on a unix socket. Idempotent. Runs as root (CI runs it from .ci/run).
set -euo pipefail

SOCKET="${LOCFIX_PODMAN_SOCKET:-/run/locfix-podman.sock}"
LOG="${LOCFIX_PODMAN_LOG:-/var/log/locfix-podman.log}"

log() { echo "[setup-podman] $*" >&2; }
# the API answers on the socket (podman's own remote client: no curl needed)
answers() { timeout 20 podman --remote --url "unix://$SOCKET" version >/dev/null 2>&1; }

if ! command -v podman >/dev/null 2>&1 || [ ! -x /usr/libexec/podman/catatonit ]; then
  log "installing podman and catatonit"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends podman catatonit >/dev/null; then
    apt-get update >/dev/null
    apt-get install -y --no-install-recommends podman catatonit >/dev/null
  fi
fi

# Rootful Podman asks for nofile 1048576 and a large nproc in every container; where the host's hard limits are
# lower (this machine: nofile 20000) runc cannot set them and no container starts. These values fit any host.
mkdir -p /etc/containers
conf=/etc/containers/containers.conf
if ! grep -q 'written by locfix' "$conf" 2>/dev/null; then
  [ -f "$conf" ] && cp "$conf" "$conf.before-locfix"
  printf '# written by locfix scripts/setup-podman.sh\n[containers]\ndefault_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]\n' >"$conf"
fi

if ! answers; then
  log "serving the Podman API on unix://$SOCKET (log: $LOG)"
  rm -f "$SOCKET"
  nohup podman system service --time=0 "unix://$SOCKET" >"$LOG" 2>&1 &
  for _ in $(seq 1 30); do
    answers && break
    sleep 0.5
  done
fi
if ! answers; then
  log "the Podman API did not answer on $SOCKET; last lines of $LOG:"
  tail -n 20 "$LOG" >&2 || true
  exit 1
fi
log "Podman $(podman --version | awk '{print $3}') answers on unix://$SOCKET"
