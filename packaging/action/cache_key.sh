#!/usr/bin/env bash
# Step "Compiler cache key" of action.yml: with install 'source', the key of the compiler cache
# is a hash of the sources the build compiles (the action's checkout has no .git to ask), so an
# unchanged action restores a complete cache and a changed one the nearest older cache
# (restore-keys). Other install modes need no key.
set -euo pipefail
: "${GITHUB_OUTPUT:?}"
if [ "${INPUT_INSTALL:-deb}" = source ]; then
  key=$(cd "${ACTION_PATH:?}" && find CMakeLists.txt cmake harness reference reports -type f -print0 |
        LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
  echo "key=agentconform-ccache-$(uname -m)-$key" >> "$GITHUB_OUTPUT"
fi
