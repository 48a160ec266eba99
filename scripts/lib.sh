# Shared helpers for the project's shell glue. Sourced, not run.
# shellcheck shell=sh

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$top/build}
FRAGMENTS=${FRAGMENTS:-$top/config-fragments}

die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

# Progress for a person watching a long job.
step() {
	printf '==> %s\n' "$*"
}

# The flavours are the fragments at the top of config-fragments/: adding
# a flavour means adding one file.
flavours() {
	for f in "$FRAGMENTS"/*.config; do
		f=${f##*/}
		printf '%s\n' "${f%.config}"
	done
}

check_flavour() {
	[ -f "$FRAGMENTS/$1.config" ] ||
		die "unknown flavour '$1' (known: $(flavours | tr '\n' ' '))"
}

check_base() {
	case $1 in
	farm|release) ;;
	*) die "unknown base '$1' (known: farm release)" ;;
	esac
}

# Per architecture: the kernel's ARCH, the image make builds, and the
# cross prefix when the host is not that architecture.
set_arch() {
	case $1 in
	amd64) karch=x86 image=arch/x86/boot/bzImage gnu=x86_64-linux-gnu ;;
	arm64) karch=arm64 image=arch/arm64/boot/Image gnu=aarch64-linux-gnu ;;
	*) die "unknown arch '$1' (known: amd64 arm64)" ;;
	esac
	cross=
	[ "$(dpkg --print-architecture)" = "$1" ] || cross=$gnu-
	command -v "${cross}gcc" >/dev/null ||
		die "no compiler ${cross}gcc for $1 (install gcc-$gnu)"
}

sha() {
	cat "$@" | sha256sum | cut -c1-16
}
