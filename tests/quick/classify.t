#!/bin/sh
# classify + console.exp: every captured/composed console case gets the
# right outcome with the right evidence, and the console driver writes the
# right status file against a fake QEMU, leaving no process behind; a
# flooded console is capped to its head and tail and its end still judged.
. "$(dirname "$0")/../lib/tap.sh"
cls=$BUILD_DIR/host/classify
unit=$BUILD_DIR/host/classify-unit
agent=$BUILD_DIR/guest/host/agent-unit
exp=$top/farm/console.exp
data=$top/tests/data/console
keyfile=$data/key
nonce=5ac0ffee00c0ffee
[ -x "$cls" ] && [ -x "$unit" ] ||
	skip_all "build first: make -f farm/classify/classify.mk classify"
command -v expect >/dev/null || skip_all "expect not installed"
# the agent's own line writer chains the fake QEMU's agent lines
make -s -C "$top" -f farm/guest/guest.mk guest-unit BUILD_DIR="$BUILD_DIR" \
	>/dev/null 2>&1 || skip_all "cannot build agent-unit"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

cases=$(for c in "$data"/*/case; do basename "$(dirname "$c")"; done)
checks=0
for c in $cases; do
	checks=$((checks + 2 + $(grep -Ec '^(evidence|reason|stage|json)=' \
		"$data/$c/case")))
done
plan $((checks + 6 + 25 + 4 + 12))

# field NAME: the first top-level "NAME": value of the record on stdin,
# strings unquoted (the record is compact JSON in a fixed key order).
field() {
	awk -v k="\"$1\":" '{
		i = index($0, k); if (!i) exit
		v = substr($0, i + length(k))
		if (substr(v, 1, 1) != "\"") { sub(/[,}].*/, "", v); print v; exit }
		out = ""
		for (j = 2; j <= length(v); j++) {
			ch = substr(v, j, 1)
			if (ch == "\"") break
			if (ch == "\\") { j++; ch = substr(v, j, 1) }
			out = out ch
		}
		print out; exit
	}'
}

for c in $cases; do
	d=$data/$c
	get() { sed -n "s/^$1=//p" "$d/case"; }
	"$cls" --log "$d/console.log" --status "$d/status" --key "$keyfile" \
		--nonce $nonce --workloads "$(get workloads)" >"$t/out" 2>"$t/err"
	ok $? "$c: classify exits 0"
	out=$(cat "$t/out")
	is "$(printf '%s' "$out" | field outcome)" "$(get outcome)" "$c: outcome"
	for key in evidence reason stage; do
		re=$(get $key)
		[ -n "$re" ] || continue
		like "$(printf '%s' "$out" | field $key)" "$re" "$c: $key /$re/"
	done
	get json >"$t/json"
	while IFS= read -r re; do
		like "$out" "$re" "$c: record has /$re/"
	done <"$t/json"
done

# --- the command line ---
"$unit" >"$t/unit" 2>&1
r=$?
grep '^not ok' "$t/unit" | sed 's/^/# /'
ok $r "unit tests ($(grep -c '^ok' "$t/unit") line patterns and bounds)"
"$cls" --log x --status y --key "$keyfile" --nonce ABC --workloads w 2>"$t/err" >/dev/null
is "$?:$(wc -l <"$t/err")" "2:1" "bad nonce: exit 2, one stderr line"
"$cls" --log x --status y 2>"$t/err" >/dev/null
like "$?:$(cat "$t/err")" "^2:classify: usage: " "missing options: exit 2 and usage"
"$cls" --log x --status y --key "$keyfile" --nonce $nonce --workloads '../x' 2>/dev/null
is $? 2 "workload name that is not a name: exit 2"
"$cls" --log "$t" --status "$data/pass/status" --key "$keyfile" --nonce $nonce \
	--workloads ok 2>"$t/err" >/dev/null
like "$?:$(cat "$t/err")" "^2:classify: $t: read error" "log is a directory: exit 2"
out=$("$cls" --log "$t/missing.log" --status "$data/pass/status" \
	--key "$keyfile" --nonce $nonce --workloads ok,ok)
like "$?:$out" "^0:.*\"outcome\":\"infra-error\",\"reason\":\"console log [^\"]*missing.log is missing" \
	"missing log: infra-error record naming it"

# --- a log too big to read whole: its head and tail are judged ---
# The pass log with 40 MB of printk storm between its two results.
p=$data/pass/console.log
storm() { yes '[    3.000000] virtio_blk virtio1: [vda] I/O error' | head -c 40000000; }
{ head -n 243 "$p"; storm; printf '\n'; tail -n +244 "$p"; } >"$t/big.log"
# 300 MiB (sparse: NULs, which the classifier drops) past the old 256 MiB
# limit, ending in a panic.
head -n 243 "$p" >"$t/bigpanic.log"
truncate -s 300M "$t/bigpanic.log"
printf '\n[   60.000000] Kernel panic - not syncing: storm\n' >>"$t/bigpanic.log"
"$cls" --log "$t/bigpanic.log" --status "$data/pass/status" --key "$keyfile" --nonce $nonce \
	--workloads ok,ok >"$t/out"
like "$?:$(cat "$t/out")" '^0:\{"outcome":"panic".*"evidence":"\[   60.000000\] Kernel panic - not syncing: storm"' \
	"300 MiB log ending in a panic: panic (its tail is read)"
like "$(cat "$t/out")" '"dropped":[1-9][0-9]{8}' "300 MiB log: the bytes not read are counted"
"$cls" --log "$t/big.log" --status "$data/pass/status" --key "$keyfile" --nonce $nonce \
	--workloads ok,ok >"$t/out"
like "$?:$(field reason <"$t/out")" \
	"^0:console log flooded: [0-9]+ bytes dropped \(classifier read limit\)" \
	"40 MB log, nothing decisive: log-flood, not infra-error"
like "$(cat "$t/out")" '"results":\[\{[^]]*\},\{"workload":"ok"' \
	"40 MB log: the result after the storm is still read"
rm -f "$t/big.log" "$t/bigpanic.log"

# --- console.exp against a fake QEMU ---
n2=0123456789abcdef
# The fake's agent lines: start, w1's result, w2's, done.
printf 'SAC %s %s\n' "$n2 start" '{"agent":"sac-agent","version":2}' \
	"$n2 result" '{"workload":"w1","status":"pass"}' \
	"$n2 result" '{"workload":"w2","status":"pass"}' "$n2 done" '{"results":2}' |
	"$agent" sign "$(cat "$keyfile")" $n2 >"$t/lines"
cat >"$t/qemu" <<'EOF'
#!/bin/sh
# fake QEMU: boot-like lines, then whatever $1 says.
echo $$ >"$FAKE_DIR/pid"
agent() { printf '%s\r\n' "$(sed -n "$1p" "$FAKE_DIR/lines")"; }
printf 'SeaBIOS\r\n[    0.000000] Linux version 6.1.192 (fake)\r\n'
printf '[    0.5] DMAR: Intel(R) Virtualization Technology for Directed I/O\r\n'
[ "$1" = boot ] && { sleep 1000 & echo $! >"$FAKE_DIR/child"; wait; }
agent 1
agent 2
case $1 in
done)
	printf 'junk\000\377\033[0m\n'
	head -c 5000 /dev/zero | tr '\0' 'G'
	printf '\r\n'
	agent 3
	agent 4
	exit 0 ;;
flood*)	# a printk storm, a newline-free run, then a panic or the rest
	awk 'BEGIN { for (i = 0; i < 20000; i++)
		printf "[    3.%06d] virtio_blk virtio1: [vda] I/O error, sector %d\n", i, i }'
	head -c 40000 /dev/zero | tr '\0' F
	if [ "$1" = flood ]; then
		printf '\n[   60.000000] Kernel panic - not syncing: flood\n'
		exit 0
	fi
	printf '\n'
	agent 3
	agent 4
	exit 0 ;;
exit3)	exit 3 ;;
abort)	printf 'qemu: hardware error: fake\n'; kill -ABRT $$ ;;
hang)	sleep 1000 & echo $! >"$FAKE_DIR/child"; wait ;;
partial) printf 'no newline yet'; sleep 1000 & echo $! >"$FAKE_DIR/child"; wait ;;
esac
EOF
chmod +x "$t/qemu"

# The stage sequence as the runner hands it over (farm/common/stages.c):
# NAME SECS MARK, with workloads w1 and w2 (the second's timeout $1).
stages() {
	printf '%s\n' kernel 2 'Linux version' iommu 2 'DMAR: Intel\(R\)' \
		agent 2 "^SAC $n2 start( |\$)" w1 2 "^SAC $n2 result( |\$)" \
		w2 "$1" "^SAC $n2 result( |\$)" poweroff 2 "^SAC $n2 done( |\$)"
}

# drive MODE T_WORKLOAD: run console.exp on the fake, seconds taken in $secs
drive() {
	rm -f "$t/status" "$t/child"
	s=$(date +%s)
	mode=$1
	IFS='
'
	# shellcheck disable=SC2046 # one word a line, none with a newline
	set -- $(stages "$2")
	IFS=' 	
'
	FAKE_DIR=$t N=$n2 expect "$exp" "$t/log" "$t/status" "$@" \
		-- "$t/qemu" "$mode"
	rc=$?
	secs=$(($(date +%s) - s))
}
st() { sed -n "s/^$1=//p" "$t/status"; }

drive "done" 2
ok $rc "done: console.exp exits 0"
is "$(st event):$(st stage):$(st qemu_status)" "done:poweroff:0" \
	"done: event, stage and exit status"
like "$(tr '\n' ' ' <"$t/status")" \
	"^event=done stage=poweroff qemu_status=0 t_kernel_ms=[0-9]+ t_iommu_ms=[0-9]+ t_agent_ms=[0-9]+ t_w1_ms=[0-9]+ t_w2_ms=[0-9]+ t_poweroff_ms=[0-9]+ $" \
	"done: every stage timed, in order"
od -An -c "$t/log" | tr -s ' \n' '  ' | grep -q 'j u n k \\0 377 033 \[ 0 m'
ok $? "done: NUL, 0xff and ESC reach the log byte for byte"
is "$(grep -ac GGGGG "$t/log")" 1 "done: a 5000-byte line does not stop the driver"
"$cls" --log "$t/log" --status "$t/status" --key "$keyfile" --nonce $n2 --workloads w1,w2 >"$t/out"
like "$(cat "$t/out")" '"outcome":"pass".*"cut":1' "done: classified pass, long line counted"

drive exit3 2
is "$(st event):$(st stage):$(st qemu_status)" "eof:w2:3" "early exit: eof, stage, exit code 3"
drive abort 2
is "$(st event):$(st qemu_status)" "eof:signal:6" "abort: eof with signal:6"
"$cls" --log "$t/log" --status "$t/status" --key "$keyfile" --nonce $n2 --workloads w1,w2 >"$t/out"
like "$(cat "$t/out")" '"outcome":"qemu-crash".*"evidence":"qemu: hardware error: fake"' \
	"abort: classified qemu-crash with QEMU's line"

drive hang 1
ok $rc "hang: console.exp exits 0"
is "$(st event):$(st stage):$(st qemu_status)" "timeout:w2:signal:9" \
	"hang: timeout at stage w2, QEMU killed"
[ "$secs" -le 3 ]
ok $? "hang: gave up within the stage's timeout (${secs}s for 1s)"
! running "$(cat "$t/pid")"
ok $? "hang: the fake QEMU is gone"
! running "$(cat "$t/child")"
ok $? "hang: and so is its child"
"$cls" --log "$t/log" --status "$t/status" --key "$keyfile" --nonce $n2 --workloads w1,w2 >"$t/out"
like "$(field reason <"$t/out")" "stage w2; last console line: SAC $n2 result" \
	"hang: classified with the stage and the last line"

drive partial 1
is "$(tail -c 14 "$t/log")" "no newline yet" "hang: what QEMU sent before it was killed is logged"

drive boot 1
is "$(st event):$(st stage)" "timeout:agent" "stall before the agent: timeout at stage agent"
! running "$(cat "$t/child")"
ok $? "stall before the agent: nothing left running"
like "$(tr '\n' ' ' <"$t/status")" "t_iommu_ms=[0-9]+ $" "stall: iommu was the last stage timed"

# The cap: SAC_CONSOLE_CAP bytes of head and of tail, one marker between.
cap=65536
SAC_CONSOLE_CAP=$cap drive flood 5
is "$(st event):$(st stage)" "eof:w2" "flood: the panicked guest's QEMU exits while w2 runs"
dropped=$(st log_dropped)
like "$dropped" '^[1-9][0-9]{5,}$' "flood: status says log_dropped=N ($dropped)"
is "$(grep -ac '^console.exp: ' "$t/log"):$(grep -a '^console.exp: ' "$t/log")" \
	"1:console.exp: $dropped bytes dropped" "flood: one marker line, with the status's count"
size=$(wc -c <"$t/log")
[ "$size" -le $((2 * cap + 16384 + 64)) ] && [ "$size" -ge $((2 * cap - 200)) ]
ok $? "flood: the log keeps about 2 x $cap bytes ($size)"
sent=$(FAKE_DIR=$t N=$n2 "$t/qemu" flood | od -An -c | grep -o '\\n' | wc -l)
sent=$((sent + $(FAKE_DIR=$t N=$n2 "$t/qemu" flood | wc -c)))
marker=$(grep -a '^console.exp: ' "$t/log" | wc -c)
is $((size - marker + dropped)) $sent "flood: kept + dropped = every byte QEMU sent (pty CRs included)"
is "$(head -n 1 "$t/log" | tr -d '\r')" SeaBIOS "flood: the head starts with the console's first line"
is "$(tail -n 1 "$t/log" | tr -d '\r')" '[   60.000000] Kernel panic - not syncing: flood' \
	"flood: the tail ends with its last line"
"$cls" --log "$t/log" --status "$t/status" --key "$keyfile" --nonce $n2 --workloads w1,w2 >"$t/out"
like "$(cat "$t/out")" '^\{"outcome":"panic","reason":"kernel panic at line [0-9]+","evidence":"\[   60.000000\] Kernel panic - not syncing: flood"' \
	"flood ending in a panic: classified panic"
SAC_CONSOLE_CAP=$cap drive flood-done 5
"$cls" --log "$t/log" --status "$t/status" --key "$keyfile" --nonce $n2 --workloads w1,w2 >"$t/out"
like "$(st event):$(field outcome <"$t/out"):$(field reason <"$t/out")" \
	"^done:log-flood:console log flooded: $(st log_dropped) bytes dropped \(console.exp cap\)" \
	"flood, then the agent finished: log-flood"
like "$(cat "$t/out")" '"results":\[\{"workload":"w1","status":"pass"\},\{"workload":"w2"' \
	"flood: the results on both sides of the gap are read"
drive "done" 2
[ -z "$(st log_dropped)" ] && ! grep -aq '^console.exp: ' "$t/log"
ok $? "under the default cap: no marker, no log_dropped"
SAC_CONSOLE_CAP=10x expect "$exp" "$t/log" "$t/status" kernel 2 'Linux version' \
	-- "$t/qemu" "done" 2>"$t/err"
like "$?:$(cat "$t/err")" "^2:console.exp: SAC_CONSOLE_CAP '10x'" "console.exp: a bad cap: exit 2"

FAKE_DIR=$t N=$n2 expect "$exp" "$t/log" "$t/status" kernel 2 'Linux version' \
	agent 2 '(' -- "$t/qemu" "done" 2>"$t/err"
like "$?:$(cat "$t/err")" "^2:console.exp: mark of agent" "console.exp: a bad mark: exit 2 and why"
FAKE_DIR=$t expect "$exp" "$t/log" "$t/status" kernel 2 'Linux version' 2>"$t/err"
like "$?:$(cat "$t/err")" "^2:console.exp: no -- " "console.exp: no QEMU command: exit 2"
FAKE_DIR=$t expect "$exp" "$t/log" "$t/status" kernel 2 -- "$t/qemu" "done" 2>"$t/err"
like "$?:$(cat "$t/err")" "^2:console.exp: need LOG STATUS" "console.exp: a stage without its mark: exit 2"
rm -f "$t/status"
expect "$exp" "$t/log" "$t/status" kernel 2 'Linux version' -- "$t/no-such-qemu" 2>"$t/err"
like "$?:$(cat "$t/err")" "^2:console.exp: cannot start" "console.exp: QEMU missing: exit 2"
[ ! -e "$t/status" ]
ok $? "console.exp: no status file when QEMU never started"
FAKE_DIR=$t N=$n2 expect "$exp" "$t/log" "$t/status" kernel 2 'Linux version' \
	w1 0 'x' -- "$t/qemu" "done" 2>/dev/null
is $? 2 "console.exp: a zero stage timeout is refused"
done_testing
