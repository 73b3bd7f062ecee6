#!/usr/bin/env bash
# Packaging gates on the packed tarball: publint, are-the-types-wrong, an install of the tarball into
# a scratch project that imports every subpath in ESM and CommonJS, TypeScript checks of a user's
# code against the installed types (misspelled and mistyped parameters are errors, response fields
# typed), a browser/neutral bundle of the installed core with no Node imports, and README's install
# blocks run as written: from a git URL (npm builds dist/ through `prepare`) and from a folder.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npm pack --pack-destination "$tmp" >/dev/null 2>&1
tarball=$(ls "$tmp"/chat-realm-*.tgz)
echo "packed $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KiB)"
npx publint "$tarball" --strict
npx attw "$tarball" --profile node16 --ignore-rules cjs-resolves-to-esm
node scripts/check-subpaths.mjs "$tarball" "$tmp"
node scripts/check-consumer-types.mjs "$tmp"
node scripts/check-bundle.mjs "$tmp/consumer/node_modules/chat-realm"
node --import tsx scripts/check-install.ts
