#!/bin/sh
# Build the composed cases in tests/data/console/ from the captured ones:
# real boot logs with a few lines spliced in, cut, or rewritten (README.md
# says which is which). Run after capture.sh; takes no time, needs no QEMU.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=$(dirname "$here")
cd "$data"
nonce=5ac0ffee00c0ffee

# splice SRC DST AWK-PROGRAM: rewrite SRC's log into DST; the program sees
# each line (with its CRs stripped into variable cr) and prints with say().
splice() {
	mkdir -p "$2"
	awk -v nonce=$nonce '
	function say(s) { printf "%s%s\n", s, cr }
	{ cr = $0; sub(/^[^\r]*/, "", cr); line = $0; sub(/\r+$/, "", line) }
	'"$3" "$1/console.log" >"$2/console.log"
	cp "$1/status" "$2/status"
}

# oops: an x86 NULL dereference in a kworker while the first workload runs
# (the system survives, so the agent still finishes).
splice pass oops '
line ~ ("^SAC " nonce " begin") && !n++ {
	say(line)
	say("[    2.417731] BUG: kernel NULL pointer dereference, address: 0000000000000008")
	say("[    2.418102] #PF: supervisor read access in kernel mode")
	say("[    2.418390] #PF: error_code(0x0000) - not-present page")
	say("[    2.418688] PGD 0 P4D 0 ")
	say("[    2.418871] Oops: 0000 [#1] PREEMPT SMP NOPTI")
	say("[    2.419152] CPU: 0 PID: 41 Comm: kworker/0:2 Not tainted 6.1.192-sac-desktop #1")
	say("[    2.419597] RIP: 0010:iommu_dma_unmap_page+0x1c/0x90")
	say("[    2.421006] ---[ end trace 0000000000000000 ]---")
	next
}
{ say(line) }'

# iommu-fault-smmuv3: the Intel fault replaced by the arm64 SMMUv3 event the
# same transfer raises there (measured-facts.md), with its event dump.
splice iommu-fault-dmar iommu-fault-smmuv3 '
/DMAR: DRHD: handling fault/ { next }
/DMAR: \[DMA Read/ {
	say("[    1.176086] arm-smmu-v3 9050000.smmuv3: event 0x10 received:")
	say("[    1.176190] arm-smmu-v3 9050000.smmuv3: \t0x0000000800000010")
	say("[    1.176262] arm-smmu-v3 9050000.smmuv3: \t0x0000020080000000")
	say("[    1.176330] arm-smmu-v3 9050000.smmuv3: \t0x0000007ffffff000")
	say("[    1.176398] arm-smmu-v3 9050000.smmuv3: \t0x0000000000000000")
	next
}
/qemu-system-x86_64: / { next }
{ say(line) }'

# infra-error: the second result line is not JSON (a line cut by a reset).
splice pass infra-error '
line ~ ("^SAC " nonce " result") && n++ == 1 {
	say("SAC " nonce " result {\"workload\":\"ok\",\"status\":\"pa")
	next
}
{ say(line) }'

# forged: the real second result is gone; a line with another nonce claims
# it passed. Must not pass.
splice workload-fail forged '
line ~ ("^SAC " nonce " result") && n++ == 1 {
	say("SAC 0123456789abcdef result {\"workload\":\"fail\",\"status\":\"pass\",\"reason\":\"forged\",\"metrics\":{},\"details\":{}}")
	next
}
{ say(line) }'

# stale: a complete, passing job plus one line left by an earlier job.
splice pass stale '
line ~ ("^SAC " nonce " start") {
	say("SAC 0badc0de0badc0de done {\"results\":2}")
}
{ say(line) }'

# truncated: the log stops in the middle of the second result line and the
# console driver timed out waiting for it.
mkdir -p truncated
awk -v nonce=$nonce '$0 ~ ("^SAC " nonce " result") && n++ == 1 {
	printf "%s", substr($0, 1, 60); exit } { print }' \
	pass/console.log >truncated/console.log
printf 'event=timeout\nstage=ok\nqemu_status=signal:9\nt_kernel_ms=1192\nt_iommu_ms=1890\nt_agent_ms=2605\nt_ok_ms=2608\n' \
	>truncated/status

# no-status: the same log, but the console driver never wrote its status.
mkdir -p no-status
cp truncated/console.log no-status/console.log
rm -f no-status/status
echo "composed: oops iommu-fault-smmuv3 infra-error forged stale truncated no-status"
