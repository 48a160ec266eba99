# The built farm kernels a test boots. Sourced after tests/lib/tap.sh.
# shellcheck shell=sh

# need_kernels NAME...: skip the whole test unless every kernel
# $BUILD_DIR/kernel/NAME (e.g. 6.1-amd64-farm-desktop) has finished building;
# $kernels becomes the farm's --kernel options for them, in that order.
need_kernels() {
	kernels=''
	for k in "$@"; do
		[ -f "$BUILD_DIR/kernel/$k/.sac-built" ] ||
			skip_all "$k not built (make all-kernels)"
		kernels="$kernels --kernel $BUILD_DIR/kernel/$k"
	done
}

# farm_test KERNEL...: the start of a test that runs the farm on those
# kernels: $farm is the CLI, $tmp a scratch dir removed on exit, and
# $kernels as need_kernels sets it.
farm_test() {
	farm=$top/farm/farm
	command -v jq >/dev/null || skip_all "jq missing (make deps)"
	need_kernels "$@"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
}

# bookworm_image ARCH: the image package Debian's linux-image-ARCH
# metapackage depends on (linux-image-6.1.0-N-ARCH), or nothing.
bookworm_image() {
	apt-cache depends "linux-image-$1" 2>/dev/null |
		sed -n "s/^ *Depends: \(linux-image-6\.1\.0-[0-9]*-$1\)\$/\1/p" | head -n 1
}

# stock_kernel PACKAGE ARCH: Debian's kernel image PACKAGE for ARCH from
# the machine's apt sources, with the linux-headers and linux-kbuild
# packages its headers need at the same version (kbuild for this
# machine's arch, which runs it), all in $BUILD_DIR/stock-kernel;
# downloaded once. $deb becomes the image's .deb, $hdr its headers'
# package name. Skips the whole test when apt cannot get them.
stock_kernel() {
	[ -n "$1" ] || skip_all "apt knows no such $2 kernel image"
	stock_dir=$BUILD_DIR/stock-kernel
	mkdir -p "$stock_dir"
	stock_get "$1" "$2" "*"
	deb=$(ls "$stock_dir/${1}_"*"_$2.deb" | tail -n 1)
	stock_ver=$(dpkg-deb -f "$deb" Version)
	hdr=linux-headers-$(echo "$1" | sed 's/^linux-image-//; s/-unsigned$//')
	stock_get "$hdr" "$2" "$stock_ver"
	for p in $(dpkg-deb -f "$stock_dir/${hdr}_${stock_ver}_$2.deb" Depends |
		tr ',' '\n' | sed -n 's/^ *\(linux-\(headers\|kbuild\)-[^ ]*\).*/\1/p'); do
		case $p in
		linux-kbuild-*) stock_get "$p" "$(dpkg --print-architecture)" "$stock_ver" ;;
		*) stock_get "$p" "$2" "$stock_ver" ;;
		esac
	done
}

# stock_get NAME ARCH VERSION: that package (VERSION "*": any) into
# $stock_dir, unless it is there (an arch-all package counts for any),
# through scripts/apt-download, which needs no foreign dpkg arch.
stock_get() {
	for f in "$stock_dir/${1}_"$3"_$2.deb" "$stock_dir/${1}_"$3"_all.deb"; do
		[ ! -e "$f" ] || return 0
	done
	v="=$3"
	[ "$3" != "*" ] || v=
	(cd "$stock_dir" && "$top/scripts/apt-download" "$2" "$1$v" >/dev/null 2>&1) ||
		skip_all "cannot download $1$v for $2"
}

# cell_of RESULTS MACHINE FLAVOUR WORKLOAD VARIANT JQ: JQ applied to the
# record of that cell in RESULTS (a run's results.json).
cell_of() {
	jq -r --arg m "$2" --arg f "$3" --arg w "$4" --arg v "$5" '.records[] |
		select(.axes.machine == $m and .axes.flavour == $f and
		.axes.workload == $w and .axes.variant == $v) | '"$6" "$1" 2>/dev/null
}
