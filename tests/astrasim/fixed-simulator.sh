#!/usr/bin/env bash
# Makes an ASTRA-sim 518bd51 with the patches beside this script applied, from the build that
# ../shared/tools/astra-sim/build.sh made, and prints the folder to use as ASTRA_SIM_HOME with that
# folder's run.sh (which then replays with the fixed binary).
#
#   fixed-simulator.sh TOOLS_DIR DEST      TOOLS_DIR: the folder holding build.sh and run.sh
#
# Only the translation units the patches touch (and Sys.cc, the only other user of the patched
# class) are recompiled, with the flags of the original build, into a copy of libAstraSim.a; the
# binary is relinked with the original link line. About a minute; a finished DEST is reused. Two
# runs at once (two build folders' tests) wait for each other on DEST.lock instead of racing.
# Exits 77 (ctest's "skipped") when TOOLS_DIR has no build.sh: the replay tests then skip too.
#
# communicator-group-double-free.patch: a collective on a communicator group smaller than the
# world frees the system's shared CollectiveImpl when the simulator exits, once per group that ran
# that collective type on the rank, so a rank in two such groups (tensor- and data-parallel)
# double-frees it and the simulator aborts after every rank finished (docs/astra-sim-export.md).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ ! -f "$1/build.sh" ]; then echo "fixed-simulator.sh: no ASTRA-sim at $1 (build.sh): skipped" >&2; exit 77; fi
tools=$(cd "$1" && pwd); dest=$(realpath -m "$2")
mkdir -p "$(dirname "$dest")"
exec 9>"$dest.lock"
flock 9
patches=("$here"/*.patch)
stamp=$(cat "${patches[@]}" | sha256sum | cut -c1-16)
out=$dest/astra-sim-518bd51
outbin=$out/build/astra_analytical/build/bin/AstraSim_Analytical_Congestion_Unaware
if [ -x "$outbin" ] && [ "$(cat "$out/.linkscope-patches" 2>/dev/null)" = "$stamp" ]; then echo "$dest"; exit 0; fi

bin=$("$tools/build.sh" | tail -1)
build=$(cd "$(dirname "$bin")/.." && pwd)         # …/build/astra_analytical/build
src=$(cd "$build/../../.." && pwd)                # …/astra-sim-518bd51
flags=$build/AstraSim/CMakeFiles/AstraSim.dir/flags.make
link=$build/AstraSim_Analytical/CMakeFiles/AstraSim_Analytical_Congestion_Unaware.dir/link.txt
for f in "$flags" "$link" "$build/lib/libAstraSim.a"; do
  [ -f "$f" ] || { echo "fixed-simulator.sh: $f not found (not a build.sh build of 518bd51?)" >&2; exit 1; }
done
var() { sed -n "s/^$1 = //p" "$flags"; }

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tree"
cp -r "$src/astra-sim" "$work/tree/"
for p in "${patches[@]}"; do patch -s -d "$work/tree" -p1 <"$p"; done
units=$( (grep -h '^+++ ' "${patches[@]}" | sed 's|^+++ b/||; s|\s.*||' | grep '\.cc$'; echo astra-sim/system/Sys.cc) | sort -u)
cp "$build/lib/libAstraSim.a" "$work/libAstraSim.a"
for u in $units; do
  # shellcheck disable=SC2046 # the flags are word lists
  c++ $(var CXX_DEFINES) -I"$work/tree" $(var CXX_INCLUDES) $(var CXX_FLAGS) -c "$work/tree/$u" -o "$work/$(basename "$u").o"
  ar r "$work/libAstraSim.a" "$work/$(basename "$u").o"
done

mkdir -p "$(dirname "$outbin")"
line=$(sed "s| -o [^ ]*| -o $outbin.tmp|; s|\.\./lib/libAstraSim\.a|$work/libAstraSim.a|" "$link")
(cd "$build/AstraSim_Analytical" && eval "$line")
mv "$outbin.tmp" "$outbin"
ln -sfn "$src/examples" "$out/examples"
echo "$stamp" >"$out/.linkscope-patches"
echo "$dest"
