#!/bin/sh
# The amd64 packages install in a bookworm root like Debian's own kernel
# packages: both flavours side by side, the /etc/kernel hooks run with the
# kernel's version, and dpkg -r takes everything away again.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
a=amd64
need_debs $a
nf=$(flavours | wc -l)
plan $((2 + nf * 6 + 1 + nf * 4 + 2))

work_root install
ok 0 "scratch copy of the bookworm root ($root_cache)"

# A hook that records how it was called, in each hook directory.
for h in postinst.d postrm.d; do
	mkdir -p "$root/etc/kernel/$h"
	printf '#!/bin/sh\necho "%s $*" >>/var/log/sac-hooks\n' "$h" \
		>"$root/etc/kernel/$h/zz-sac-record"
	chmod 755 "$root/etc/kernel/$h/zz-sac-record"
done

pkgs="$kbuild_pkg"
for f in $(flavours); do
	kr=$(kr_of "$f")
	pkgs="$pkgs linux-image-$kr linux-headers-$kr"
done
first=$(flavours | head -n1)
meta=$(meta_of "$first")
pkgs="$pkgs linux-image-$meta linux-headers-$meta"
for p in $pkgs; do put "$(deb "$p" $a)"; done
debs_in=$(for p in $pkgs; do printf './%s ' "$(basename "$(deb "$p" $a)")"; done)
in_root "cd /tmp/debs && apt-get install -y -q --no-install-recommends \
	-o Acquire::http::Proxy=none $debs_in" >"$BUILD_DIR/logs/debs-install.log" 2>&1
r=$?
ok $r "apt-get install of both flavours' image and headers, and the $first metapackages"
[ $r -eq 0 ] || tail -n 15 "$BUILD_DIR/logs/debs-install.log" | sed 's/^/#   /'

for f in $(flavours); do
	kr=$(kr_of "$f")
	st=$(in_root "dpkg-query -W -f '\${db:Status-Abbrev}' linux-image-$kr linux-headers-$kr")
	is "$st" "ii ii " "$f: image and headers installed"
	[ -f "$root/boot/vmlinuz-$kr" ] && [ -f "$root/boot/config-$kr" ] &&
		[ -f "$root/boot/System.map-$kr" ]
	ok $? "$f: /boot has vmlinuz, config and System.map of $kr"
	[ -s "$root/lib/modules/$kr/modules.dep" ]
	ok $? "$f: postinst ran depmod (/lib/modules/$kr/modules.dep)"
	grep -qx "postinst.d $kr /boot/vmlinuz-$kr" "$root/var/log/sac-hooks" 2>/dev/null
	ok $? "$f: /etc/kernel/postinst.d hooks ran with '$kr /boot/vmlinuz-$kr'"
	[ -f "$root/boot/initrd.img-$kr" ]
	ok $? "$f: initramfs-tools' hook made /boot/initrd.img-$kr"
	is "$(in_root "readlink -f /lib/modules/$kr/build")" \
		"/usr/src/linux-headers-$kr" "$f: /lib/modules/$kr/build is the headers"
done
st=$(in_root "dpkg-query -W -f '\${db:Status-Abbrev}' linux-image-$meta")
is "$st" "ii " "metapackage linux-image-$meta installed with its kernel"

in_root "dpkg -r linux-image-$meta linux-headers-$meta" \
	>>"$BUILD_DIR/logs/debs-install.log" 2>&1
for f in $(flavours); do
	kr=$(kr_of "$f")
	in_root "dpkg -r linux-headers-$kr linux-image-$kr" \
		>>"$BUILD_DIR/logs/debs-install.log" 2>&1
	ok $? "$f: dpkg -r headers and image"
	# As with Debian's kernels, only depmod's index outlives dpkg -r.
	left=$(cd "$root" && ls -d "boot/vmlinuz-$kr" "boot/initrd.img-$kr" \
		"boot/config-$kr" "usr/src/linux-headers-$kr" \
		$(find "lib/modules/$kr" ! -type d ! -name 'modules.*' 2>/dev/null) \
		2>/dev/null)
	is "$left" "" "$f: dpkg -r leaves nothing of $kr but depmod's index"
	grep -qx "postrm.d $kr /boot/vmlinuz-$kr" "$root/var/log/sac-hooks"
	ok $? "$f: /etc/kernel/postrm.d hooks ran on removal"
	in_root "dpkg -P linux-headers-$kr linux-image-$kr" \
		>>"$BUILD_DIR/logs/debs-install.log" 2>&1
	[ $? -eq 0 ] && [ ! -e "$root/lib/modules/$kr" ]
	ok $? "$f: dpkg -P removes /lib/modules/$kr"
done
st=$(in_root "dpkg-query -W -f '\${db:Status-Abbrev}\n' 'linux-*' 2>/dev/null" |
	grep -v '^un' | tr -d ' ' | sort -u | tr '\n' ' ')
is "$st" "ii " "only linux-kbuild is left (no image, headers or config-files state)"
in_root "dpkg -P $kbuild_pkg" >>"$BUILD_DIR/logs/debs-install.log" 2>&1 &&
	[ ! -e "$root/usr/lib/$kbuild_pkg" ]
ok $? "linux-kbuild purged, its directory gone"
done_testing
