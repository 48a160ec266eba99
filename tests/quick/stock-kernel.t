#!/bin/sh
# scripts/stock-kernel on bad input: no arguments, an unknown series or
# arch, a series that names no stock kernel, a pattern apt knows no
# package for. Each is one error line and exit 1, prints no path, and
# leaves nothing in the build dir. (It getting Debian's kernels is
# proven by the tests that boot them: tests/farm/stock.t, tests/series/stock-6.12.t.)
. "$(dirname "$0")/../lib/tap.sh"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
plan 15

mkdir -p "$t/patches/9.8" "$t/patches/9.9"
printf 'source linux-source-9.8\n' >"$t/patches/9.8/origin"
printf 'source linux-source-9.9\nstock ^no-such-image-[0-9]*-ARCH$\n' \
	>"$t/patches/9.9/origin"

# refused WHY ARG...: stock-kernel ARG... exits 1 with one line saying
# WHY (a pattern), prints nothing and makes no build dir.
refused() {
	why=$1
	shift
	PATCHES=$t/patches BUILD_DIR=$t/build "$top/scripts/stock-kernel" "$@" \
		>"$t/out" 2>"$t/err"
	is "$?" 1 "stock-kernel $*: exit 1"
	[ ! -s "$t/out" ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q "$why" "$t/err"
	ok $? "stock-kernel $*: one line, '$why' ($(cat "$t/err"))"
	[ ! -e "$t/build" ]
	ok $? "stock-kernel $*: nothing in the build dir"
}
refused 'usage: stock-kernel SERIES ARCH'
refused "unknown series '7.7'" 7.7 amd64
refused "unknown arch 'riscv64'" 9.9 riscv64
refused 'names no stock package' 9.8 arm64
refused "apt knows no package matching '^no-such-image-\[0-9\]\*-ARCH\$'" 9.9 arm64
done_testing
