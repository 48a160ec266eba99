#!/bin/sh
# A .deb the farm cannot boot is refused before any cell, in one line
# with exit 2: one dpkg-deb cannot read (cut short), one of an arch the
# farm has no machine for, one whose package arch is not its kernel's.
# A cell needs the package's arch to pick its machines, so these are the
# run's errors; a .deb that dpkg-deb reads but dpkg will not install is
# that cell's infra-error (tests/installed/installed.t). Read through
# farm lava render, which boots nothing.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
render_test deb-input
plan 9

# fake_deb NAME ARCH CONFIG_LINE...: $tmp/NAME.deb, a linux-image
# package of ARCH with an empty image and those lines as its config
fake_deb() {
	_n=$1 _r=6.1.0-$tag-$1 _a=$2 _root=$tmp/$1
	mkdir -p "$_root/DEBIAN" "$_root/boot" "$_root/lib/modules/$_r"
	printf 'Package: linux-image-%s\nVersion: 1\nArchitecture: %s\nMaintainer: x <x@example.org>\nDescription: a test\n' \
		"$_r" "$_a" >"$_root/DEBIAN/control"
	: >"$_root/boot/vmlinuz-$_r"
	shift 2
	printf '%s\n' "$@" >"$_root/boot/config-$_r"
	dpkg-deb -b --root-owner-group "$_root" "$tmp/$_n.deb" >/dev/null
}

# refused NAME PATTERN WHAT: the run refuses $tmp/NAME.deb in one line
# matching PATTERN, exit 2, writing no result
refused() {
	out=$("$top/farm/farm" lava render --kernel "$tmp/$1.deb" --machine x86-intel \
		--workload boot --out "$tmp/r-$1" 2>&1)
	rc=$?
	is "$rc" 2 "$3: exit 2"
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s' "$out" | grep -Eq "$2"
	ok $? "$3: one line, naming it ($out)"
	[ ! -e "$tmp/r-$1" ] && ! ls -d "$BUILD_DIR/farm-cache/deb/"*.tmp* >/dev/null 2>&1
	ok $? "$3: no result and no half-unpacked package left"
}

fake_deb whole amd64 CONFIG_X86_64=y CONFIG_PCI=y
head -c $(($(stat -c %s "$tmp/whole.deb") / 2)) "$tmp/whole.deb" >"$tmp/cut.deb"
refused cut "cut\.deb: not a readable Debian package" "a .deb cut short"
fake_deb armhf armhf CONFIG_ARM=y
refused armhf "architecture armhf is not one the farm boots" "an armhf package"
fake_deb liar arm64 CONFIG_X86_64=y CONFIG_PCI=y
refused liar "liar\.deb: package says arm64 but its config is amd64" \
	"an arm64 package holding an x86_64 kernel"
done_testing
