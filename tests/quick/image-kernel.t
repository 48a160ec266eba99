#!/bin/sh
# The farm's image kernel: scripts/farm-image boots a farm-base kernel of
# the arch to install .debs into the bookworm image, so every make target
# that boots an installed system asks for one (make image-kernels), even
# when it builds and gates the release base alone. make -n: nothing is
# built, the plan is read.
. "$(dirname "$0")/../lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 4

# dry_run TARGET [VAR=VALUE]...: what make would do, in a build dir of
# its own
dry_run() {
	make -s -n -C "$top" BUILD_DIR="$tmp/b" SERIES=6.1 ARCHES="amd64 arm64" "$@" 2>&1
}

# the recipe's loop, its continued lines joined
wants_image_kernel() {
	# shellcheck disable=SC2016
	printf '%s\n' "$1" | tr '\\\n' '  ' |
		grep -q 'for a in amd64 arm64; do *scripts/kernel-build build \$a farm desktop'
}

for t in "farm FARM_BASES=release" "farm" "bench-installed BASE=release"; do
	# shellcheck disable=SC2086
	out=$(dry_run $t)
	wants_image_kernel "$out"
	ok $? "make $t builds a farm kernel per arch for the image"
done

out=$(dry_run check-quick)
! wants_image_kernel "$out"
ok $? "make check-quick does not"
