#!/bin/sh
# Nothing of a farm run outlives its runner. A run of one stalled guest
# (QEMU up, waiting out its stage timeout) is (a) killed with SIGKILL,
# (b) sent SIGHUP, (c) sent SIGINT as soon as its console driver starts,
# before qemu.pid is written (as root, QEMU's tie writes it just before
# QEMU starts: a timeout that is slow to start makes sure the signal
# comes first): each time no QEMU, expect or other
# process of the run is left within 10 s, and no scratch disk, keyed
# initrd (it holds the job's key) or *.tmp.
# (d) A second run on the same --out is refused (exit 2, one error line)
# while the first holds it; the lock of the SIGKILLed run went with it.
# (e) The tie that starts timeout and QEMU (farm-runner --exec-tied)
# makes the program die with its parent, and runs nothing for a parent
# already gone.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/kernels.sh
. "$(dirname "$0")/../lib/kernels.sh"
need_kernels $SERIES-amd64-farm-desktop
farm=$top/farm/farm
tmp=$(mktemp -d)
pid='' tied=''
# a failed check must not leave the run's QEMUs behind either
cleanup() {
	for p in $pid $tied $(pgrep -f -- "$tmp/"); do
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
plan 27

# start NAME OUT [DIR]: a run of one stalled guest (variant NAME, with a
# scratch disk: workload blk) into OUT, in the background, with DIR
# first in its PATH: $pid is its
# runner (a script's background job ignores SIGINT: env undoes that),
# $job its job dir's glob, $procs the regex for its processes' argv,
# $qemu the one for its QEMU's (which, as root, names its files
# relative to the job dir: the guest's command line tells it).
start() {
	# shellcheck disable=SC2086 # $kernels: --kernel DIR
	env --default-signal=INT,HUP,TERM PATH="${3:+$3:}$PATH" \
		"$farm" run --machine x86-intel \
		--workload blk $kernels \
		--variant "$1=sac.stall=agent sac.note=lifecycle-$$-$1" \
		--out "$2" >"$tmp/$1.out" 2>&1 &
	pid=$!
	job="$2/*/jobs/*-$1-blk"
	procs="$2/[^ ]*-$1-blk/"
	qemu="qemu-system-.* sac\.note=lifecycle-$$-$1( |\$)"
}


# wait_for GLOB SECS: until a file matches GLOB (polled every 10 ms),
# while the runner lives.
wait_for() {
	n=0
	while [ "$n" -lt $(($2 * 100)) ]; do
		for f in $1; do
			[ -e "$f" ] && return 0
		done
		[ $((n % 10)) -ne 0 ] || running "$pid" || return 1
		sleep 0.01
		n=$((n + 1))
	done
	return 1
}

ms() {
	date +%s%3N
}

# reap: waits for the runner (killed after 15 s); $rc is its exit status.
reap() {
	(sleep 15 && kill -9 "$pid") 2>/dev/null &
	dog=$!
	wait "$pid" 2>/dev/null
	rc=$?
	kill "$dog" 2>/dev/null
	pid=''
}

# left REGEX: the processes whose command line matches, one a line.
left() {
	pgrep -af -- "$1" | cut -c 1-160
}

# gone NAME OUT T0: up to 10 s from T0 (ms) until nothing of run NAME
# in OUT is left; then one check each for QEMU, expect, any process of
# the run, and its scratch disk, keyed initrd and *.tmp files.
gone() {
	while [ $(($(ms) - $3)) -lt 10000 ] && [ -n "$(left "$2|$qemu")" ]; do
		sleep 0.1
	done
	took=$(($(ms) - $3))
	echo "# $1: $took ms until nothing of the run was left"
	left "$2|$qemu" | sed 's/^/# left: /'
	[ -z "$(left "$qemu")" ]
	ok $? "$1: no QEMU of the run is left within 10 s"
	[ -z "$(left "^expect .*$procs")" ]
	ok $? "$1: no expect of the run is left within 10 s"
	[ -z "$(left "$2|$qemu")" ]
	ok $? "$1: no process of the run (runner, worker, timeout) is left"
	files=$(find "$2" -name scratch.img -o -name keyed.cpio -o -name '*.tmp' 2>&1)
	[ -z "$files" ]
	ok $? "$1: no scratch disk, keyed initrd or *.tmp is left in the run dir"
	printf '%s\n' "$files" | sed '/^$/d; s/^/# left: /'
}

# --- (a) kill -9 mid-run ----------------------------------------------
start killed "$tmp/a"
# shellcheck disable=SC2086 # $job is a glob
wait_for "$job/qemu.pid" 60 && [ -e $job/scratch.img ]
ok $? "killed: QEMU is up (qemu.pid) with its scratch disk"
[ -n "$(left "^timeout .* --exec-tied timeout .*$qemu")" ]
ok $? "killed: QEMU was started through a tie to its timeout"
t0=$(ms)
kill -9 "$pid" 2>/dev/null
reap
gone killed "$tmp/a" "$t0"

# --- (d) a second run on a busy --out; the SIGKILLed run's lock went ----
start hup "$tmp/a"
wait_for "$job/qemu.pid" 60
ok $? "a new run on the SIGKILLed run's --out starts: its lock went with it"
# shellcheck disable=SC2086 # $kernels: --kernel DIR
"$farm" run --machine x86-intel --workload boot $kernels --out "$tmp/a" \
	>"$tmp/second.out" 2>&1
is "$?" 2 "a second run on the same --out exits 2"
sed 's/^/# /' "$tmp/second.out"
is "$(grep -c . "$tmp/second.out")" 1 "... with one line"
grep -q "^farm: error: another farm run holds $tmp/a/.lock" "$tmp/second.out"
ok $? "... which says another run holds $tmp/a/.lock"
is "$(find "$tmp/a" -mindepth 1 -maxdepth 1 -type d 2>&1 | wc -l)" 2 \
	"... and makes no run dir"

# --- (b) SIGHUP mid-run --------------------------------------------------
running "$pid" && [ -n "$(left "$qemu")" ]
ok $? "hup: the first run's QEMU is still up"
t0=$(ms)
kill -HUP "$pid" 2>/dev/null
reap
is "$rc" 2 "hup: the runner exits 2"
grep -q 'interrupted by SIGHUP' "$tmp/hup.out"
ok $? "hup: ... saying it was interrupted by SIGHUP"
gone hup "$tmp/a" "$t0"

# --- (c) SIGINT before QEMU wrote qemu.pid --------------------------------
# QEMU's tie writes qemu.pid within milliseconds of console.exp's start:
# here the timeout before it takes a second to start
mkdir "$tmp/slow"
printf '#!/bin/sh\nsleep 1\nexec %s "$@"\n' "$(command -v timeout)" \
	>"$tmp/slow/timeout"
chmod +x "$tmp/slow/timeout"
start int "$tmp/c" "$tmp/slow"
wait_for "$job/console.log" 60
ok $? "int: the console driver has started"
t0=$(ms)
kill -INT "$pid" 2>/dev/null
# shellcheck disable=SC2086 # $job is a glob
! [ -e $job/qemu.pid ]
ok $? "int: SIGINT came before QEMU wrote qemu.pid"
reap
grep -q 'interrupted by SIGINT' "$tmp/int.out"
ok $? "int: the runner says it was interrupted by SIGINT"
gone int "$tmp/c" "$t0"

# --- (e) the tie each link of the chain is started through ----------------
runner=$BUILD_DIR/host/farm-runner
sh -c '"$0" --exec-tied sh sleep 600 & wait' "$runner" \
	</dev/null >/dev/null 2>&1 &
pid=$!
n=0
while [ $n -lt 100 ] && ! pgrep -P "$pid" -x sleep >/dev/null; do
	sleep 0.05
	n=$((n + 1))
done
tied=$(pgrep -P "$pid" -x sleep)
kill -9 "$pid"
reap
sleep 0.5
[ -n "$tied" ] && ! ps -o stat= -p "$tied" | grep -qv Z
ok $? "a program started through a tie dies with its parent"
"$runner" --exec-tied no-such-parent touch "$tmp/ran"
rc=$?
[ "$rc" -eq 137 ] && ! [ -e "$tmp/ran" ]
ok $? "a tie whose parent is already gone runs nothing (exit $rc)"

done_testing
