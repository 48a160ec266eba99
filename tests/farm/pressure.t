#!/bin/sh
# Pressure (patches 0005, 0006): the lying edu device with the 32-bit IOVA
# space of its domain exhausted, by its own mappings (edu-pressure) or by
# a sibling in its IOMMU group (edu-pressure-group), on x86-intel and
# arm64-smmuv3, every flavour, under each choice a distribution has: the
# flavour's global mode, adaptive, the device listed as sac, and the
# strict 32-bit limit. Every try-32-bit-first choice falls back above
# 4 GiB and must be caught, adaptive (the variant, and the adaptive
# flavour's own mode) with its one notice quoted; server's full range is
# caught at once; the strict limit passes, its mapping refused cleanly.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
. "$(dirname "$0")/../lib/flavours.sh"
flavours=$(flavours)
nf=$(echo $flavours | wc -w)

# adaptive_modes FLAVOUR: the variants whose cells run adaptive on it:
# the adaptive variant, and the default cell of an adaptive flavour.
adaptive_modes() {
	echo adaptive
	adaptive_on "$1" && echo default
	return 0
}

# shellcheck disable=SC2046
farm_test $(farm_kernels)
machines="x86-intel arm64-smmuv3"
workloads="edu-pressure edu-pressure-group"
variants="default adaptive listed strict"
plan $((1 + 2 * 2 * nf * (4 + 1) + 2 * 2 * $(for f in $flavours; do
	adaptive_modes "$f"; done | wc -w) * 2))

# shellcheck disable=SC2086
"$farm" run --machine x86-intel --machine arm64-smmuv3 $kernels \
	--workload edu-pressure --workload edu-pressure-group \
	--out "$tmp/p" >"$tmp/p.out" 2>&1
sed 's/^/# /' "$tmp/p.out"
res=$tmp/p/latest/results.json
is "$(jq '.records | length' "$res" 2>/dev/null)" $((2 * nf * 2 * 4)) \
	"$((2 * nf * 2 * 4)) cells: 2 machines x $nf flavours x 2 workloads x 4 variants"

# q MACHINE FLAVOUR WORKLOAD VARIANT JQ: JQ applied to that cell's record
q() {
	cell_of "$res" "$@"
}

for m in $machines; do
	for w in $workloads; do
		for f in $flavours; do
			for v in $variants; do
				o=$(q "$m" "$f" "$w" "$v" .outcome)
				c="$m $f $w@$v"
				if [ "$v" = strict ]; then
					is "$o" pass "$c: the strict limit keeps the device safe"
				else
					like "$o" '^(iommu-fault|data-corruption)$' \
						"$c: caught ($o: $(q "$m" "$f" "$w" "$v" .reason | cut -c1-160))"
				fi
			done
			for v in $(adaptive_modes "$f"); do
				is "$(q "$m" "$f" "$w" "$v" '.metrics["'"$w"'.notices"]')" 1 \
					"$m $f $w@$v: the kernel said once that the device switched"
				like "$(q "$m" "$f" "$w" "$v" .reason)" \
					'; 1 SAC fallback notice, first at line [0-9]+: "sac_edu [0-9a-f:.]+: Using [0-9]+-bit DMA addresses"' \
					"$m $f $w@$v: the reason quotes the notice, naming the device"
			done
			like "$(q "$m" "$f" "$w" strict '.results[0].details.outcome')" \
				'^clean mapping error' \
				"$m $f $w@strict: the mapping was refused, no byte harmed ($(q "$m" "$f" "$w" strict '.results[0].details.sac'))"
		done
	done
done
done_testing
