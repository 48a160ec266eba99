#!/bin/sh
# A farm kernel can never pass for the one that ships: the farm base's
# and the release base's packages of one flavour (image, headers, kbuild
# and metapackages) have no name in common, and installed into one
# bookworm root they are two distinct kernels, each whole.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../debs/lib.sh"
a=amd64
f=$(flavours | head -n 1)
for b in farm release; do
	d=$(flavour_debs "$b" "$f" $a) ||
		skip_all "no $(echo "$d" | tail -n 1) (make all-debs BASE=$b)"
	files="$files $d"
	names="$names$(for p in $d; do dpkg-deb -f "$p" Package; done)
"
done
plan 7
is "$(printf '%s' "$names" | sort | uniq -d | paste -sd' ' -)" "" \
	"no package name is both a farm and a release package"
# shellcheck disable=SC2086 # files: paths without blanks
side_by_side bases "farm $("$top/scripts/gencontrol" --kr "$f" farm)" \
	"release $("$top/scripts/gencontrol" --kr "$f" release)" -- $files
done_testing
