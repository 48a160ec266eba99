#!/bin/sh
# The packages of two series install side by side, as a distribution
# ships them: the default series' and SERIES' amd64 image, headers,
# kbuild and metapackages of one flavour in one bookworm root. dpkg
# keeps both kernels, each with its own /boot files, initrd, modules
# and headers.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../debs/lib.sh"
def=$("$top/scripts/series" --default)
[ "$SERIES" != "$def" ] ||
	skip_all "SERIES is the default series ($def): nothing to install beside it"
a=amd64
f=$(flavours | head -n 1)
for s in "$def" "$SERIES"; do
	d=$(SERIES=$s flavour_debs farm "$f" $a) ||
		skip_all "no $(echo "$d" | tail -n 1) (make all-debs SERIES=$s)"
	files="$files $d"
done
plan 6
# shellcheck disable=SC2046,SC2086 # files: paths without blanks
side_by_side coinstall "$def $(SERIES=$def kr_of "$f")" "$SERIES $(kr_of "$f")" -- $files
done_testing
