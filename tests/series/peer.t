#!/bin/sh
# Our adaptive mode against mainline's own, on the same cells: the
# adaptive flavour of SERIES (its farm kernels) and Debian's stock 6.12
# (bookworm-security; mainline's adaptive since 791c2b17fb40) in one
# farm run, the lying edu device under pressure (its 32-bit IOVA space
# exhausted by itself, or by a sibling in its IOMMU group) on x86-intel
# and arm64-smmuv3. Both must end the same way, each quoting its one
# SAC fallback notice. The run stays in $BUILD_DIR/peer-SERIES/, gated:
# its report.html shows the two side by side (flavour "stock" beside
# "adaptive"). make check-series runs this on every other series;
# SERIES=6.1 prove tests/series/peer.t on bookworm's.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
. "$(dirname "$0")/../lib/flavours.sh"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
adaptive=$(for f in $(flavours); do adaptive_on "$f" && echo "$f"; done)
[ -n "$adaptive" ] || skip_all "no flavour is adaptive (config-fragments/)"
machines="x86-intel arm64-smmuv3"
pressure="edu-pressure edu-pressure-group"
# shellcheck disable=SC2046
farm_test $(for f in $adaptive; do echo "$SERIES-amd64-farm-$f" "$SERIES-arm64-farm-$f"; done)
ours=$kernels
for arch in amd64 arm64; do
	stock_kernel 6.12 "$arch"
	ours="$ours --kernel $deb"
done
nf=$(echo $adaptive | wc -w)
plan $((2 * 2 * (nf * 3 + 1) + 1))

keep=$BUILD_DIR/peer-$SERIES
rm -rf "$keep"
# shellcheck disable=SC2086
"$farm" run $ours --machine x86-intel --machine arm64-smmuv3 \
	--workload edu-pressure --workload edu-pressure-group \
	--out "$keep" >"$tmp/out" 2>&1
sed 's/^/# /' "$tmp/out"
res=$keep/latest/results.json
"$farm" gate "$keep/latest" --no-rerun >"$tmp/gate" 2>&1
ok $? "the gate ships the run: $(grep VERDICT "$tmp/gate") ($keep/latest/report.html)"
# cell MACHINE FLAVOUR WORKLOAD JQ: JQ of that default cell's record
cell() {
	cell_of "$res" "$1" "$2" "$3" default "$4"
}
notice='SAC fallback notice.*Using [0-9]+-bit DMA addresses'
for m in $machines; do
	for w in $pressure; do
		mainline=$(cell "$m" stock "$w" .outcome)
		like "$(cell "$m" stock "$w" .reason)" "$notice" \
			"$m $w: stock 6.12 ($mainline) quotes mainline's notice"
		for f in $adaptive; do
			is "$(cell "$m" "$f" "$w" .outcome)" "$mainline" \
				"$m $w: $SERIES $f ends as mainline does"
			like "$(cell "$m" "$f" "$w" .reason)" "$notice" \
				"$m $w: $SERIES $f quotes its own notice"
			like "$mainline" '^(data-corruption|iommu-fault)$' \
				"$m $w: and that end catches the liar"
		done
	done
done
done_testing
