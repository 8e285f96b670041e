#!/usr/bin/env bash
# package.sh BUILD_DIR: the Debian package, and a clean Debian 12 root that installs it.
#
#   1. cpack -G DEB in BUILD_DIR (built by scripts/dev package): stripped binaries, the Python module,
#      the man page, desktop file, MIME type, metainfo, icon and the sample pair.
#   2. debootstrap --variant=minbase of this system's release from the mirror apt already uses, into
#      build-package/clean-root (deleted at the end, whatever happens).
#   3. apt installs the .deb in a chroot there (apt resolves its dependencies from Debian), then runs
#      linkscope --version, linkscope link on the bundled sample, the GUI offscreen with --screenshot
#      and python3 -c 'import linkscope' opening the sample.
# Prints each stage's wall time and the package's size; fails when a check fails or the .deb is over
# 15 MB.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(realpath "${1:-$root/build-package}")
out=$build
chroot_dir=$out/clean-root
max_bytes=$((15 * 1024 * 1024))

now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
t_start=$(now)

# The Debian mirror apt already uses (deb822 or one-line sources), and this system's release.
debian_mirror() {
    local uri
    uri=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    [ -n "$uri" ] || uri=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; ++i) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
                           /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
    echo "${uri:-http://deb.debian.org/debian}"
}
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
mirror=$(debian_mirror)

mounted=()
cleanup() {
    for ((i = ${#mounted[@]} - 1; i >= 0; --i)); do
        umount -l "${mounted[i]}" 2>/dev/null || true
    done
    rm -rf "$chroot_dir"
}
trap cleanup EXIT

# 1. The package.
mkdir -p "$out"
rm -f "$out"/linkscope_*.deb
(cd "$build" && cpack -G DEB >"$out/cpack.log" 2>&1) || { tail -n 30 "$out/cpack.log" >&2; exit 1; }
rm -rf "$out/_CPack_Packages"
deb=$(ls "$out"/linkscope_*.deb)
bytes=$(stat -c %s "$deb")
t_deb=$(now)
echo "package: $(basename "$deb"): $((bytes / 1024)) KiB ($(seconds "$t_start" "$t_deb") s)"
dpkg-deb --field "$deb" Package Version Installed-Size Depends Recommends
if dpkg-deb -c "$deb" | awk '{print $6}' | grep -q '\.debug$'; then
    echo "package: debug files in the package" >&2
    exit 1
fi
unpacked=$out/unpacked
rm -rf "$unpacked" && mkdir -p "$unpacked"
dpkg-deb -x "$deb" "$unpacked"
unstripped=$(find "$unpacked" -type f \( -name linkscope -o -name linkscope-gui -o -name '_linkscope*.so' \) -exec file {} + |
             grep -c 'with debug_info' || true)
rm -rf "$unpacked"
if [ "$unstripped" != 0 ]; then
    echo "package: $unstripped binaries keep their debug info" >&2
    exit 1
fi
if ((bytes > max_bytes)); then
    echo "package: $bytes bytes, over the 15 MB budget" >&2
    exit 1
fi

# 2. A clean Debian root.
rm -rf "$chroot_dir"
echo "package: debootstrap $suite from $mirror into $chroot_dir"
if ! debootstrap --variant=minbase "$suite" "$chroot_dir" "$mirror" >"$out/debootstrap.log" 2>&1; then
    tail -n 20 "$out/debootstrap.log" >&2
    exit 1
fi
t_root=$(now)
echo "package: clean root made ($(seconds "$t_deb" "$t_root") s)"
for m in proc dev; do
    mount --bind "/$m" "$chroot_dir/$m"
    mounted+=("$chroot_dir/$m")
done
cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf" 2>/dev/null || true
# The same sources as this system (the release, its updates and security).
if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
    cp /etc/apt/sources.list.d/*.sources "$chroot_dir/etc/apt/sources.list.d/"
    rm -f "$chroot_dir/etc/apt/sources.list"
fi
cp "$deb" "$chroot_dir/tmp/"
in_root() { chroot "$chroot_dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

# 3. apt installs it and its dependencies; then the checks, as a user would run them.
in_root apt-get update -qq >"$out/apt.log" 2>&1
if ! in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "/tmp/$(basename "$deb")" \
        >>"$out/apt.log" 2>&1; then
    tail -n 30 "$out/apt.log" >&2
    exit 1
fi
t_install=$(now)
echo "package: apt installed it with $(grep -c '^Setting up' "$out/apt.log") packages ($(seconds "$t_root" "$t_install") s)"

samples=/usr/share/linkscope/samples
in_root linkscope --version
in_root linkscope link --host $samples/sample_host_et.json --device $samples/sample_kineto.json | sed -n '1,3p;/^GPU ops/p'
in_root env QT_QPA_PLATFORM=offscreen linkscope $samples/sample_host_et.json $samples/sample_kineto.json \
    --screenshot /tmp/screenshot.png --size 1200x800 2>"$out/gui.log" || { cat "$out/gui.log" >&2; exit 1; }
[ -s "$chroot_dir/tmp/screenshot.png" ] || { echo "package: no screenshot" >&2; exit 1; }
echo "package: GUI screenshot $(stat -c %s "$chroot_dir/tmp/screenshot.png") bytes"
in_root python3 -c "
import linkscope
p = linkscope.open('$samples/sample_host_et.json', '$samples/sample_kineto.json', sidecar='/tmp/sample.linkscope.json')
links = p.links()
print('python:', linkscope.__version__, linkscope.__file__)
print('python:', len(links), 'links,', int(links.parent_event.notna().sum()), 'linked,', len(p.findings()), 'findings')
"
in_root test -f /usr/share/man/man1/linkscope.1.gz || { echo "package: no man page" >&2; exit 1; }
t_end=$(now)
echo "package: checks passed ($(seconds "$t_install" "$t_end") s); clean-root install and checks $(seconds "$t_deb" "$t_end") s, all $(seconds "$t_start" "$t_end") s"
