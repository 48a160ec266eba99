#!/bin/sh
# scripts/export-debian-linux: what it writes, its one-line refusals of
# bad input, and the proof on Debian's own linux source package: fetched
# with apt-get source through a private apt state under $BUILD_DIR
# (cached there), unpacked with dpkg-source, the export applied with zero
# fuzz, Debian's debian/rules debian/control run on it, then one of our
# flavours set up per arch by Debian's rules and dma-iommu.o compiled in
# its build dir (arm64 crossed), the flavour's choice in its config.
# Needs the network the first time (about 140 MB); about 4 minutes here.
# DEBIAN_LINUX_VERSION picks the version (default 6.1.176-1: the newest
# this machine's mirror serves; its 6.1.192 sources are not there).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/flavours.sh"
exp=$top/scripts/export-debian-linux
version=${DEBIAN_LINUX_VERSION:-6.1.176-1}
work=$BUILD_DIR/export
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
series=$(grep -v '^#' "$top/patches/$SERIES/series")
flavours=$(flavours)
nf=$(echo "$flavours" | wc -l)
plan $((2 + 2 * nf * 2 + 6 + 8 + 2 * 4 + 1))
t0=$(date +%s)
# dflav ARCH FRAGMENT: the Debian flavour the export makes of FRAGMENT.
dflav() {
	echo "$(sed -n 's/^CONFIG_LOCALVERSION="-\(.*\)"$/\1/p' "$top/config-fragments/$2.config")-$1"
}
elapsed() {
	echo "# $1: $(($(date +%s) - t0)) s so far"
}

# one_line_error WHAT PATTERN CMD...: CMD fails, saying one line that
# matches PATTERN.
one_line_error() {
	what=$1 pat=$2
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	[ $rc -ne 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
		printf '%s\n' "$out" | grep -Eq -- "$pat"
	ok $? "$what: one line, exit $rc"
	printf '%s\n' "$out" | sed 's/^/#   /'
}

# unsigned: stdin less trailing blank lines and a final "-- " + version.
unsigned() {
	awk '{ l[NR] = $0 } END {
		n = NR
		while (n > 0 && l[n] == "") n--
		if (n > 1 && l[n - 1] == "-- ") n -= 2
		for (i = 1; i <= n; i++) print l[i] }'
}

# --- the export itself
"$exp" "$t/out" >"$t/err" 2>&1
ok $? "export into a new OUTDIR: $(tail -n 1 "$t/err")"
d=$t/out/debian
bad=
for p in $series; do
	f=$d/patches/features/all/sac/$p
	for h in '^From: ' '^Subject: [^[]' '^Origin: vendor, ' '^Forwarded: no$' \
		'^Last-Update: [0-9]{4}-[0-9]{2}-[0-9]{2}$'; do
		sed '/^$/q' "$f" | grep -Eq "$h" || bad="$bad $p:$h"
	done
	# the message and the diff as they were, less git's signature
	[ "$(sed '1,/^$/d' "$f")" = "$(sed '1,/^$/d' "$top/patches/$SERIES/$p" | unsigned)" ] ||
		bad="$bad $p:body"
done
want=$(for p in $series; do echo "features/all/sac/$p"; done)
[ -z "$bad" ] && [ "$(grep -v '^#' "$d/patches/series.sac" | grep .)" = "$want" ]
ok $? "DEP-3 headers, message and diff kept, series lines in order (bad:${bad:- none})"
for a in amd64 arm64; do
	for f in $flavours; do
		df=$(dflav "$a" "$f")
		c=$d/config/$a/config.$df
		[ "$(grep -v '^#' "$c"; grep '^# CONFIG' "$c")" = "$(sac_lines "$f")" ]
		ok $? "$a: config.$df sets only $(sac_shown "$f") (the release name is Debian's)"
		grep -qx "\[${df}_description\]" "$d/config/$a/defines.sac" &&
			grep -qx " $df" "$d/config/$a/none/defines.sac"
		ok $? "$a: $df described in defines.sac, listed in none/defines.sac"
	done
done

# --- refusals, each one line
one_line_error "no arguments" usage "$exp"
one_line_error "--apply on a missing tree" "no such directory" "$exp" --apply "$t/nowhere"
# fake NAME VERSION: a small tree shaped as dpkg-source -x leaves one,
# its Debian patch applied, and the files our series touches holding
# something else.
fake() {
	f=$t/$1
	mkdir -p "$f/debian/patches" "$f/.pc" "$f/debian/config/amd64/none" "$f/debian/config/arm64/none"
	printf 'linux (%s) bookworm; urgency=medium\n\n  * Fake.\n\n -- A <a@example.org>  Mon, 01 Jan 2024 00:00:00 +0000\n' \
		"$2" >"$f/debian/changelog"
	echo debian/x.patch >"$f/debian/patches/series"
	echo debian/x.patch >"$f/.pc/applied-patches"
	: >"$f/debian/config/defines"
	for a in amd64 arm64; do
		printf '[base]\nflavours:\n %s\n' $a >"$f/debian/config/$a/none/defines"
	done
	for p in $series; do sed -n 's|^--- a/||p' "$top/patches/$SERIES/$p"; done | sort -u |
		while read -r s; do
			case $s in */*) mkdir -p "$f/${s%/*}" ;; esac
			echo "something else" >"$f/$s"
		done
}
fake newer 6.12.57-1
one_line_error "--apply on linux 6.12" "the series is for 6\.1" "$exp" --apply "$t/newer"
fake older 6.1.100-1
sum=$(find "$t/older" -type f -exec md5sum {} + | sort)
first=$(echo "$series" | head -n 1)
one_line_error "--apply on a 6.1 tree whose files differ" "$first does not apply.*zero fuzz" \
	"$exp" --apply "$t/older"
[ "$(find "$t/older" -type f -exec md5sum {} + | sort)" = "$sum" ]
ok $? "and that tree is unchanged"
: >"$t/empty.sources"
one_line_error "--fetch without a deb-src source" "no deb-src source" \
	env APT_SOURCES="$t/empty.sources" BUILD_DIR="$t/bd" "$exp" --fetch "$version"

# --- the real thing
dsc=$("$exp" --fetch "$version" 2>"$t/err")
[ -f "$dsc" ]
ok $? "--fetch $version: apt-get source through a private apt state ($dsc)"
[ -f "$dsc" ] || { echo "Bail out! no Debian linux source: $(cat "$t/err")"; exit 1; }
one_line_error "--fetch of a version no deb-src offers" "no deb-src source offers linux 6\.1\.1-9" \
	"$exp" --fetch 6.1.1-9
elapsed fetched
tree=$work/linux-$version
rm -rf "$work"
mkdir -p "$work"
dpkg-source -x "$dsc" "$tree" >"$work/unpack.log" 2>&1
ok $? "dpkg-source -x $(basename "$dsc")"
elapsed unpacked
"$exp" --apply "$tree" >"$work/apply.log" 2>&1
rc=$?
ok $rc "--apply: the series applies with zero fuzz, flavours merged"
[ $rc -eq 0 ] || sed 's/^/#   /' "$work/apply.log"
applied=$(cd "$tree" && QUILT_PC=.pc QUILT_PATCHES=debian/patches quilt applied --quiltrc - | tail -n "$(echo "$series" | wc -l)")
[ "$applied" = "$want" ]
ok $? "quilt: our patches are the last applied"
one_line_error "--apply twice" "already has the export" "$exp" --apply "$tree"

# Debian's gencontrol: the first run regenerates and stops on purpose.
(cd "$tree" && debian/rules debian/control) >"$work/control.log" 2>&1
first=$?
(cd "$tree" && debian/rules debian/control) >>"$work/control.log" 2>&1
second=$?
[ $first -ne 0 ] && [ $second -eq 0 ] && grep -q 'generated SUCCESSFULLY' "$work/control.log"
ok $? "debian/rules debian/control: Debian's gencontrol accepts it"
n=0
for a in amd64 arm64; do
	for f in $flavours; do
		df=$(dflav "$a" "$f")
		grep -Eq "^Package: linux-image-[0-9.]+-[0-9]+-$df-unsigned$" "$tree/debian/control" &&
			n=$((n + 1))
	done
done
is "$n" "$((2 * nf))" "debian/control has an image package per arch and flavour"
elapsed "control generated"

# prove ARCH FRAGMENT: Debian's setup target for the flavour, then
# dma-iommu.o in its build dir; its config and the object's arch checked.
prove_flavour() {
	a=$1 frag=$2
	df=$(dflav "$a" "$frag")
	b=$tree/debian/build/build_${a}_none_$df
	case $a in
	amd64) run='' cross='' machine='X86-64' ;;
	arm64) run="dpkg-architecture -a arm64 -f -c" cross=aarch64-linux-gnu- machine=AArch64 ;;
	esac
	(cd "$tree" && $run make -f debian/rules.gen "setup_${a}_none_$df") >"$work/setup-$df.log" 2>&1
	ok $? "$a: Debian's setup_${a}_none_$df"
	has_sac_lines "$frag" "$b/.config"
	ok $? "$a: its .config says $(sac_shown "$frag")"
	make -C "$b" -j"$(nproc)" ${cross:+CROSS_COMPILE=$cross} drivers/iommu/dma-iommu.o \
		>"$work/build-$df.log" 2>&1 &&
		readelf -h "$b/drivers/iommu/dma-iommu.o" | grep -q "Machine:.*$machine"
	ok $? "$a: drivers/iommu/dma-iommu.o compiled for $machine (log: $work/build-$df.log)"
	[ -f "$b/include/generated/autoconf.h" ] && if trick_off "$frag"; then
		! grep -q 'CONFIG_IOMMU_DMA_PCI_SAC ' "$b/include/generated/autoconf.h"
	else
		grep -qx '#define CONFIG_IOMMU_DMA_PCI_SAC 1' "$b/include/generated/autoconf.h"
	fi
	ok $? "$a: and the object was built with that choice (autoconf.h)"
	elapsed "$df built"
}
# the last flavour on amd64 (server: trick off), the first on arm64
# (adaptive: trick on): both choices, both arches
amd=$(echo "$flavours" | tail -n 1)
prove_flavour amd64 "$amd"
prove_flavour arm64 "$(echo "$flavours" | head -n 1)"
# Debian sets the release (.kernelvariables), not CONFIG_LOCALVERSION
kr=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
	"$tree/debian/build/build_amd64_none_$(dflav amd64 "$amd")/include/generated/utsrelease.h")
like "$kr" "^[0-9.]+-[0-9]+-$(dflav amd64 "$amd")\$" "the amd64 kernel release is named after the flavour ($kr)"
done_testing
