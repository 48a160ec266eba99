#!/bin/sh
# The runner's flavour axis names the base a kernel of ours was built on:
# FLAVOUR on the farm base, BASE:FLAVOUR on the others (release:desktop),
# so that a farm and a release kernel of one flavour are cells of their
# own; a kernel that is not ours is "stock". Read from fake build dirs
# (a .config, a kernel.release, an image) through farm lava render, which
# boots nothing.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
render_test axis
plan 6

# fake NAME RELEASE LOCALVERSION: a kernel of that release and local version
fake() {
	fake_kernel "$1" "$2" ${3:+"CONFIG_LOCALVERSION=\"$3\""}
}

# flavour NAME: the flavour axis of NAME's cell
flavour() {
	"$top/farm/farm" lava render --kernel "$tmp/$tag-$1" --machine x86-intel \
		--workload boot --out "$tmp/r-$1" >"$tmp/out-$1" 2>&1 &&
		sed -n "s/^ *farm.flavour: '\(.*\)'$/\1/p" "$tmp/r-$1"/*.yaml
}

fake release 6.1.192-sac-desktop -sac-desktop
fake farm 6.1.192-farm-sac-server -sac-server
fake debug 6.1.192-debug-sac-desktop -sac-desktop
fake stock 6.1.0-57-amd64 ""
fake bad 6.1.192-sac-server -sac-desktop
is "$(flavour release)" release:desktop "the release base: release:desktop"
is "$(flavour farm)" server "the farm base: the flavour alone"
is "$(flavour debug)" debug:desktop "the debug base: debug:desktop"
is "$(flavour stock)" stock "a kernel not ours: stock"
flavour bad >/dev/null
is $? 2 "a release that does not end in the kernel's local version: bad input"
like "$(cat "$tmp/out-bad")" "release 6.1.192-sac-server does not end in its CONFIG_LOCALVERSION -sac-desktop" \
	"saying which release and which local version"
done_testing
