#!/usr/bin/env bash
# Builds an environment image for real SWE-bench instances offline: no Python package index is needed,
# everything comes from Debian's packages through debootstrap, and the result is `docker import`ed.
# See docs/offline-env-images.md for what each recipe covers and how to use the image.
#
#   bash scripts/build-env-image.sh RECIPE [IMAGE]      RECIPE: django-py39 | django-py311 | sympy | pytest | requests | jq
#   bash scripts/build-env-image.sh --list
#
# Prints the --env-image flags that make `locfix evaluate` / `locfix run` use the image. Idempotent: an
# existing image is kept (delete it with `docker rmi` to rebuild). Runs as root.
set -euo pipefail

log() { echo "[build-env-image] $*" >&2; }

# Every environment needs these: the harness' eval script uses git and patch, `python` is what the
# harness' install commands call, and pip installs the checkout itself (offline, below).
COMMON="git,patch,ca-certificates,python3,python3-pip,python3-setuptools,python3-wheel,python-is-python3,locales,tzdata"

recipe="${1:-}"
case "$recipe" in
  --list)
    echo "django-py39   Django 3.0-4.2 (bullseye, python 3.9; bookworm's asgiref 3.6)"
    echo "django-py311  Django 5.0 (bookworm, python 3.11)"
    echo "sympy         sympy, every Lite version (bullseye, python 3.9, mpmath 1.2.1)"
    echo "pytest        pytest 4.4-6.0 (bullseye, python 3.9)"
    echo "requests      psf/requests 0.7-2.10 (bullseye, python 3.9; urllib3 and chardet are vendored)"
    echo "jq            jqlang/jq, every Multilingual version (bookworm C toolchain with autotools; the oniguruma submodule from Debian's libonig source)"
    exit 0
    ;;
  django-py39)
    suite=bullseye
    packages="$COMMON,python3-sqlparse,python3-tz,python3-pil,python3-yaml,python3-jinja2,python3-numpy,python3-argon2,python3-bcrypt,python3-cffi-backend,python3-docutils,python3-tblib"
    # bullseye's asgiref (3.3.1) is too old for Django 4.1/4.2; bookworm's is pure Python
    extra_debs="bookworm:python3-asgiref"
    repo="django/django"
    versions="3.0 3.1 3.2 4.0 4.1 4.2"
    ;;
  django-py311)
    suite=bookworm
    packages="$COMMON,python3-asgiref,python3-sqlparse,python3-tz,python3-pil,python3-yaml,python3-jinja2,python3-numpy,python3-argon2,python3-bcrypt,python3-cffi-backend,python3-docutils,python3-tblib"
    extra_debs=""
    repo="django/django"
    versions="5.0"
    ;;
  sympy)
    suite=bullseye
    packages="$COMMON,python3-mpmath"
    extra_debs=""
    repo="sympy/sympy"
    versions="0.7 1.0 1.1 1.2 1.4 1.5 1.6 1.7 1.8 1.9 1.10 1.11 1.12 1.13"
    ;;
  pytest)
    suite=bullseye
    packages="$COMMON,python3-setuptools-scm,python3-attr,python3-pluggy,python3-py,python3-more-itertools,python3-packaging,python3-wcwidth,python3-atomicwrites,python3-iniconfig,python3-toml,python3-six"
    extra_debs=""
    repo="pytest-dev/pytest"
    versions="4.4 4.5 4.6 5.0 5.1 5.2 5.3 5.4 6.0"
    ;;
  requests)
    # requests up to 2.15 vendors urllib3, chardet and idna under requests/packages: pytest is all it needs
    suite=bullseye
    packages="$COMMON,python3-pytest"
    extra_debs=""
    repo="psf/requests"
    versions="0.7 0.8 0.9 0.11 0.13 0.14 1.1 1.2 2.0 2.2 2.3 2.4 2.5 2.7 2.8 2.9 2.10"
    ;;
  jq)
    # The harness' jq spec builds the oniguruma submodule (`--with-oniguruma=builtin`) after
    # `git submodule update --init`, which needs GitHub. Debian's libonig source (the same upstream library)
    # stands in for it: copied into modules/oniguruma at instance setup, the submodule command fails offline
    # and the spec's build runs unchanged. (Linking the system libonig instead loses 21 of 27 PASS_TO_PASS.)
    suite=bookworm
    packages="git,patch,ca-certificates,gcc,libc6-dev,make,autoconf,automake,libtool,bison,flex,curl"
    extra_debs=""
    source_tarballs="http://deb.debian.org/debian/pool/main/libo/libonig/libonig_6.9.8.orig.tar.gz:/opt/oniguruma"
    instance_setup="mkdir -p modules/oniguruma && cp -a /opt/oniguruma/. modules/oniguruma/"
    repo="jqlang/jq"
    versions="2235 2598 2650 2658 2681 2728 2750 2839 2919"
    ;;
  *)
    echo "usage: bash scripts/build-env-image.sh RECIPE [IMAGE]   (recipes: bash scripts/build-env-image.sh --list)" >&2
    exit 2
    ;;
esac
image="${2:-locfix/env.$recipe:1}"
source_tarballs="${source_tarballs:-}"
instance_setup="${instance_setup:-}"

flags() {
  for v in $versions; do printf -- '--env-image %s@%s=%s ' "$repo" "$v" "$image"; done
  if [ -n "$instance_setup" ]; then printf -- "--instance-setup '%s=%s'" "$repo" "$instance_setup"; fi
  echo
}

if docker image inspect "$image" >/dev/null 2>&1; then
  log "$image present"
  flags
  exit 0
fi

command -v debootstrap >/dev/null 2>&1 || { log "debootstrap is missing: apt-get install debootstrap (or run scripts/setup-docker.sh)"; exit 1; }
rootfs="$(mktemp -d /tmp/locfix-env-rootfs.XXXXXX)"
work="$(mktemp -d /tmp/locfix-env-debs.XXXXXX)"
trap 'rm -rf "$rootfs" "$work"' EXIT

log "debootstrap $suite (minbase) with the $recipe packages (about 1.5 min)"
if ! debootstrap --variant=minbase --include="$packages" "$suite" "$rootfs" >"$work/debootstrap.log" 2>&1; then
  log "debootstrap failed; last lines of its log:"
  tail -n 30 "$work/debootstrap.log" >&2
  exit 1
fi

for spec in $extra_debs; do
  from="${spec%%:*}"
  package="${spec#*:}"
  if [ "$from" != "$(. /etc/os-release && echo "$VERSION_CODENAME")" ]; then
    log "$package must come from $from, and this host is not $from: install it into the image by hand (docs/offline-env-images.md)"
    exit 1
  fi
  log "adding $from's $package"
  (cd "$work" && apt-get download "$package" >/dev/null 2>&1) || { apt-get update >/dev/null && (cd "$work" && apt-get download "$package" >/dev/null); }
  dpkg-deb -x "$work"/"$package"_*.deb "$rootfs"
done

# Upstream sources a recipe needs inside the image (fetched here, where the Debian mirror is reachable)
for spec in $source_tarballs; do
  url="${spec%:*}"
  dest="${spec##*:}"
  log "adding the source $url at $dest"
  curl -sSfL "$url" -o "$work/source.tar.gz" || { log "cannot fetch $url"; exit 1; }
  mkdir -p "$rootfs$dest"
  tar -xzf "$work/source.tar.gz" -C "$rootfs$dest" --strip-components=1
done

# Offline `pip install -e .`: never reach for an index, never install dependencies (Debian has them), and
# build without isolation (pip reads no-build-isolation inverted: false turns isolation off).
cat >"$rootfs/etc/pip.conf" <<'EOF'
[global]
no-index = true
break-system-packages = true
disable-pip-version-check = true

[install]
no-deps = true
no-build-isolation = false
EOF
rm -f "$rootfs"/usr/lib/python3*/EXTERNALLY-MANAGED
# bullseye's python3-pytest installs only pytest-3; the harness' test commands call pytest
if [ -e "$rootfs/usr/bin/pytest-3" ] && [ ! -e "$rootfs/usr/bin/pytest" ]; then ln -s pytest-3 "$rootfs/usr/bin/pytest"; fi
# the harness' Django eval commands turn en_US.UTF-8 on with locale-gen
grep -q '^# en_US.UTF-8' "$rootfs/etc/locale.gen" 2>/dev/null || echo '# en_US.UTF-8 UTF-8' >>"$rootfs/etc/locale.gen"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*

log "importing $image"
tar -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["/bin/bash"]' \
  - "$image" >/dev/null
log "built $image; use it with:"
flags
