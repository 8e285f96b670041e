#!/usr/bin/env bash
# How large the code's rooms and functions are, for a before/after in a note (HACKING.md, "Size"):
# the ten largest files, the files over 800 lines and the functions over 100 lines (count and the
# longest ten) under core/, ui/, app/, tools/, bench/ and fuzz/ (tests apart), and which core
# folders each core folder includes. A function is a body whose '{' stands alone at column 0 or 4,
# as clang-format writes function bodies here; its length runs from its signature's first line to
# the closing brace at the same column. Prints figures, never fails.
#
#   scripts/source-metrics.sh [ROOT] [TOP]
set -euo pipefail
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
top=${2:-10}
cd "$root"
mapfile -t files < <(find core ui app tools bench fuzz \( -name '*.cpp' -o -name '*.h' \) -type f | sort)
((${#files[@]})) || { echo "source-metrics: no sources under $root" >&2; exit 0; }

echo "files: ${#files[@]}, lines: $(cat "${files[@]}" | wc -l)"
echo "largest $top files:"
wc -l "${files[@]}" | grep -v ' total$' | sort -rn | head -n "$top" | awk '{ printf "  %6d  %s\n", $1, $2 }'
echo "files over 800 lines: $(wc -l "${files[@]}" | grep -v ' total$' | awk '$1 > 800' | wc -l)"

awk '
function flush(   i, j, s, indent, len, name) {
    for (i = 1; i <= n; ++i) {
        if (line[i] !~ /^(    )?\{$/)
            continue
        indent = substr(line[i], 1, length(line[i]) - 1)
        s = i - 1
        while (s >= 1 && line[s] !~ /^[ \t]*$/ && line[s] !~ /[;{}][ \t]*$/ && line[s] !~ /^[ \t]*(\/\/|#)/)
            --s
        ++s
        for (j = i + 1; j <= n && line[j] != indent "}" && line[j] != indent "};"; ++j)
            ;
        if (j > n)
            continue
        len = j - s + 1
        name = line[s]
        gsub(/^[ \t]+/, "", name)
        if (length(name) > 90)
            name = substr(name, 1, 87) "..."
        printf "%d\t%s:%d\t%s\n", len, file, s, name
    }
}
FNR == 1 { if (NR > 1) flush(); n = 0; file = FILENAME }
{ line[++n] = $0 }
END { flush() }
' "${files[@]}" | sort -rn >"${TMPDIR:-/tmp}/source-metrics.$$"
long=$(awk -F'\t' '$1 > 100' "${TMPDIR:-/tmp}/source-metrics.$$" | wc -l)
echo "functions over 100 lines: $long; the longest $top:"
head -n "$top" "${TMPDIR:-/tmp}/source-metrics.$$" | awk -F'\t' '{ printf "  %4d  %s  %s\n", $1, $2, $3 }'
rm -f "${TMPDIR:-/tmp}/source-metrics.$$"

# Which core folders each core folder includes (test_layering enforces the order; this shows it).
echo "core folders and the core folders they include:"
for dir in core/*/; do
    folder=$(basename "$dir")
    used=$( (grep -ho '^#include "[a-z]*/' "$dir"*.h "$dir"*.cpp 2>/dev/null || true) | sed 's|#include "||; s|/$||' |
        sort -u | while read -r other; do
            if [ "$other" != "$folder" ] && [ -d "core/$other" ]; then echo "$other"; fi
        done | tr '\n' ' ')
    printf '  %-10s <- %s\n' "$folder" "${used:-(none)}"
done
