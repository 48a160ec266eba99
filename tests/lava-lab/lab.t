#!/bin/sh
# A real LAVA lab on loopback (scripts/lava-lab): lava-server, its
# scheduler and PostgreSQL, one lava-worker, a qemu device per farm
# machine from the farm's rendered device dictionaries. Jobs the farm
# renders, submitted with lavacli over 127.0.0.1, reach the device their
# tag names, boot our kernel, and LAVA's monitors see the agent's result;
# farm lava submit runs cells through the lab into a results.json the
# gate reads, with the same outcomes as the local engine; a bad token,
# an unreachable server and a bad dictionary are one clear error each
# (never a pass, never the token in a log); down leaves no daemon behind.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
lab=$top/scripts/lava-lab
port=${LAVA_LAB_PORT:-8000}
for c in lava-server lava-worker lavacli; do
	command -v "$c" >/dev/null || skip_all "$c missing (make deps)"
done
command -v jq >/dev/null || skip_all "jq missing (make deps)"
[ "$(id -u)" = 0 ] || skip_all "the lab runs as root"
need_kernels amd64-farm-desktop amd64-farm-server arm64-farm-desktop arm64-farm-server
tmp=$(mktemp -d)
trap '[ -n "${downed:-}" ] || "$lab" down >/dev/null 2>&1; rm -rf "$tmp"' EXIT
nmachines=$(jq '.machines | length' "$top/farm/machines.json")
plan 43

"$top/farm/farm" lava render --workload boot --out "$tmp/render" \
	>"$tmp/render.out" 2>&1
r=$?
ok $r "farm lava render: the boot jobs and a device dictionary per machine"
[ $r -eq 0 ] || sed 's/^/#   /' "$tmp/render.out"
is "$(find "$tmp/render/devices" -name '*.yaml' | wc -l)" "$nmachines" \
	"one device dictionary per farm machine"

# --- up, twice -----------------------------------------------------------
"$lab" up "$tmp/render/devices" >"$tmp/up.out" 2>&1
ok $? "lava-lab up registers the rendered dictionaries"
sed 's/^/# /' "$tmp/up.out"
"$lab" up "$tmp/render/devices" >"$tmp/up2.out" 2>&1
ok $? "lava-lab up again (idempotent)"
grep 'lab up in' "$tmp/up2.out" | sed 's/^/# warm: /'
grep -q 'gunicorn: running' "$tmp/up2.out"
ok $? "the second up reuses the running server"

st=$("$lab" status 2>&1)
ok $? "lava-lab status: exit 0 while the lab runs"
is "$(printf '%s\n' "$st" | grep -c '^\* .* (qemu): Idle,Good$')" "$nmachines" \
	"every machine is a good, idle qemu device"
like "$st" 'worker farm-lab state *: Online' "the worker is online"

# Every socket the server, its database (and an apache, if one ran) listen
# on is loopback.
socks=$(ss -Hltnp | grep -E '"(gunicorn|postgres|apache2|lava)' | awk '{ print $4 }')
like "$socks" "^127\\.0\\.0\\.1:$port\$" "gunicorn listens on 127.0.0.1:$port"
printf '%s\n' "$socks" | grep -Evq '^(127\.0\.0\.1|\[::1\]):'
ok $((!$?)) "no server or database socket beyond loopback"

token=$(cat "$BUILD_DIR/lava-lab/admin-token")
uri=http://admin:$token@127.0.0.1:$port/RPC2
lava() {
	lavacli --uri "$uri" "$@"
}

# job MACHINE KERNEL: submit its boot job, wait, check what LAVA says.
job() {
	def=$(ls "$tmp/render/"*"-$1-$2-default-boot.yaml")
	nonce=$(sed -n "s/^  farm.nonce: '\\(.*\\)'\$/\\1/p" "$def")
	t0=$(date +%s)
	id=$(lava jobs submit "$def" 2>&1)
	like "$id" '^[0-9]+$' "$1: lavacli jobs submit gives a job id"
	lava jobs wait --polling 2 --timeout 600 "$id" >/dev/null 2>&1
	ok $? "$1: job $id ends"
	echo "# $1: submit to finished through the lab: $(($(date +%s) - t0)) s"
	show=$(lava jobs show "$id" 2>&1)
	like "$show" 'Health *: Complete' "$1: job $id is complete"
	like "$show" "device *: $1\$" "$1: its tag took it to device $1"
	like "$(lava results "$id" 2>&1)" '^\* workloads\.boot \[pass\]$' \
		"$1: LAVA's monitors test case workloads.boot passed"
	lava jobs logs --no-follow "$id" >"$tmp/$1.log" 2>&1
	grep -q "SAC $nonce result {.*\"workload.*boot.*\"status.*pass" "$tmp/$1.log"
	r=$?
	ok $r "$1: the console has the agent's result line with the job's nonce"
	[ $r -eq 0 ] || sed -n "/SAC /s/^/#   /p; \$s/^/#   last: /p" "$tmp/$1.log"
}
job x86-intel amd64-farm-desktop
job arm64-smmuv3 arm64-farm-desktop

# --- farm lava submit: cells through the lab into results.json ---------------
# shellcheck disable=SC2086
"$top/farm/farm" lava submit --url "http://127.0.0.1:$port" \
	--token-file "$BUILD_DIR/lava-lab/admin-token" \
	--machine x86-intel --machine arm64-smmuv3 --workload edu-lying \
	$kernels \
	--out "$tmp/sub" >"$tmp/sub.out" 2>&1
sed 's/^/# /' "$tmp/sub.out"
res=$tmp/sub/latest/results.json
cell() {
	jq -r --arg m "$1" --arg f "$2" '.records[] |
		select(.axes.machine == $m and .axes.flavour == $f) | .outcome' "$res" 2>/dev/null
}
for m in x86-intel arm64-smmuv3; do
	is "$(cell "$m" desktop)" pass "lava submit: $m desktop edu-lying passes through the lab"
	like "$(cell "$m" server)" '^(iommu-fault|data-corruption)$' \
		"lava submit: $m server edu-lying is caught through the lab"
done
"$top/farm/farm" gate "$tmp/sub/latest" >"$tmp/gate.out" 2>&1
ok $? "the gate reads the lab's results.json: $(grep VERDICT "$tmp/gate.out")"

echo not-a-token >"$tmp/bad-token"
"$top/farm/farm" lava submit --url "http://127.0.0.1:$port" --token-file "$tmp/bad-token" \
	--machine x86-intel --workload boot --kernel "$BUILD_DIR/kernel/amd64-farm-desktop" \
	--out "$tmp/badsub" >"$tmp/badsub.out" 2>&1
is "$(jq -r '.records[0].outcome' "$tmp/badsub/latest/results.json")" infra-error \
	"lava submit, bad token: the cell is an infra-error"
like "$(jq -r '.records[0].reason' "$tmp/badsub/latest/results.json")" \
	'401 Client Error: Unauthorized for url: http://<user>:<token>@' \
	"and the reason says 401, with the credentials masked"
grep -rq not-a-token "$tmp/badsub"
ok $((!$?)) "no file of the run holds the token"

# --- clear errors ----------------------------------------------------------
def=$(ls "$tmp/render/"*-x86-intel-amd64-farm-desktop-default-boot.yaml)
err=$(lavacli --uri "http://admin:not-a-token@127.0.0.1:$port/RPC2" \
	jobs submit "$def" 2>&1)
rc=$?
[ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
ok $? "bad token: rc=$rc, one line"
like "$err" '401 Client Error: Unauthorized' "bad token: the server says 401 Unauthorized"
err=$(lavacli --uri "http://admin:$token@127.0.0.1:9/RPC2" jobs submit "$def" 2>&1)
rc=$?
[ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
ok $? "unreachable server: rc=$rc, one line"
like "$err" 'Connection refused' "unreachable server: connection refused"

# A dictionary the server cannot use is refused, naming the device; up
# with the good one puts the device back.
mkdir "$tmp/bad"
echo 'actions: [' >"$tmp/bad/x86-intel.yaml"
err=$("$lab" up "$tmp/bad" 2>&1 >/dev/null)
rc=$?
[ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
ok $? "a broken device dictionary: rc=$rc, one line"
like "$err" 'invalid device dictionary x86-intel: .*Error' "the error names the device and the reason"
"$lab" up "$tmp/render/devices/x86-intel.yaml" >/dev/null 2>&1
ok $? "up with the good dictionary again"
like "$(lava devices show x86-intel 2>&1)" 'health *: Good' "x86-intel is good again"

err=$("$lab" up /nonexistent 2>&1 >/dev/null)
like "$err" '^lava-lab: error: no such device dictionary or directory: /nonexistent$' \
	"a missing dictionary: one error line"
err=$("$lab" restart 2>&1)
rc=$?
[ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
ok $? "an unknown command: rc=$rc, one line"

# --- down --------------------------------------------------------------------
"$lab" down >"$tmp/down.out" 2>&1
ok $? "lava-lab down"
downed=1
left=$(ps -eo stat=,args= | awk '$1 !~ /^Z/' |
	grep -E 'gunicorn|lava-worker|lava-scheduler|lava-publisher' | grep -v grep)
is "$left" "" "no lava or gunicorn process left"
"$lab" status >/dev/null 2>&1
ok $((!$?)) "status: non-zero once the lab is down"
done_testing
