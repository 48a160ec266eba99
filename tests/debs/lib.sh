# Helpers for the package tests: the built .debs and a throwaway bookworm
# root to install them in. Sourced after tests/lib/tap.sh.
# shellcheck shell=sh

# The farm base's packages of SERIES (tests/lib/tap.sh: 6.1 unless
# set), which make all-debs builds: make check tests these, the release
# base's take hours to build.
debs=${DEBS_DIR:-$top/out/farm-debs}/$SERIES
version=$("$top/scripts/series" --version "$SERIES")
upstream=${version%-*}
# the linux-kbuild package of these kernels
kbuild_pkg=$("$top/scripts/gencontrol" --kbuild farm)
root_cache=$BUILD_DIR/debs-root
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What the tests need inside the root: the images' dependencies, a
# native and an arm64 cross compiler for module.t.
root_pkgs="linux-base kmod initramfs-tools make gcc libc6-dev libelf1 perl
gcc-aarch64-linux-gnu binutils"

. "$top/tests/lib/flavours.sh"

kr_of() {
	"$top/scripts/gencontrol" --kr "$1" farm
}

# meta_of FLAVOUR: its metapackages' name after linux-image-.
meta_of() {
	"$top/scripts/gencontrol" --meta "$1" farm
}

# deb PACKAGE ARCH: the path of a built package, or nothing.
deb() {
	p=$debs/$2/${1}_${version}_$2.deb
	[ -f "$p" ] && echo "$p"
	return 0
}

need_debs() {
	for a in "$@"; do
		[ -n "$(deb "$kbuild_pkg" "$a")" ] ||
			skip_all "no $a packages in $debs/$a (make debs ARCH=$a)"
	done
}

# The cached root: debootstrap plus root_pkgs, made in a temporary dir
# and moved into place only when complete. The stamp names its content.
cached_root() {
	want=$(echo "bookworm $mirror $root_pkgs" | sha256sum | cut -c1-16)
	[ "$(cat "$root_cache/.sac-root" 2>/dev/null)" = "$want" ] && return 0
	[ "$(id -u)" = 0 ] || skip_all "making the debootstrap root needs root"
	command -v debootstrap >/dev/null || skip_all "debootstrap missing (make deps)"
	echo "# making $root_cache (debootstrap, once)"
	t=$(mktemp -d "$BUILD_DIR/debs-root.tmp.XXXXXX")
	chmod 755 "$t"
	if ! debootstrap --variant=minbase bookworm "$t" "$mirror" \
		>"$BUILD_DIR/logs/debs-root.log" 2>&1 ||
		! chroot "$t" sh -c "apt-get update -q &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends $(echo $root_pkgs)" \
			>>"$BUILD_DIR/logs/debs-root.log" 2>&1; then
		rm -rf "$t"
		echo "Bail out! cannot make the bookworm root (see $BUILD_DIR/logs/debs-root.log)"
		exit 1
	fi
	chroot "$t" apt-get clean
	echo "$want" >"$t/.sac-root"
	rm -rf "$root_cache"
	mv "$t" "$root_cache"
}

# work_root NAME: a scratch copy of the cached root, removed at exit
# (with /proc unmounted if a test mounted it).
work_root() {
	mkdir -p "$BUILD_DIR/logs"
	cached_root
	root=$BUILD_DIR/debs-work-$1
	rm -rf "$root"
	cp -a "$root_cache" "$root"
	trap 'cleanup_root' EXIT INT TERM
}

cleanup_root() {
	mountpoint -q "$root/proc" 2>/dev/null && umount "$root/proc"
	rm -rf "$root"
}

# in_root CMD...: run a shell command line in the root, no network use.
in_root() {
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 sh -c "$*"
}

# put DEB...: copy packages into the root's /tmp/debs.
put() {
	mkdir -p "$root/tmp/debs"
	cp "$@" "$root/tmp/debs/"
}

# flavour_debs BASE FLAVOUR ARCH: the package files one kernel of SERIES
# ships as (kbuild, image, headers and their metapackages), from BASE's
# .debs; if one is missing, its path alone and status 1.
flavour_debs() {
	_v=$("$top/scripts/series" --version "$SERIES")
	_dir=$(sh -c '. "$1/scripts/lib.sh" && debs_root "$2"' \
		"$top/scripts/lib.sh" "$top" "$1")/$SERIES/$3
	_kr=$("$top/scripts/gencontrol" --kr "$2" "$1")
	_meta=$("$top/scripts/gencontrol" --meta "$2" "$1")
	for _p in "$("$top/scripts/gencontrol" --kbuild "$1")" "linux-image-$_kr" \
		"linux-headers-$_kr" "linux-image-$_meta" "linux-headers-$_meta"; do
		[ -f "$_dir/${_p}_${_v}_$3.deb" ] || {
			echo "$_dir/${_p}_${_v}_$3.deb"
			return 1
		}
		echo "$_dir/${_p}_${_v}_$3.deb"
	done
}

# side_by_side NAME "LABEL RELEASE"... -- DEB...: install DEBs with apt
# into a fresh root NAME, then see each kernel whole: its image and
# headers installed, its /boot files, initrd, modules and headers link,
# and as many kernels in /boot as there are labels. 2 + 2 tests a label.
side_by_side() {
	_name=$1
	shift
	_kernels=
	while [ "$1" != -- ]; do
		_kernels="$_kernels${_kernels:+
}$1"
		shift
	done
	shift
	work_root "$_name"
	put "$@"
	_log=$BUILD_DIR/logs/debs-$_name.log
	in_root "cd /tmp/debs && apt-get install -y -q --no-install-recommends \
		-o Acquire::http::Proxy=none $(for d in "$@"; do printf './%s ' "${d##*/}"; done)" \
		>"$_log" 2>&1
	_r=$?
	ok $_r "apt-get installs $(printf '%s\n' "$_kernels" | cut -d' ' -f1 | paste -sd' ' - | sed 's/ / and /g') in one root"
	[ $_r -eq 0 ] || tail -n 15 "$_log" | sed 's/^/#   /'
	# not a pipe: the loop's tests must count in this shell
	while read -r _label _kr; do
		is "$(in_root "dpkg-query -W -f '\${db:Status-Abbrev}' linux-image-$_kr linux-headers-$_kr")" \
			"ii ii " "$_label: linux-image-$_kr and its headers installed"
		[ -f "$root/boot/vmlinuz-$_kr" ] && [ -f "$root/boot/initrd.img-$_kr" ] &&
			[ -s "$root/lib/modules/$_kr/modules.dep" ] &&
			[ "$(in_root "readlink -f /lib/modules/$_kr/build")" = "/usr/src/linux-headers-$_kr" ]
		ok $? "$_label: /boot/vmlinuz-$_kr, its initrd, modules.dep and headers"
	done <<EOF
$_kernels
EOF
	is "$(cd "$root/boot" && ls vmlinuz-* | wc -l)" "$(printf '%s\n' "$_kernels" | wc -l)" \
		"as many distinct kernels in /boot"
}

# cell_rec FLAVOUR WORKLOAD FILTER: FILTER (a jq expression) of that
# cell's record in a farm run's results.json, $res
cell_rec() {
	jq -r --arg f "$1" --arg w "$2" ".records[] |
		select(.axes.flavour == \$f and .axes.workload == \$w) | $3" \
		"$res" 2>/dev/null
}
