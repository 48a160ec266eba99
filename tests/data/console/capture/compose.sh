#!/bin/sh
# Build the composed cases in tests/data/console/ from the captured ones:
# real boot logs with a few lines spliced in, cut, or rewritten (README.md
# says which is which). Run after capture.sh; takes no time, needs no QEMU.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=$(dirname "$here")
top=$(cd "$data/../../.." && pwd)
cd "$data"
nonce=5ac0ffee00c0ffee
# A case whose agent lines change as the agent itself could have written
# them is chained afresh by the agent's own line writer (under the cases'
# key); one that breaks the chain on purpose is not.
make -s -C "$top" -f farm/guest/guest.mk guest-unit
unit=${BUILD_DIR:-$top/build}/guest/host/agent-unit
chain() { # CASE
	"$unit" sign "$(cat key)" $nonce <"$1/console.log" >"$1/console.log.new"
	mv "$1/console.log.new" "$1/console.log"
}
# Where an agent line's JSON starts: "SAC <nonce> <kind> <seq> <mac> ".
chained='[0-9]+ [0-9a-f]+ '

# splice SRC DST AWK-PROGRAM: rewrite SRC's log into DST; the program sees
# each line (with its CRs stripped into variable cr) and prints with say().
splice() {
	mkdir -p "$2"
	awk -v nonce=$nonce -v chained="$chained" '
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
	say(substr(line, 1, index(line, "\"status\"") + 11))
	next
}
{ say(line) }'

# forged: the real second result (a fail) rewritten as a pass, in place,
# with its seq and mac: what a guest process that knows the nonce but not
# the key can do. Must not pass: the mac does not verify.
splice workload-fail forged '
line ~ ("^SAC " nonce " result") && n++ == 1 {
	sub(/"status":"fail","reason":"[^"]*"/, "\"status\":\"pass\",\"reason\":\"forged\"", line)
	say(line)
	next
}
{ say(line) }'

# stale: a complete, passing job plus one line left by an earlier job.
splice pass stale '
line ~ ("^SAC " nonce " start") {
	say("SAC 0badc0de0badc0de done 7 5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee {\"results\":2}")
}
{ say(line) }'

# truncated: the log stops in the middle of the second result line, just
# after its "pass", and the console driver timed out waiting for it.
mkdir -p truncated
awk -v nonce=$nonce '$0 ~ ("^SAC " nonce " result") && n++ == 1 {
	printf "%s", substr($0, 1, index($0, "\"status\":\"pass\"") + 14); exit }
	{ print }' pass/console.log >truncated/console.log
printf 'event=timeout\nstage=ok\nqemu_status=signal:9\nt_kernel_ms=1192\nt_iommu_ms=1890\nt_agent_ms=2605\nt_ok_ms=2608\n' \
	>truncated/status

# no-status: the same log, but the console driver never wrote its status.
mkdir -p no-status
cp truncated/console.log no-status/console.log
rm -f no-status/status
# kernel_error CASE LINE...: a pass log with kernel lines (printed while
# the first workload runs; the agent still finishes) after its first begin.
kernel_error() {
	name=$1
	shift
	for l in "$@"; do printf '%s\n' "$l"; done >"$name.lines"
	splice pass "$name" '
	BEGIN { while ((getline l < "'"$name.lines"'") > 0) add[n_add++] = l }
	line ~ ("^SAC " nonce " begin") && !n++ {
		say(line)
		for (i = 0; i < n_add; i++)
			say(add[i])
		next
	}
	{ say(line) }'
	rm -f "$name.lines"
}

# rcu-stall: kernel/rcu/tree_stall.h's report of a stalled grace period.
kernel_error rcu-stall \
	'[   23.411823] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:' \
	'[   23.412190] rcu: 	Tasks blocked on level-0 rcu_node (CPUs 0-0): P41' \
	'[   23.412517] 	(detected by 0, t=5252 jiffies, g=-1155, q=1 ncpus=1)' \
	'[   23.412863] task:kworker/0:2     state:R  running task     stack:0     pid:41    ppid:2      flags:0x00004000' \
	'[   23.413338] Workqueue: events sac_edu_poll [sac_edu]'

# hung-task: kernel/hung_task.c (hung_task_timeout_secs=2).
kernel_error hung-task \
	'[    4.513067] INFO: task kworker/0:2:41 blocked for more than 2 seconds.' \
	'[    4.513402]       Not tainted 6.1.192-sac-desktop #1' \
	'[    4.513650] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.' \
	'[    4.514028] task:kworker/0:2     state:D stack:0     pid:41    ppid:2      flags:0x00004000' \
	'[    4.514470] Call Trace:' \
	'[    4.514611]  <TASK>' \
	'[    4.514733]  __schedule+0x2f6/0x8f0' \
	'[    4.514940]  </TASK>'

# soft-lockup: kernel/watchdog.c; its "BUG:" is not an oops.
kernel_error soft-lockup \
	'[   24.104217] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [sac-agent:1]' \
	'[   24.104613] Modules linked in: sac_edu(O)' \
	'[   24.104862] CPU: 0 PID: 1 Comm: sac-agent Tainted: G           O       6.1.192-sac-desktop #1' \
	'[   24.105345] RIP: 0010:sac_edu_wait+0x2b/0x60 [sac_edu]'

# hard-lockup: kernel/watchdog_hld.c (x86 NMI watchdog, hardlockup_panic=0).
kernel_error hard-lockup \
	'[   12.871502] NMI watchdog: Watchdog detected hard LOCKUP on cpu 0' \
	'[   12.871502] Modules linked in: sac_edu(O)' \
	'[   12.871502] CPU: 0 PID: 0 Comm: swapper/0 Tainted: G           O       6.1.192-sac-desktop #1' \
	'[   12.871502] RIP: 0010:sac_edu_irq+0x31/0x70 [sac_edu]'

# nvme-timeout: drivers/nvme/host/pci.c, a command the device never completes.
kernel_error nvme-timeout \
	'[   33.482105] nvme nvme0: I/O 12 (Write) QID 1 timeout, aborting' \
	'[   33.482611] nvme nvme0: Abort status: 0x0' \
	'[   63.562135] nvme nvme0: I/O 12 QID 1 timeout, reset controller' \
	'[   63.601847] nvme nvme0: 1/0/0 default/read/poll queues'

# probe-failed: drivers/base/dd.c, 6.1's wording.
kernel_error probe-failed \
	'[    2.391276] sac_edu 0000:00:02.0: DMA test transfer did not complete' \
	'[    2.391533] sac_edu: probe of 0000:00:02.0 failed with error -5'

# dma-api: kernel/dma/debug.c's err_printk, a WARN (CONFIG_DMA_API_DEBUG).
kernel_error dma-api \
	'[    2.418102] ------------[ cut here ]------------' \
	'[    2.418390] DMA-API: sac_edu 0000:00:02.0: device driver frees DMA memory with different size [device address=0x00000000fffff000] [map size=4096 bytes] [unmap size=2048 bytes]' \
	'[    2.418688] WARNING: CPU: 0 PID: 1 at kernel/dma/debug.c:984 check_unmap+0x6a1/0x8a0' \
	'[    2.418871] Modules linked in: sac_edu(O)' \
	'[    2.419152] CPU: 0 PID: 1 Comm: sac-agent Tainted: G           O       6.1.192-sac-desktop #1' \
	'[    2.419597] RIP: 0010:check_unmap+0x6a1/0x8a0' \
	'[    2.421006] ---[ end trace 0000000000000000 ]---'

# err-flood: 40 block I/O errors (err level, no class of their own) and
# the agent's dmesg counts that say so.
splice pass err-flood '
line ~ ("^SAC " nonce " begin") && !n++ {
	say(line)
	for (i = 0; i < 40; i++)
		say(sprintf("[    2.%06d] I/O error, dev vda, sector %d op 0x1:(WRITE) flags 0x8800 phys_seg 1 prio class 2",
			    420000 + 731 * i, 2048 + 8 * i))
	next
}
line ~ ("^SAC " nonce " dmesg") {
	sub(/"err":2/, "\"err\":42", line)
}
{ say(line) }'
chain err-flood

# interleaved: a kernel record (with its newline) lands inside the second
# result line, as printk output does between the agent's UART chunks.
splice pass interleaved '
line ~ ("^SAC " nonce " result") && n++ == 1 {
	i = index(line, "\"status\"")
	say(substr(line, 1, i + 4) "[    1.498211] random: crng init done")
	say(substr(line, i + 5))
	next
}
{ say(line) }'

# interleaved-fault: the DMAR fault records land inside the dmar result.
splice iommu-fault-dmar interleaved-fault '
/DMAR: DRHD: handling fault|DMAR: \[DMA Read/ { fault[nf++] = line; next }
line ~ ("^SAC " nonce " result " chained "\\{\"workload\":\"dmar\"") {
	i = index(line, "\"status\"")
	say(substr(line, 1, i + 4) fault[0])
	say(fault[1])
	say(substr(line, i + 5))
	next
}
{ say(line) }'

# interleaved-broken: the same, but the result line never gets its tail
# (the rest was lost): the agent line cannot be rejoined.
splice pass interleaved-broken '
line ~ ("^SAC " nonce " result") && n++ == 1 {
	i = index(line, "\"status\"")
	say(substr(line, 1, i + 4) "[    1.498211] random: crng init done")
	next
}
{ say(line) }'

# log-flood: console.exp dropped the middle of a printk storm (its marker
# between head and tail, log_dropped in the status); the agent finished.
splice pass log-flood '
line ~ ("^SAC " nonce " begin") && !n++ {
	say(line)
	for (i = 0; i < 400; i++)
		say(sprintf("[    2.%06d] sac_edu 0000:00:02.0: DMA status 0x4 after %d polls", 420000 + i, i))
	printf "console.exp: 52428800 bytes dropped\n"
	for (i = 0; i < 400; i++)
		say(sprintf("[    9.%06d] sac_edu 0000:00:02.0: DMA status 0x4 after %d polls", 420000 + i, 700000 + i))
	next
}
{ say(line) }'
echo log_dropped=52428800 >>log-flood/status

echo "composed: oops iommu-fault-smmuv3 infra-error forged stale truncated no-status"
echo "composed: rcu-stall hung-task soft-lockup hard-lockup nvme-timeout probe-failed dma-api"
echo "composed: err-flood interleaved interleaved-fault interleaved-broken log-flood"
