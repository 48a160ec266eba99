#!/bin/sh
# The DMA workloads on x86-intel and arm64-smmuv3, every flavour: the
# lying edu device is caught where the trick is off (server: IOMMU fault
# or corruption) and passes where it is on (desktop, adaptive); the
# honest driver, blk, nvme and net pass on all;
# the module's self-check catches a deliberately corrupted byte.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
. "$(dirname "$0")/../lib/flavours.sh"
farm=$top/farm/farm
command -v jq >/dev/null || skip_all "jq missing (make deps)"
flavours=$(flavours)
nf=$(echo $flavours | wc -w)
# shellcheck disable=SC2046
need_kernels $(farm_kernels)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
workloads="edu-lying edu-honest blk nvme net"
plan $((2 * nf * 5 + 3))

# shellcheck disable=SC2086
"$farm" run --machine x86-intel --machine arm64-smmuv3 $kernels \
	$(for w in $workloads; do echo --workload "$w"; done) \
	--out "$tmp/m" >"$tmp/m.out" 2>&1
sed 's/^/# /' "$tmp/m.out"
res=$tmp/m/latest/results.json

got() {
	jq -r --arg m "$1" --arg f "$2" --arg w "$3" '.records[] |
		select(.axes.machine == $m and .axes.flavour == $f and
		.axes.workload == $w) | .outcome' "$res" 2>/dev/null
}

for m in x86-intel arm64-smmuv3; do
	for f in $flavours; do
		for w in $workloads; do
			o=$(got "$m" "$f" "$w")
			if [ "$w" = edu-lying ] && trick_off "$f"; then
				like "$o" '^(iommu-fault|data-corruption)$' \
					"$m $f $w: the lying device is caught ($o)"
			else
				is "$o" pass "$m $f $w passes"
			fi
		done
	done
done

above=$(jq -r '.records[] | select(.axes.flavour == "server" and
	.axes.workload == "edu-lying") | .metrics["edu-lying.above_4g"]' "$res" | sort -u)
is "$above" 6 "server: every lying transfer's IOVA was above 4 GiB (logged per transfer)"

"$farm" run --machine x86-intel --kernel "$BUILD_DIR/kernel/$SERIES-amd64-farm-desktop" \
	--workload edu-honest --variant corrupt=sac.edu.corrupt=1 \
	--out "$tmp/c" >"$tmp/c.out" 2>&1
c=$(jq -r '.records[0].outcome' "$tmp/c/latest/results.json")
is "$c" data-corruption "the module's self-check catches one flipped byte"
like "$(jq -r '.records[0].reason' "$tmp/c/latest/results.json")" "1 of [0-9]+ bytes differ" \
	"and says how many bytes differ"
done_testing
