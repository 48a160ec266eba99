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
