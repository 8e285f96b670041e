#!/usr/bin/env bash
# The class budget (HACKING.md, "Size"), beside the file budget of scripts/source-budget.sh: no class
# or struct under core/, ui/ or app/ has more than 20 public methods or more than 16 data members,
# except the classes named in scripts/class-budget-ceilings.txt, each held to the counts it has
# today so that it can only shrink. A listed class whose counts drop must have its line lowered (or
# dropped once it is within the budget) in the same change: the ceiling follows it down.
#
# What counts, as universal-ctags reads the declarations (Debian's universal-ctags; its QtMoc
# parser tells signals and slots apart from access sections):
#   public methods  member functions declared public in the class body, signals and public slots
#                   included; constructors, destructors and deleted functions not; every overload counts
#   data members    non-static data members of any access
# A class is named by its file and its qualified name ({anon} for an anonymous namespace). Run by
# ctest (test_class_budget, test_class_budget_selftest) and `scripts/dev budget`, usable alone:
#
#   scripts/class-budget.sh [ROOT]        check ROOT (default: this checkout)
#   scripts/class-budget.sh --list [ROOT] every class with its counts, the largest first
#   scripts/class-budget.sh --self-test   the check itself, on deliberately fat classes in a temp dir
#
# Exit status 77 (ctest: skipped) when ctags is not universal-ctags.
set -euo pipefail
max_methods=20
max_members=16
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

mode=check
case "${1:-}" in
--list) mode=list; shift ;;
--self-test) mode=self-test; shift ;;
esac
root=${1:-$(cd "$here/.." && pwd)}

if ! ctags --version 2>/dev/null | grep -q "Universal Ctags"; then
    echo "class budget: universal-ctags is not installed (apt-get install universal-ctags; scripts/dev budget installs it)" >&2
    exit 77
fi

# "file<TAB>class<TAB>kind<TAB>public methods<TAB>data members", one line per class or struct.
class_counts() {
    (cd "$1" && find core ui app \( -name '*.h' -o -name '*.cpp' \) 2>/dev/null | LC_ALL=C sort |
        ctags -L - --languages=C++,QtMoc --langmap=C++:+.h --kinds-C++=+p --fields=+aKsE --fields-C++=+'{properties}' \
            -x --_xformat='%{language}	%K	%N	%s	%a	%F	%{C++.properties}') |
        awk -F'\t' '
        $1 != "C++" { next }
        { scope = $4; gsub(/__anon[0-9a-f]+/, "{anon}", scope) }
        $2 == "class" || $2 == "struct" {
            key = $6 "\t" (scope == "" ? $3 : scope "::" $3); kind[key] = $2; next
        }
        scope == "" { next }
        ($2 == "function" || $2 == "prototype") && $5 == "public" {
            n = split(scope, part, "::")
            if ($3 == part[n] || $3 ~ /^~/ || $7 ~ /(^|,)delete(,|$)/) next
            methods[$6 "\t" scope]++; next
        }
        $2 == "member" && $7 !~ /(^|,)static(,|$)/ { members[$6 "\t" scope]++ }
        END { for (k in kind) printf "%s\t%s\t%d\t%d\n", k, kind[k], methods[k] + 0, members[k] + 0 }' |
        LC_ALL=C sort
}

check() {
    local root=$1 ceilings=$1/scripts/class-budget-ceilings.txt
    declare -A ceiling=()
    local path cls m d
    if [ -f "$ceilings" ]; then
        while read -r path cls m d; do
            [[ -z ${path:-} || $path == \#* ]] && continue
            ceiling["$path $cls"]="$m $d"
        done <"$ceilings"
    fi
    local status=0 seen=() kind cm cd
    while IFS=$'\t' read -r path cls kind m d; do
        local key="$path $cls"
        if [ -n "${ceiling[$key]:-}" ]; then
            seen+=("$key")
            read -r cm cd <<<"${ceiling[$key]}"
            if ((m > cm || d > cd)); then
                echo "$path: $kind $cls has $m public methods and $d data members, over its ceiling of $cm and $cd" \
                    "(scripts/class-budget-ceilings.txt; it may only shrink: move a responsibility out)" >&2
                status=1
            elif ((m <= max_methods && d <= max_members)); then
                echo "$path: $kind $cls is within the budget now ($m public methods, $d data members): drop its line" \
                    "from scripts/class-budget-ceilings.txt" >&2
                status=1
            elif ((m < cm || d < cd)); then
                echo "$path: $kind $cls shrank to $m public methods and $d data members (ceiling $cm and $cd): lower its" \
                    "line in scripts/class-budget-ceilings.txt to \"$path $cls $m $d\"" >&2
                status=1
            fi
        elif ((m > max_methods || d > max_members)); then
            echo "$path: $kind $cls has $m public methods and $d data members, over the budget of $max_methods public" \
                "methods and $max_members data members (split it by responsibility)" >&2
            status=1
        fi
    done < <(class_counts "$root")
    local listed s found
    for listed in "${!ceiling[@]}"; do
        found=0
        for s in "${seen[@]}"; do [ "$s" = "$listed" ] && found=1 && break; done
        if ((found == 0)); then
            echo "${listed% *}: no class ${listed#* } there (named in scripts/class-budget-ceilings.txt): move or drop its line" >&2
            status=1
        fi
    done
    ((status == 0)) && echo "class budget: every class within $max_methods public methods and $max_members data members, or its ceiling"
    return $status
}

self_test() {
    local dir failed=0
    dir=$(mktemp -d /tmp/class-budget-selftest.XXXXXX)
    trap 'rm -rf "$dir"' RETURN
    mkdir -p "$dir/core" "$dir/ui" "$dir/app" "$dir/scripts"
    # At the budget exactly: 20 public methods (two of them signals, one a public slot, two overloads),
    # 16 data members of all accesses. Not counted: the constructor, the destructor, a deleted
    # operator, private and protected methods, private slots, static data.
    {
        echo 'namespace demo {'
        echo 'class Lean : public QObject {'
        echo '    Q_OBJECT'
        echo 'public:'
        echo '    Lean();'
        echo '    ~Lean() override;'
        echo '    Lean &operator=(const Lean &) = delete;'
        for i in $(seq 1 15); do echo "    int get$i() const;"; done
        echo '    void set(int v);'
        echo '    void set(double v) { (void)v; }'
        echo '    int pub1 = 0, pub2 = 0;'
        echo 'public slots:'
        echo '    void refresh();'
        echo 'signals:'
        echo '    void changed();'
        echo '    void moved(int by);'
        echo 'protected:'
        echo '    void paint();'
        echo 'private slots:'
        echo '    void onTimer();'
        echo 'private:'
        echo '    void helper();'
        echo '    static constexpr int kLimit = 3;'
        for i in $(seq 1 14); do echo "    int m_v$i = 0;"; done
        echo '};'
        echo '} // namespace demo'
    } >"$dir/ui/lean.h"
    # Over it on both counts, in an anonymous namespace of a .cpp file.
    {
        echo 'namespace demo { namespace {'
        echo 'struct Fat {'
        for i in $(seq 1 21); do echo "    int f$i() const { return $i; }"; done
        for i in $(seq 1 17); do echo "    int d$i = 0;"; done
        echo '};'
        echo '} }'
    } >"$dir/core/fat.cpp"
    expect() { # expect STATUS PATTERN [ceilings line]: run the check, compare status and message
        local want=$1 pattern=$2 out status=0
        printf '%s\n' "${3:-}" >"$dir/scripts/class-budget-ceilings.txt"
        out=$(check "$dir" 2>&1) || status=$?
        if [ "$status" != "$want" ] || ! grep -qE -- "$pattern" <<<"$out"; then
            echo "class budget self-test: expected status $want and /$pattern/ with ceilings '${3:-}', got $status:" >&2
            echo "$out" >&2
            failed=1
        fi
    }
    expect 1 'core/fat.cpp: struct demo::\{anon\}::Fat has 21 public methods and 17 data members, over the budget of 20 public methods and 16 data members'
    expect 0 'class budget: every class within' 'core/fat.cpp demo::{anon}::Fat 21 17'
    expect 1 'Fat has 21 public methods and 17 data members, over its ceiling of 20 and 17' 'core/fat.cpp demo::{anon}::Fat 20 17'
    expect 1 'Fat shrank to 21 public methods and 17 data members \(ceiling 22 and 17\): lower its line .* to "core/fat.cpp demo::\{anon\}::Fat 21 17"' \
        'core/fat.cpp demo::{anon}::Fat 22 17'
    expect 1 'core/gone.h: no class demo::Gone there' "core/fat.cpp demo::{anon}::Fat 21 17
core/gone.h demo::Gone 30 30"
    if grep -q Lean <<<"$(check "$dir" 2>&1)"; then
        echo "class budget self-test: demo::Lean (20 public methods, 16 data members) was reported" >&2
        failed=1
    fi
    # One more public method puts Lean over.
    sed -i 's/^    void refresh();/    void refresh();\n    void reload();/' "$dir/ui/lean.h"
    expect 1 'ui/lean.h: class demo::Lean has 21 public methods and 16 data members, over the budget' \
        'core/fat.cpp demo::{anon}::Fat 21 17'
    ((failed == 0)) && echo "class budget self-test: fat classes reported with file, counts and budget; ceilings hold; the lean class passes"
    return $failed
}

case $mode in
check) check "$root" ;;
list) class_counts "$root" | sort -t$'\t' -k4,4nr -k5,5nr ;;
self-test) self_test ;;
esac
