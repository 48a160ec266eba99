#!/bin/sh
# The built packages hold what their names promise: each image the
# kernel, config and modules of its uname -r, with its flavour's SAC
# choice; the headers link their host programs into the arch's kbuild.
# Bad input to the tooling gets one clear error.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
arches=${ARCHES:-amd64 arm64}
need_debs $arches
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nf=$(flavours | wc -l)
na=$(echo $arches | wc -w)
plan $((na * (nf * 8 + 4) + 3 + na))

# elf_machine FILE: the ELF machine field as readelf names it.
elf_machine() {
	readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p'
}

for a in $arches; do
	case $a in
	amd64) magic_at=514 magic=HdrS machine='Advanced Micro Devices X86-64' ;;
	arm64) magic_at=56 magic=ARMd machine=AArch64 ;;
	esac
	for f in $(flavours); do
		kr=$(kr_of "$f")
		d=$(deb "linux-image-$kr" "$a")
		[ -n "$d" ]
		ok $? "$a/$f: linux-image-$kr built"
		x=$tmp/$a-$f
		dpkg-deb -x "$d" "$x" 2>/dev/null
		is "$(dpkg-deb -f "$d" Architecture 2>/dev/null)" "$a" \
			"$a/$f: the image is Architecture: $a"
		is "$(dd if="$x/boot/vmlinuz-$kr" bs=1 skip=$magic_at count=4 2>/dev/null)" \
			"$magic" "$a/$f: /boot/vmlinuz-$kr is an $a kernel image"
		[ -s "$x/boot/System.map-$kr" ] && [ -s "$x/boot/config-$kr" ]
		ok $? "$a/$f: /boot/System.map-$kr and /boot/config-$kr"
		# The farm configs may build no module at all: then the
		# directory has its (empty) modules.order and modules.builtin.
		nko=$(find "$x/lib/modules/$kr" -name '*.ko' 2>/dev/null | wc -l)
		[ -s "$x/lib/modules/$kr/modules.builtin" ] &&
			[ "$(ls "$x/lib/modules")" = "$kr" ] &&
			[ "$nko" -eq "$(wc -l <"$x/lib/modules/$kr/modules.order")" ]
		ok $? "$a/$f: /lib/modules/$kr/ (only), its $nko modules all in modules.order"
		has_sac_lines "$f" "$x/boot/config-$kr"
		ok $? "$a/$f: /boot/config-$kr has $(sac_shown "$f")"
		h=$(deb "linux-headers-$kr" "$a")
		hx=$tmp/$a-$f-h
		dpkg-deb -x "$h" "$hx" 2>/dev/null
		[ -s "$hx/usr/src/linux-headers-$kr/Module.symvers" ] &&
			has_sac_lines "$f" "$hx/usr/src/linux-headers-$kr/.config" &&
			[ "$(readlink "$hx/lib/modules/$kr/build")" = \
				"/usr/src/linux-headers-$kr" ]
		ok $? "$a/$f: headers: .config, Module.symvers, /lib/modules/$kr/build"
		is "$(readlink "$hx/usr/src/linux-headers-$kr/scripts/basic/fixdep")" \
			"../../../../lib/$kbuild_pkg/scripts/basic/fixdep" \
			"$a/$f: headers' fixdep links into linux-kbuild"
	done
	k=$(deb "$kbuild_pkg" "$a")
	kx=$tmp/$a-kbuild
	dpkg-deb -x "$k" "$kx" 2>/dev/null
	lib=$kx/usr/lib/$kbuild_pkg
	is "$(elf_machine "$lib/scripts/basic/fixdep")" "$machine" \
		"$a: kbuild's fixdep is built for $a"
	is "$(elf_machine "$lib/scripts/mod/modpost")" "$machine" \
		"$a: kbuild's modpost is built for $a"
	is "$(dpkg-deb -f "$k" Multi-Arch)" foreign "$a: kbuild is Multi-Arch: foreign"
	out=$("$top/scripts/make-debs" verify "$debs/$a"/*.deb 2>&1)
	ok $? "$a: make-debs verify accepts every package"
	[ $? -eq 0 ] || printf '# %s\n' "$out"
done

# Bad input: a truncated package, a package that is not ours, a file that
# is no package at all. One line each, naming the file.
one_error() {
	err=$("$top/scripts/make-debs" verify "$1" 2>&1 >/dev/null)
	rc=$?
	[ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
		printf '%s' "$err" | grep -q "$2"
	ok $? "$3 (rc=$rc): $err"
}
a=${arches%% *}
img=$(deb "linux-image-$(kr_of "$(flavours | head -n1)")" "$a")
head -c $(($(stat -c %s "$img") / 2)) "$img" >"$tmp/corrupt.deb"
one_error "$tmp/corrupt.deb" "corrupt.deb: not a valid .deb" "a truncated .deb"
mkdir -p "$tmp/foreign/DEBIAN"
printf 'Package: foreign\nVersion: 1\nArchitecture: all\nMaintainer: x <x@example.org>\nDescription: not ours\n' \
	>"$tmp/foreign/DEBIAN/control"
dpkg-deb -b --root-owner-group "$tmp/foreign" "$tmp/foreign.deb" >/dev/null
one_error "$tmp/foreign.deb" "foreign.deb: not a package of ours" "a package of another source"
cp "$top/debian/changelog" "$tmp/changelog.deb"
one_error "$tmp/changelog.deb" "changelog.deb: not a valid .deb" "a text file named .deb"

# SOURCE_DATE_EPOCH: make-debs keeps the previous build's listing of
# every package (names, versions, files) when it was made from the same
# kernels (listing.key); a rebuild must match it.
for a in $arches; do
	[ -f "$debs/$a/listing.prev" ] || {
		ok 0 "# SKIP $a: no previous build to compare with"
		continue
	}
	cmp -s "$debs/$a/listing.prev" "$debs/$a/listing.txt"
	ok $? "$a: a rebuild gives the same packages, versions and file lists"
done
done_testing
