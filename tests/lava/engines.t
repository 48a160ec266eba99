#!/bin/sh
# The same cells through both engines end in the same outcome class: on
# x86-intel and arm64-smmuv3, both flavours, boot passes and the lying
# edu device is caught on server (iommu-fault) and passes on desktop.
# The lava-run run is a normal run dir: results.json with LAVA's own
# verdict per record, and the release gate judges it unchanged. Through
# lava-run, a guest that panics (LAVA: infrastructure error) is a panic,
# a stalled agent is a hang that leaves no QEMU, and a lava-run that
# cannot start is an infra-error saying so: never a pass. A lava-run job
# interrupted mid-boot (SIGINT or SIGKILL to the runner, SIGKILL to its
# worker) leaves no QEMU, no lava-run and no LAVA download dir within
# 10 s; one whose runner and worker were SIGKILLed together leaves its
# dir, which the next lava-run run removes, while a live job's dir
# survives another run's start.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/kernels.sh
. "$(dirname "$0")/../lib/kernels.sh"
farm=$top/farm/farm
command -v lava-run >/dev/null || skip_all "lava-run missing (make deps: lava-dispatcher)"
[ "$(id -u)" = 0 ] || skip_all "lava-run must run as root"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
need_kernels $SERIES-amd64-farm-desktop $SERIES-amd64-farm-server $SERIES-arm64-farm-desktop $SERIES-arm64-farm-server
desktop=$BUILD_DIR/kernel/$SERIES-amd64-farm-desktop
tmp=$(mktemp -d)
pid=''
# a failed check must not leave a stalled run's QEMU behind
cleanup() {
	for p in $pid $(pgrep -f "sac\.note=engines-$$-"); do
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
lava_tmp=/var/lib/lava/dispatcher/tmp
cells="--machine x86-intel --machine arm64-smmuv3 --workload boot --workload edu-lying"
plan 52

# outcome RUN MACHINE FLAVOUR WORKLOAD
outcome() {
	jq -r --arg m "$2" --arg f "$3" --arg w "$4" '.records[] |
		select(.axes.machine == $m and .axes.flavour == $f and
		.axes.workload == $w) | .outcome' "$tmp/$1/latest/results.json" \
		2>/dev/null
}

# shellcheck disable=SC2086
"$farm" run $cells $kernels --out "$tmp/local" >"$tmp/local.out" 2>&1
ok $? "the local engine runs the 8 cells as expected"
# shellcheck disable=SC2086
"$farm" run --engine lava-run $cells $kernels --out "$tmp/lava" \
	>"$tmp/lava.out" 2>&1
ok $? "the lava-run engine runs the 8 cells as expected"
sed 's/^/# /' "$tmp/lava.out"

for m in x86-intel arm64-smmuv3; do
	for f in desktop server; do
		for w in boot edu-lying; do
			want=pass
			[ "$w/$f" = edu-lying/server ] && want=iommu-fault
			is "$(outcome lava "$m" "$f" "$w")" "$want" \
				"lava-run: $m $f $w is $want"
			is "$(outcome lava "$m" "$f" "$w")" \
				"$(outcome local "$m" "$f" "$w")" \
				"$m $f $w: both engines give the same outcome"
		done
	done
done

res=$tmp/lava/latest/results.json
is "$(jq '[.records[] | select(.lava.job == "pass")] | length' "$res")" 8 \
	"LAVA itself passed every job"
is "$(jq '[.records[] | select(.lava.cases[.axes.workload] ==
	(.results[0].status))] | length' "$res")" 8 \
	"LAVA's test case for each workload says what the agent said"
is "$(jq -r '.records[] | select(.axes.flavour == "server" and
	.axes.workload == "edu-lying") | .lava.cases["edu-lying"]' "$res" |
	sort -u)" fail "LAVA records the lying device's transfers as failed"
gate=$("$farm" gate "$tmp/lava/latest" 2>&1)
rc=$?
is "$rc" 0 "the release gate judges the lava-run run unchanged (exit 0)"
like "$gate" '^VERDICT: SHIP' "and its verdict is SHIP"

# --- a panicking guest: LAVA's infrastructure error, our panic ----------
for e in local lava-run; do
	"$farm" run --engine "$e" --machine x86-intel --workload boot \
		--kernel "$desktop" --variant noinit=rdinit=/no-such-init \
		--out "$tmp/panic-$e" >"$tmp/panic-$e.out" 2>&1
done
is "$(jq -r '.records[0].outcome' "$tmp/panic-lava-run/latest/results.json")" \
	panic "lava-run: a guest without an init is a panic"
is "$(jq -r '.records[0].outcome' "$tmp/panic-local/latest/results.json")" \
	panic "local: the same guest is a panic too"
is "$(jq -r '.records[0].lava.error_type' "$tmp/panic-lava-run/latest/results.json")" \
	Infrastructure "LAVA calls it an infrastructure error, and it is not a pass"

# --- a stalled agent: a hang, and no QEMU left ---------------------------
"$farm" run --engine lava-run --machine x86-intel --workload boot \
	--kernel "$desktop" --variant stall=sac.stall=agent --out "$tmp/hang" \
	>"$tmp/hang.out" 2>&1
rec=$(jq -c '.records[0]' "$tmp/hang/latest/results.json")
is "$(printf '%s' "$rec" | jq -r .outcome)" hang "lava-run: a stalled agent is a hang"
like "$(printf '%s' "$rec" | jq -r .reason)" 'timed out waiting for stage (agent|boot)' \
	"the hang names the stage it stalled in"
nonce=$(printf '%s' "$rec" | jq -r .nonce)
! pgrep -f "sac.nonce=$nonce" >/dev/null
ok $? "no QEMU of the hung job is left running"
[ ! -e "/var/lib/lava/dispatcher/tmp/farm-$nonce" ]
ok $? "nor LAVA's download dir"

# --- interrupted lava-run jobs -----------------------------------------

# stalled NAME: a lava-run run of one stalled guest, in the background
# ($pid); returns once its QEMU is up, with $nonce its job's nonce and
# $dir LAVA's download dir for it.
stalled() {
	env --default-signal=INT,HUP,TERM "$farm" run --engine lava-run \
		--machine x86-intel --workload boot --kernel "$desktop" \
		--variant "$1=sac.stall=agent sac.note=engines-$$-$1" \
		--out "$tmp/int-$1" >"$tmp/int-$1.out" 2>&1 &
	pid=$!
	nonce=''
	n=0
	while [ $n -lt 600 ] && [ -z "$nonce" ]; do
		nonce=$(pgrep -af "^[^ ]*qemu-system-.*sac\.note=engines-$$-$1( |\$)" |
			sed -n 's/.*sac\.nonce=\([0-9a-f]\{16\}\).*/\1/p' | head -n 1)
		sleep 0.1
		n=$((n + 1))
	done
	dir=$lava_tmp/farm-$nonce
	[ -n "$nonce" ] && [ -d "$dir" ]
	ok $? "$1: lava-run's QEMU is up, its download dir made"
}

# gone NAME: up to 10 s until no QEMU or lava-run of the job is left.
gone() {
	n=0
	while [ $n -lt 100 ] && pgrep -f "sac\.nonce=$nonce|farm-$nonce" >/dev/null; do
		sleep 0.1
		n=$((n + 1))
	done
	pgrep -af "sac\.nonce=$nonce|farm-$nonce" | cut -c 1-160 | sed 's/^/# left: /'
	! pgrep -f "sac\.nonce=$nonce|farm-$nonce" >/dev/null
	ok $? "$1: no QEMU or lava-run of the job is left within 10 s"
}

# quick NAME: a lava-run run of one boot (it passes)
quick() {
	"$farm" run --engine lava-run --machine x86-intel --workload boot \
		--kernel "$desktop" --out "$tmp/$1" >"$tmp/$1.out" 2>&1
}

# ended NAME RC WHAT: the run of stalled NAME, signalled, exits RC, and
# leaves no QEMU, lava-run, download dir or lock of its job.
ended() {
	wait "$pid" 2>/dev/null
	is "$?" "$2" "$1: the runner exits $2"
	pid=''
	gone "$1"
	! [ -e "$dir" ] && ! [ -e "$dir.lock" ]
	ok $? "$1: $3"
}

stalled int
kill -INT "$pid"
ended int 2 "LAVA's download dir and its lock are gone"

stalled killed
kill -9 "$pid"
ended killed 137 "the worker removed the dir and its lock when the runner died"

# what the runner does to a worker past its deadline: the job is lost
stalled worker
kill -9 $(pgrep -P "$pid") $(pgrep -f "lava-run --job-id farm-$nonce")
ended worker 1 "the runner removed the dir and its lock when it reaped the worker"

stalled all
quick live
ok $? "another lava-run run meanwhile passes"
[ -d "$dir" ] && [ -e "$dir.lock" ]
ok $? "... and its start leaves the live job's dir and lock alone"
kill -9 "$pid" $(pgrep -P "$pid") $(pgrep -f "lava-run --job-id farm-$nonce")
wait "$pid" 2>/dev/null
pid=''
gone all
[ -d "$dir" ] && [ -e "$dir.lock" ]
ok $? "all: runner, worker and lava-run SIGKILLed leave the dir and lock"
quick next
! [ -e "$dir" ] && ! [ -e "$dir.lock" ]
ok $? "all: the next lava-run run's start removes them"

# --- a lava-run that cannot start ----------------------------------------
FARM_LAVA_RUN=$tmp/no-such-lava-run "$farm" run --engine lava-run \
	--machine x86-intel --workload boot --kernel "$desktop" \
	--out "$tmp/none" >"$tmp/none.out" 2>&1
[ $? -eq 1 ]
ok $? "a run whose lava-run cannot start exits 1"
rec=$(jq -c '.records[0]' "$tmp/none/latest/results.json")
is "$(printf '%s' "$rec" | jq -r .outcome)" infra-error "and its job is an infra-error"
like "$(printf '%s' "$rec" | jq -r .reason)" "lava-run ended .*cannot run $tmp/no-such-lava-run" \
	"whose reason says lava-run could not be run"

out=$("$farm" run --engine lava 2>&1)
[ $? -eq 2 ] && printf '%s' "$out" | grep -q "unknown engine 'lava'"
ok $? "an unknown engine is refused by name"

done_testing
