#!/bin/sh
# iova-bench in its quick mode: runs on both flavours, reports where the
# IOVAs went (below 4 GiB while the trick has room, above once the 32-bit
# space is full; always above with the trick off), and the kernel's one
# line at a device's first fallback above 4 GiB (patch 0002).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
need_kernels amd64-farm-desktop amd64-farm-server
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 12

"$top/farm/farm" run --machine x86-intel --workload iova-bench \
	--kernel "$BUILD_DIR/kernel/amd64-farm-desktop" \
	--kernel "$BUILD_DIR/kernel/amd64-farm-server" \
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

# One boot, both policies: the bench device flipped through sysfs.
"$top/farm/farm" run --machine x86-intel --workload iova-bench \
	--kernel "$BUILD_DIR/kernel/amd64-farm-desktop" \
	--variant ab="sac.iova-bench.quick=1 sac.iova-bench.ab=1" \
	--out "$tmp/ab" >"$tmp/ab.out" 2>&1
sed 's/^/# /' "$tmp/ab.out"
res=$tmp/ab/latest/results.json
is "$(o desktop)" pass "ab: iova-bench passes with a second run in the same boot"
is "$(m desktop alt.sac)" 0 "ab: the second run had the trick switched off through sysfs"
cost=$(m desktop alt.sac_cost_fill100)
awk -v c="$cost" 'BEGIN { exit !(c + 0 > 0) }'
ok $? "ab: the cost of the trick at 100 % fill is reported ($cost x)"
done_testing
