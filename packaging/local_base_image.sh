#!/usr/bin/env bash
# An offline stand-in for docker.io/library/debian:bookworm-slim, for building
# packaging/Containerfile where the registry is out of reach (the machine this project is
# developed on resolves no registry host): a Debian 12 root made by mmdebstrap from the Debian
# mirror, with the slim image's dpkg exclusions (no docs but copyright files, no man pages or
# locales), imported into podman under the name the Containerfile asks for. Needs root, podman and
# mmdebstrap (scripts/setup.sh package). Where the registry is reachable, skip this script.
#   packaging/local_base_image.sh [MIRROR]
set -euo pipefail
mirror=${1:-http://deb.debian.org/debian}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mmdebstrap --variant=apt --mode=root --quiet \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/groff/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/lintian/*' \
  bookworm "$tmp/root.tar" "$mirror"
podman import --change 'CMD ["bash"]' "$tmp/root.tar" docker.io/library/debian:bookworm-slim
podman images docker.io/library/debian:bookworm-slim
