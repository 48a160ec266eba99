# The built farm kernels a test boots. Sourced after tests/lib/tap.sh.
# shellcheck shell=sh

# need_kernels NAME...: skip the whole test unless every kernel
# $BUILD_DIR/kernel/NAME (e.g. amd64-farm-desktop) has finished building;
# $kernels becomes the farm's --kernel options for them, in that order.
need_kernels() {
	kernels=''
	for k in "$@"; do
		[ -f "$BUILD_DIR/kernel/$k/.sac-built" ] ||
			skip_all "$k not built (make all-kernels)"
		kernels="$kernels --kernel $BUILD_DIR/kernel/$k"
	done
}
