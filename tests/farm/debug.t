#!/bin/sh
# The per-device SAC state under churn (patches 0002, 0003), on the debug
# farm base (KASAN and lockdep): sac-race unbinds and binds the edu
# driver and removes and rescans pci-testdev while a second process reads
# and writes their iommu_dma_sac/ files, on every hardware IOMMU of both
# arches. A use of a freed dev_iommu, a lock held wrongly or a sleep in
# atomic context would be a KASAN, lockdep or might_sleep report, which
# the classifier makes an oops. The agent checks the end state itself:
# policies back (the specific list entry winning), counters root-only.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
farm_test $SERIES-amd64-debug-desktop $SERIES-arm64-debug-desktop
machines="x86-intel x86-amd arm64-smmuv3"
variants="default pt"
plan $((3 * 2 * 4 + 1))

# With iommu.passthrough=1 (variant pt) the devices sit in identity
# domains, where iommu-dma allocates nothing: policy and source are none.
# shellcheck disable=SC2086
"$farm" run $(for m in $machines; do echo --machine "$m"; done) $kernels \
	--workload sac-race --out "$tmp/m" \
	--variant default= \
	--variant "pt=iommu.passthrough=1 sac.sac-race.expect=1234:11e8=none/none,1b36:0005=none/none" \
	>"$tmp/m.out" 2>&1
sed 's/^/# /' "$tmp/m.out"
run=$tmp/m/latest
res=$run/results.json

# q MACHINE VARIANT JQ: JQ applied to that cell's record
q() {
	jq -r --arg m "$1" --arg v "$2" '.records[] | select(.axes.machine == $m
		and .axes.variant == $v and .axes.workload == "sac-race") | '"$3" \
		"$res" 2>/dev/null
}

for m in $machines; do
	for v in $variants; do
		log=$(q "$m" "$v" '.log // empty')
		[ -n "$log" ] && log=$run/$log
		is "$(q "$m" "$v" .outcome)" pass \
			"$m $v: sac-race passes on the KASAN kernel ($(q "$m" "$v" .reason))"
		grep -q 'KernelAddressSanitizer initialized' "$log" 2>/dev/null
		ok $? "$m $v: the kernel that ran it has KASAN on"
		! grep -q 'BUG: KASAN\|possible circular locking\|suspicious RCU usage\|sleeping function called from invalid context' "$log" 2>/dev/null
		ok $? "$m $v: no KASAN, lockdep or might_sleep report"
		r=$(q "$m" "$v" '.metrics["sac-race.rounds"]')
		[ "${r:-0}" -ge 20 ]
		ok $? "$m $v: all $r rounds of unbind/bind and remove/rescan ran"
	done
done
is "$(jq -r '.records | length' "$res")" 6 "one sac-race cell per machine and variant"
done_testing
