#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# license_test.sh SOURCE_DIR: every source file of the tree (git's list in a clone, else
# every file outside build trees) names its license in an SPDX line and carries the
# copyright line within its first 4 lines. Not text that cannot hold a comment: Markdown,
# LICENSE itself, images and the fuzz corpora's inputs.
set -euo pipefail
src=$1
cd "$src"
[ -f LICENSE ] && grep -q "Apache License" LICENSE && grep -q "Version 2.0" LICENSE ||
  { echo "license_test: $src/LICENSE is missing or not the Apache License 2.0" >&2; exit 1; }
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  files=$(git ls-files)
else
  files=$(find . -path ./.git -prune -o -path './build*' -prune -o -type f -print | sed 's|^\./||')
fi
# One awk over every file (the first 4 lines each): the files missing either line.
files=$(grep -v -E '(\.md|\.png|^LICENSE|^tests/fuzz/corpus/.*)$' <<< "$files")
checked=$(wc -l <<< "$files")
mapfile -t missing < <(tr '\n' '\0' <<< "$files" | xargs -0 awk '
  FNR <= 4 && /SPDX-License-Identifier: Apache-2.0/ { spdx[FILENAME] = 1 }
  FNR <= 4 && /Copyright 2026 The nexar authors/ { copyright[FILENAME] = 1 }
  FNR == 4 { nextfile }
  END { for (i = 1; i < ARGC; i++) if (!(ARGV[i] in spdx && ARGV[i] in copyright)) print ARGV[i] }')
[ "$checked" -gt 100 ] || { echo "license_test: only $checked files found under $src" >&2; exit 1; }
if [ ${#missing[@]} -gt 0 ]; then
  echo "license_test: no SPDX-License-Identifier: Apache-2.0 and copyright line in the first 4 lines of:" >&2
  printf '  %s\n' "${missing[@]}" >&2
  exit 1
fi
echo "license_test: ok ($checked files)"
