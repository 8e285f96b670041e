#!/usr/bin/env bash
# scripts/dev arm64: cross-builds core + CLI for arm64 (64-bit ARM Linux) on an x86-64 Debian 12
# machine and proves the build: the CLI's cases (scripts/cli-cases.sh) run under qemu-aarch64 and
# natively, and their outputs must be byte-identical.
#
#   scripts/cross-arm64.sh
#
# Everything goes into build-arm64/:
#   sysroot/        Debian's arm64 packages of the project's libraries and their runtime (debootstrap,
#                   kept between runs; delete it to fetch again)
#   build/          the cross build (cmake/toolchains/aarch64-linux-gnu.cmake), core + CLI only
#   native/         the native reference build, when build/ of the checkout is not configured
#   cases-native/   cli-cases.sh outputs of the native build
#   cases-arm64/    the same cases under qemu-aarch64
# Host packages (g++-aarch64-linux-gnu, qemu-user, debootstrap) are installed by scripts/dev.
# Exit status: 0 when every case ran and every output is identical, 1 otherwise.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
out=$root/build-arm64
sysroot=$out/sysroot

# The arm64 packages the build links against (and their dependencies, which debootstrap resolves):
# the -dev packages of scripts/dev's build list, plus the C and C++ runtime qemu-aarch64 loads.
sysroot_packages=(libsimdjson-dev libprotobuf-dev zlib1g-dev libdeflate-dev libssl-dev nlohmann-json3-dev
                  libc6-dev libstdc++6)

now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# The Debian mirror apt already uses (deb822 or one-line sources), and this system's release.
debian_mirror() {
    local uri
    uri=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    [ -n "$uri" ] || uri=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; ++i) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
                           /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
    echo "${uri:-http://deb.debian.org/debian}"
}
debian_suite() {
    local codename
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    echo "${codename:-bookworm}"
}

# make_sysroot: debootstrap's first stage for arm64 unpacks the base system and only downloads the
# --include packages; those are unpacked here with dpkg-deb. Absolute symbolic links (libz.so ->
# /lib/...) are made relative, so that the cross linker finds their targets inside the sysroot.
make_sysroot() {
    local suite mirror stamp
    suite=$(debian_suite)
    mirror=$(debian_mirror)
    stamp="$suite ${sysroot_packages[*]}"
    if [ -f "$sysroot/.linkscope-sysroot" ] && [ "$(cat "$sysroot/.linkscope-sysroot")" = "$stamp" ]; then
        echo "cross-arm64: sysroot cached in $sysroot"
        return 0
    fi
    echo "cross-arm64: making the arm64 sysroot ($suite from $mirror) in $sysroot"
    rm -rf "$sysroot"
    mkdir -p "$out"
    local include
    include=$(IFS=,; echo "${sysroot_packages[*]}")
    # debootstrap needs root (as apt-get in scripts/dev, through sudo otherwise); the sysroot is then
    # handed to the user who runs this, so that it can be unpacked into and deleted as any build.
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    if ! "${sudo[@]}" debootstrap --arch=arm64 --foreign --variant=minbase --include="$include" \
            "$suite" "$sysroot" "$mirror" >"$out/debootstrap.log" 2>&1; then
        tail -n 20 "$out/debootstrap.log" >&2
        echo "cross-arm64: debootstrap failed (full log: $out/debootstrap.log)" >&2
        exit 1
    fi
    ((${#sudo[@]} == 0)) || "${sudo[@]}" chown -R "$(id -u):$(id -g)" "$sysroot"
    local deb
    for deb in "$sysroot"/var/cache/apt/archives/*.deb; do
        dpkg-deb --fsys-tarfile "$deb" | tar -x --keep-directory-symlink -C "$sysroot"
    done
    local link target
    while IFS= read -r -d '' link; do
        target=$(readlink "$link")
        ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$sysroot$target")" "$link"
    done < <(find "$sysroot/usr" -type l -lname '/*' -print0)
    rm -f "$sysroot"/var/cache/apt/archives/*.deb
    [ -f "$sysroot/usr/include/simdjson.h" ] && [ -e "$sysroot/lib/ld-linux-aarch64.so.1" ] || {
        echo "cross-arm64: the sysroot lacks simdjson.h or the arm64 loader" >&2
        exit 1
    }
    echo "$stamp" >"$sysroot/.linkscope-sysroot"
}

ccache_options=()
if command -v ccache >/dev/null; then
    ccache_options=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
fi
core_cli_only=(-DLINKSCOPE_BUILD_GUI=OFF -DLINKSCOPE_BUILD_TESTS=OFF -DLINKSCOPE_BUILD_BENCH=OFF -DLINKSCOPE_PYTHON=OFF)

start=$(now)
make_sysroot
sysroot_done=$(now)

echo "cross-arm64: cross-building linkscope for arm64 in $out/build"
cmake -S "$root" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${ccache_options[@]}" \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/aarch64-linux-gnu.cmake" -DLINKSCOPE_SYSROOT="$sysroot" \
    -DProtobuf_PROTOC_EXECUTABLE=/usr/bin/protoc "${core_cli_only[@]}" >"$out/configure.log" ||
    { cat "$out/configure.log" >&2; exit 1; }
cmake --build "$out/build" -j "$jobs" --target linkscope
cross=$out/build/app/linkscope
file_type=$(file -b "$cross" 2>/dev/null || true)
case "$file_type" in
*aarch64*|*"ARM aarch64"*|"") ;;
*) echo "cross-arm64: $cross is not an arm64 executable: $file_type" >&2; exit 1 ;;
esac
cross_done=$(now)
qemu=(qemu-aarch64 -L "$sysroot")
"${qemu[@]}" "$cross" --version | sed 's/^/cross-arm64: under qemu-aarch64: /'

# The native reference: the checkout's usual build/ when it is configured (brought up to date),
# otherwise a core + CLI build of its own, so that build/ keeps the options scripts/dev gives it.
if [ -f "$root/build/CMakeCache.txt" ]; then
    native_dir=$root/build
else
    native_dir=$out/native
    cmake -S "$root" -B "$native_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${ccache_options[@]}" \
        "${core_cli_only[@]}" >"$out/configure-native.log" || { cat "$out/configure-native.log" >&2; exit 1; }
fi
echo "cross-arm64: native build in $native_dir"
cmake --build "$native_dir" -j "$jobs" --target linkscope
native=$native_dir/app/linkscope
native_done=$(now)

status=0
"$root/scripts/cli-cases.sh" "$out/cases-native" "$native" || { echo "cross-arm64: a native case failed" >&2; status=1; }
cases_native_done=$(now)
"$root/scripts/cli-cases.sh" "$out/cases-arm64" "$cross" "${qemu[@]}" ||
    { echo "cross-arm64: a case failed under qemu-aarch64" >&2; status=1; }
cases_arm64_done=$(now)

cases=$(wc -l <"$out/cases-native/status")
files=$(find "$out/cases-native" -type f | wc -l)
differing=$(diff -rq "$out/cases-native" "$out/cases-arm64" || true)
echo
echo "cross-arm64: $cases cases, $files output files compared (native: $native, arm64: $cross under qemu-aarch64)"
echo "  sysroot $(seconds "$start" "$sysroot_done") s, cross build $(seconds "$sysroot_done" "$cross_done") s," \
     "native build $(seconds "$cross_done" "$native_done") s"
echo "  cases native $(seconds "$native_done" "$cases_native_done") s, under qemu-aarch64" \
     "$(seconds "$cases_native_done" "$cases_arm64_done") s; total $(seconds "$start" "$cases_arm64_done") s"
if [ -n "$differing" ]; then
    echo "cross-arm64: outputs differ between the native and the arm64 build:" >&2
    echo "$differing" | sed 's/^/  /' >&2
    echo "  (diff -r $out/cases-native $out/cases-arm64)" >&2
    exit 1
fi
if ((status != 0)); then
    exit 1
fi
echo "  all $files output files identical"
