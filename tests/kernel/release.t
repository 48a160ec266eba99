#!/bin/sh
# make release-check: Debian's shipped config plus each flavour, trimmed
# to the modules the farm's machines need, keeps the flavour's choice,
# changes nothing but modules, and compiles the code the series touches.
# A module list naming a module Debian's config does not build, or no
# list at all, is refused with one line.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/flavours.sh"
arches=${ARCHES:-amd64 arm64}
src=$BUILD_DIR/src/linux-$SERIES
plan $(($(echo $arches | wc -w) * $(flavours | wc -l) * 4 + 4))
for a in $arches; do
	for f in $(flavours); do
		o=$BUILD_DIR/kernel/$SERIES-$a-release-$f
		[ -f "$o/.sac-config" ]
		ok $? "$a/release/$f: config verified"
		has_sac_lines "$f" "$o/.config"
		ok $? "$a/release/$f: $(sac_shown "$f") on top of Debian's config"
		like "$(tail -n 1 "$o/trim-report.txt" 2>/dev/null)" \
			"[1-9][0-9]* modules trimmed .*; 0 other changes$" \
			"$a/release/$f: trimmed to the farm's modules, nothing else changed"
		# newer than the patched source: the config stage may be redone
		# (a fragment's comment changed) with nothing for kbuild to redo
		[ "$o/drivers/iommu/dma-iommu.o" -nt "$src/drivers/iommu/dma-iommu.c" ]
		ok $? "$a/release/$f: drivers/iommu/dma-iommu.o compiled from the patched source"
	done
done

# Bad module lists, in a build dir of their own: the patched source and
# host tools are the real ones, the fragments a copy.
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/build/src"
ln -s "$src" "$t/build/src/linux-$SERIES"
ln -s "$BUILD_DIR/host" "$t/build/host"
cp -r "$top/config-fragments" "$t/frag"
list=$t/frag/base/release-amd64.modules
# relbad WHAT: kernel-build's config stage of amd64/release/desktop on
# the copy; its exit status, stderr in $t/err
relbad() {
	FRAGMENTS=$t/frag BUILD_DIR=$t/build SAC_OFFLINE=1 \
		"$top/scripts/kernel-build" config amd64 release desktop \
		>/dev/null 2>"$t/err"
}
echo no_such_module >>"$list"
relbad
is "$?:$(wc -l <"$t/err")" 1:1 "a list naming an unknown module: exit 1, one line"
like "$(cat "$t/err")" "do not build: no_such_module \(from .*release-amd64.modules" \
	"naming the module and the list"
rm "$list"
relbad
is "$?:$(wc -l <"$t/err")" 1:1 "no list: exit 1, one line"
like "$(cat "$t/err")" "no .*release-amd64.modules: .*make release-modules" \
	"saying which list and what makes it"
done_testing
