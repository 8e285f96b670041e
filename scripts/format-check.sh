#!/usr/bin/env bash
# The code style (.clang-format, HACKING.md "Conventions"): every C++ file under core/, ui/, app/, python/,
# tools/, bench/, fuzz/ and tests/ is as clang-format 14 (Debian 12's) writes it. Other clang-format
# versions format some constructs differently, so the check runs only with 14 and is skipped (exit 77)
# without it. Run by ctest (test_format) and by .ci/run through `scripts/dev format`:
#
#   scripts/format-check.sh [ROOT]          check; names each file that differs
#   scripts/format-check.sh --fix [ROOT]    rewrite the files in place
set -euo pipefail
fix=0
if [ "${1:-}" = --fix ]; then fix=1; shift; fi
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cf=${CLANG_FORMAT:-clang-format-14}
if ! command -v "$cf" >/dev/null; then
    echo "format check skipped: $cf is not installed (apt-get install clang-format-14)"
    exit 77
fi
cd "$root"
mapfile -d '' files < <(find core ui app python tools bench fuzz tests \( -name '*.cpp' -o -name '*.h' \) -print0 | sort -z)
if ((fix)); then
    printf '%s\0' "${files[@]}" | xargs -0 -n 50 "$cf" -i --style=file
    echo "formatted ${#files[@]} files"
    exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! printf '%s\0' "${files[@]}" | xargs -0 -n 100 "$cf" --style=file --dry-run -Werror 2>"$log"; then
    grep -o '^[^:]*:[0-9]*:[0-9]*: error' "$log" | cut -d: -f1 | sort -u \
        | sed 's/$/: not formatted (scripts\/format-check.sh --fix, or clang-format-14 -i FILE)/' >&2
    exit 1
fi
echo "format: ${#files[@]} files as clang-format 14 writes them"
