#!/bin/sh
# An out-of-tree module builds against each installed headers package:
# amd64 headers natively, then arm64 headers cross-compiled on amd64 with
# the amd64 linux-kbuild (Multi-Arch: foreign) running their host tools.
# Nothing is loaded: the modules are only inspected.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need_debs amd64 arm64
nf=$(flavours | wc -l)
plan $((1 + 2 * (1 + nf * 3)))
log=$BUILD_DIR/logs/debs-module.log

work_root module
in_root "dpkg --add-architecture arm64"
ok $? "scratch root, with arm64 as a foreign dpkg architecture"
: >"$log"

# build_all ARCH CROSS: install ARCH's headers, build hello for each.
build_all() {
	a=$1 cross=$2
	rm -rf "$root/tmp/debs"
	hs="$(deb "$kbuild_pkg" amd64)"
	for f in $(flavours); do hs="$hs $(deb "linux-headers-$(kr_of "$f")" "$a")"; done
	# shellcheck disable=SC2086
	put $hs
	in_root "dpkg -i /tmp/debs/*.deb" >>"$log" 2>&1
	ok $? "$a: dpkg -i headers of every flavour with the amd64 linux-kbuild"
	case $a in
	amd64) machine='Advanced Micro Devices X86-64' ;;
	arm64) machine=AArch64 ;;
	esac
	for f in $(flavours); do
		kr=$(kr_of "$f")
		m=/tmp/hello-$a-$f
		rm -rf "$root$m"
		cp -r "$top/tests/debs/hello" "$root$m"
		in_root "make -C /lib/modules/$kr/build M=$m ${cross:+ARCH=arm64 CROSS_COMPILE=$cross} modules" \
			>>"$log" 2>&1
		r=$?
		ok $r "$a/$f: hello.ko builds against linux-headers-$kr${cross:+ (cross, $cross)}"
		[ $r -eq 0 ] || tail -n 8 "$log" | sed 's/^/#   /'
		is "$(readelf -h "$root$m/hello.ko" 2>/dev/null | sed -n 's/^ *Machine: *//p')" \
			"$machine" "$a/$f: hello.ko is an $a module"
		vm=$(in_root "modinfo -F vermagic $m/hello.ko" 2>/dev/null)
		like "$vm" "^$kr " "$a/$f: its vermagic is '$kr ...'"
	done
}

build_all amd64 ""
# Same package names on both arches: the arm64 headers replace the amd64
# ones, as on a machine that cross-builds for arm64.
build_all arm64 aarch64-linux-gnu-
done_testing
