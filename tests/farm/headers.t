#!/bin/sh
# A kernel .deb without what the farm needs to build its module: the
# edu workloads are skipped with the reason naming the missing package
# (linux-headers, then linux-kbuild), never failed; a corrupt headers .deb
# stops the run with one error line naming it. The same for an installed
# kernel (ROOT/boot/vmlinuz-*) without its headers installed, and for an
# image that is not in a boot/ directory. No guest boots: every job here
# is a skip, or the run stops before the matrix.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/debs/lib.sh
. "$(dirname "$0")/../debs/lib.sh"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
need_debs amd64
kr=$(kr_of desktop)
image=$(deb "linux-image-$kr" amd64)
headers=$(deb "linux-headers-$kr" amd64)
kbuild=$(deb "$kbuild_pkg" amd64)
[ -n "$image" ] && [ -n "$headers" ] ||
	skip_all "no desktop image and headers in $debs/amd64 (make debs ARCH=amd64)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Only what each case puts there: no out/farm-debs/<series>/<arch>/ siblings.
d=$tmp/debs
mkdir "$d"
cp "$image" "$d/"
k=$d/${image##*/}
plan 15

# run NAME [KERNEL]: the farm on the copied image (or KERNEL), edu-lying
# on x86-intel
run() {
	"$top/farm/farm" run --kernel "${2:-$k}" --machine x86-intel --workload edu-lying \
		--out "$tmp/$1" >"$tmp/$1.out" 2>"$tmp/$1.err"
}

# skipped NAME PACKAGE [KERNEL [NAME]]: the one job is a skip whose
# reason names PACKAGE
skipped() {
	run "$1" "${3:-}"
	is $? 1 "$1: the run fails: the policy expects no skip"
	res=$tmp/$1/latest/results.json
	is "$(jq -r '.records[0].outcome' "$res")" skip "$1: edu-lying is a skip"
	like "$(jq -r '.records[0].reason' "$res")" "^no sac_edu\.ko for ${4:-linux-image-$kr}: no $2" \
		"$1: the reason names $2"
}

skipped no-headers "linux-headers-${kr}_${version}_amd64\.deb"
cp "$headers" "$d/"
skipped no-kbuild "${kbuild_pkg}_${version}_amd64\.deb"

# refused NAME PATTERN [KERNEL]: exit 2 and one stderr line matching PATTERN
refused() {
	run "$1" "${3:-}"
	is "$?" 2 "$1: the run stops (exit 2)"
	is "$(wc -l <"$tmp/$1.err") $(grep -cE "$2" "$tmp/$1.err")" "1 1" \
		"$1: with one error line: $(head -n 1 "$tmp/$1.err")"
}

cp "$kbuild" "$d/"
h=$d/${headers##*/}
size=$(stat -c %s "$headers")
head -c $((size - 4096)) "$headers" >"$h"
refused truncated "^farm: error: $h: dpkg-deb -x failed"
echo "not a package" >"$h"
refused garbage "^farm: error: headers $h: not a readable Debian package"

# The image as dpkg installs it, in a root of its own, without headers.
inst=$tmp/root
dpkg-deb -x "$image" "$inst" && /sbin/depmod -b "$inst" "$kr"
skipped installed-no-headers "$inst/usr/src/linux-headers-$kr" \
	"$inst/boot/vmlinuz-$kr" "installed-$kr"
mkdir "$tmp/elsewhere"
cp "$inst/boot/vmlinuz-$kr" "$tmp/elsewhere/"
refused not-in-boot "^farm: error: kernel .*: an installed kernel is ROOT/boot/vmlinuz-RELEASE" \
	"$tmp/elsewhere/vmlinuz-$kr"
done_testing
