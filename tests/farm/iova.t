#!/bin/sh
# iova-bench in its quick mode: runs on both flavours, reports where the
# IOVAs went (below 4 GiB while the trick has room, above once the 32-bit
# space is full; always above with the trick off), and the kernel's one
# line at a device's first fallback above 4 GiB (patch 0002); and the
# policies compared in one boot (patches 0003, 0005, 0006).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
need_kernels $SERIES-amd64-farm-desktop $SERIES-amd64-farm-server $SERIES-arm64-farm-desktop
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan $((9 + 2 * 5))

"$top/farm/farm" run --machine x86-intel --workload iova-bench \
	--kernel "$BUILD_DIR/kernel/$SERIES-amd64-farm-desktop" \
	--kernel "$BUILD_DIR/kernel/$SERIES-amd64-farm-server" \
	--variant quick=sac.iova-bench.quick=1 --out "$tmp/r" >"$tmp/out" 2>&1
sed 's/^/# /' "$tmp/out"
res=$tmp/r/latest/results.json
m() {
	jq -r --arg f "$1" --arg k "$2" '.records[] | select(.axes.flavour == $f) |
		.metrics["iova-bench." + $k]' "$res" 2>/dev/null
}
o() {
	jq -r --arg f "$1" '.records[] | select(.axes.flavour == $f) | .outcome' "$res"
}
is "$(o desktop)" pass "desktop: iova-bench passes"
is "$(o server)" pass "server: iova-bench passes"
is "$(m desktop sac)" 1 "desktop: the trick was in use"
is "$(m server sac)" 0 "server: the trick was off"
is "$(m desktop above4g_fill0)" 0 "desktop, empty 32-bit space: no IOVA above 4 GiB"
[ "$(m desktop above4g_fill100)" -gt 0 ] 2>/dev/null
ok $? "desktop, full 32-bit space: IOVAs go above 4 GiB ($(m desktop above4g_fill100))"
[ "$(m server above4g_fill0)" -gt 0 ] 2>/dev/null
ok $? "server: IOVAs above 4 GiB from the start ($(m server above4g_fill0))"
# fallbacks FLAVOUR: the first-fallback lines in that job's console log
fallbacks() {
	id=$(jq -r --arg f "$1" '.records[] | select(.axes.flavour == $f) | .job_id' "$res")
	grep -c 'sac_iova [0-9a-f:.]*: 32-bit IOVA space full, .*iommu.sac_devices=1234:11e8:sac' \
		"$tmp/r/latest/jobs/$id/console.log"
}
is "$(fallbacks desktop)" 1 "desktop: the bench device's first fallback is reported, once"
is "$(fallbacks server)" 0 "server: no 32-bit attempt, so nothing to report"

# One boot, four policies (sac.iova-bench.modes=), each on a fresh domain
# (the bench device removed and rescanned), with an MTU change before
# each level; on arm64 an unbound device has no IOMMU yet, so the agent
# binds pci-stub to write the policy.
"$top/farm/farm" run --machine x86-intel --machine arm64-smmuv3 --workload iova-bench \
	--kernel "$BUILD_DIR/kernel/$SERIES-amd64-farm-desktop" \
	--kernel "$BUILD_DIR/kernel/$SERIES-arm64-farm-desktop" \
	--variant modes="sac.iova-bench.quick=1 sac.iova-bench.modes=dac,sac,adaptive,bits=48 sac.iova-bench.resize_kib=8" \
	--out "$tmp/modes" >"$tmp/modes.out" 2>&1
sed 's/^/# /' "$tmp/modes.out"
res=$tmp/modes/latest/results.json
for a in amd64 arm64; do
	mm() {
		jq -r --arg a "$a" --arg k "$1" '.records[] | select(.axes.arch == $a) |
			.metrics["iova-bench." + $k]' "$res" 2>/dev/null
	}
	is "$(jq -r --arg a "$a" '.records[] | select(.axes.arch == $a) | .outcome' "$res")" pass \
		"$a modes: iova-bench passes, four runs in one boot"
	is "$(mm sac)" 0 "$a modes: the plain metrics are the dac run's (no trick)"
	for mode in sac adaptive bits48; do
		cost=$(mm "$mode.cost_fill100")
		awk -v c="$cost" 'BEGIN { exit !(c + 0 > 0) }'
		ok $? "$a modes: $mode's cost against dac at 100 % fill is reported (${cost}x)"
	done
done
done_testing
