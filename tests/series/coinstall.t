#!/bin/sh
# The packages of two series install side by side, as a distribution
# ships them: the default series' and SERIES' amd64 image, headers,
# kbuild and metapackages of one flavour in one bookworm root. dpkg
# keeps both kernels, each with its own /boot files, initrd, modules
# and headers.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../debs/lib.sh"
def=$("$top/scripts/series" --default)
[ "$SERIES" != "$def" ] ||
	skip_all "SERIES is the default series ($def): nothing to install beside it"
a=amd64
f=$(flavours | head -n 1)
# debs_of S: the package files of S for flavour $f, or a skip
debs_of() {
	v=$("$top/scripts/series" --version "$1")
	kr=$(SERIES=$1 kr_of "$f")
	meta=$(SERIES=$1 meta_of "$f")
	for p in "$(SERIES=$1 "$top/scripts/gencontrol" --kbuild farm)" "linux-image-$kr" "linux-headers-$kr" \
		"linux-image-$meta" "linux-headers-$meta"; do
		d=${DEBS_DIR:-$top/out/farm-debs}/$1/$a/${p}_${v}_$a.deb
		[ -f "$d" ] || skip_all "no $d (make all-debs SERIES=$1)"
		echo "$d"
	done
}
files="$(debs_of "$def") $(debs_of "$SERIES")"
plan 6

work_root coinstall
# shellcheck disable=SC2086
put $files
log=$BUILD_DIR/logs/debs-coinstall.log
in_root "cd /tmp/debs && apt-get install -y -q --no-install-recommends \
	-o Acquire::http::Proxy=none $(for d in $files; do printf './%s ' "${d##*/}"; done)" \
	>"$log" 2>&1
r=$?
ok $r "apt-get installs the $f packages of series $def and $SERIES in one root"
[ $r -eq 0 ] || tail -n 15 "$log" | sed 's/^/#   /'
for s in "$def" "$SERIES"; do
	kr=$(SERIES=$s kr_of "$f")
	is "$(in_root "dpkg-query -W -f '\${db:Status-Abbrev}' linux-image-$kr linux-headers-$kr")" \
		"ii ii " "$s: linux-image-$kr and its headers installed"
	[ -f "$root/boot/vmlinuz-$kr" ] && [ -f "$root/boot/initrd.img-$kr" ] &&
		[ -s "$root/lib/modules/$kr/modules.dep" ] &&
		[ "$(in_root "readlink -f /lib/modules/$kr/build")" = "/usr/src/linux-headers-$kr" ]
	ok $? "$s: /boot/vmlinuz-$kr, its initrd, modules.dep and headers"
done
is "$(cd "$root/boot" && ls vmlinuz-* | wc -l)" 2 "two distinct kernels in /boot"
done_testing
