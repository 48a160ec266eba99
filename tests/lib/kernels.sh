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

# hold_build_lock DIR SECS: kernel-build's lock of build dir DIR, held
# in the background for SECS by a sleep that has the lock on a descriptor
# of its own (nothing of it keeps prove's output open); $holder is its
# pid, for the test to kill.
hold_build_lock() {
	(
		exec 9>"$1/.kernel-build.lock"
		flock 9
		exec sleep "$2"
	) >/dev/null 2>&1 &
	holder=$!
	sleep 0.5
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

# stock_kernel SERIES ARCH: Debian's own kernel of SERIES for ARCH, with
# the packages its headers need (scripts/stock-kernel): $deb becomes the
# image's .deb, $hdr its headers' package name. Skips the whole test
# when apt cannot get them.
stock_kernel() {
	deb=$("$top/scripts/stock-kernel" "$1" "$2") ||
		skip_all "no stock $1 kernel for $2 (scripts/stock-kernel $1 $2)"
	hdr=linux-headers-$(dpkg-deb -f "$deb" Package | sed 's/^linux-image-//; s/-unsigned$//')
}

# cell_of RESULTS MACHINE FLAVOUR WORKLOAD VARIANT JQ: JQ applied to the
# record of that cell in RESULTS (a run's results.json).
cell_of() {
	jq -r --arg m "$2" --arg f "$3" --arg w "$4" --arg v "$5" '.records[] |
		select(.axes.machine == $m and .axes.flavour == $f and
		.axes.workload == $w and .axes.variant == $v) | '"$6" "$1" 2>/dev/null
}

# render_test NAME: the start of a test that reads fake kernels through
# farm lava render (which boots nothing): $tmp a scratch dir and $tag a
# prefix for the kernels' dirs (and a part of fake packages' names),
# both removed on exit with the initramfs and unpacked packages the
# render cached for them.
render_test() {
	tmp=$(mktemp -d)
	tag=$1-$$
	trap 'rm -rf "$tmp" "$BUILD_DIR/farm-cache/initramfs/$tag"-* "$BUILD_DIR/farm-cache/deb/"*-"$tag"-*' EXIT
}

# fake_kernel NAME RELEASE CONFIG_LINE...: $tmp/$tag-NAME, an amd64 build
# dir the x86-intel machine takes, of that release, with those lines in
# its .config.
fake_kernel() {
	_d=$tmp/$tag-$1 _r=$2
	shift 2
	mkdir -p "$_d/include/config" "$_d/arch/x86/boot"
	printf '%s\n' CONFIG_X86_64=y CONFIG_PCI=y CONFIG_PCI_MSI=y CONFIG_INTEL_IOMMU=y \
		"$@" >"$_d/.config"
	echo "$_r" >"$_d/include/config/kernel.release"
	: >"$_d/arch/x86/boot/bzImage"
}
