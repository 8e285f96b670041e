#!/usr/bin/env bash
# man.sh LINKSCOPE VERSION OUT.1.gz: linkscope(1) from `linkscope --help`, with each command's own
# --help as a section of its own, through help2man (Debian's).
set -euo pipefail
exe=$1 version=$2 out=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
    echo "[COMMANDS]"
    for cmd in inspect summary link export dump check job predict whatif; do
        echo ".SS linkscope $cmd"
        echo ".nf"
        "$exe" "$cmd" --help 2>&1 | sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' || true
        echo ".fi"
    done
    echo "[SEE ALSO]"
    echo "The Python module: python3 -c 'import linkscope; help(linkscope)'. A sample pair: /usr/share/linkscope/samples."
} >"$work/include"
help2man --no-info --no-discard-stderr --version-string="$version" \
    --name="link GPU ops to the CPU ops that launched them in PyTorch traces" \
    --include="$work/include" "$exe" >"$work/linkscope.1"
gzip -9n <"$work/linkscope.1" >"$out"
