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
# The admin's token: never on a command line while lava-lab up and farm
# lava submit run (ps is polled), in a mode 600 lavacli.yaml that is gone
# after; reused by up even when whoami fails, the old ones revoked when
# up makes a new one. An up that fails leaves no daemon and no dictionary
# of its own.
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
need_kernels $SERIES-amd64-farm-desktop $SERIES-amd64-farm-server $SERIES-arm64-farm-desktop $SERIES-arm64-farm-server
tmp=$(mktemp -d)
trap 'touch "$tmp/stop"; [ -n "${downed:-}" ] || "$lab" down >/dev/null 2>&1; rm -rf "$tmp"' EXIT
nmachines=$(jq '.machines | length' "$top/farm/machines.json")
tokenf=$BUILD_DIR/lava-lab/admin-token
plan 70

# watch NAME CMD...: CMD while ps -eo args is polled into $tmp/NAME.ps and
# the modes of the files in CMD's TMPDIR, $tmp/NAME.t, into $tmp/NAME.modes.
watch() {
	w=$1
	shift
	mkdir -p "$tmp/$w.t"
	rm -f "$tmp/stop"
	(
		while [ ! -e "$tmp/stop" ]; do
			ps -eo args >>"$tmp/$w.ps"
			find "$tmp/$w.t" -mindepth 1 -printf '%m %y %P\n' >>"$tmp/$w.modes"
			sleep 0.1
		done
	) &
	TMPDIR=$tmp/$w.t "$@"
	r=$?
	touch "$tmp/stop"
	wait
	return $r
}

# no_token NAME WHAT: what watch saw of NAME holds no token of the lab.
no_token() {
	t=$(cat "$tokenf")
	like "$(grep -c 'lavacli' "$tmp/$1.ps")" '^[1-9]' "$2: ps saw lavacli run"
	is "$(grep -cF "$t" "$tmp/$1.ps")" 0 "$2: no command line ps showed holds the token"
	is "$(grep '/lavacli\.yaml$' "$tmp/$1.modes" | cut -c1-5 | sort -u)" "600 f" \
		"$2: lavacli.yaml is mode 600"
	is "$(grep -E ' d (farm-lavacli|lava-lab)\.' "$tmp/$1.modes" | cut -c1-5 | sort -u)" \
		"700 d" "$2: in a private (700) directory"
	is "$(find "$tmp/$1.t" -mindepth 1 -maxdepth 1 \( -name 'farm-lavacli.*' -o \
		-name 'lava-lab.*' \) | wc -l)" 0 \
		"$2: the directory is gone after"
}

# The poll sees a token on a command line: a canary's.
watch canary sh -c 'sleep 1' "canary-$$-secret"
like "$(grep -c "canary-$$-secret" "$tmp/canary.ps")" '^[1-9]' \
	"the ps poll sees a token on a command line (a canary's)"

"$top/farm/farm" lava render --workload boot --out "$tmp/render" \
	>"$tmp/render.out" 2>&1
r=$?
ok $r "farm lava render: the boot jobs and a device dictionary per machine"
[ $r -eq 0 ] || sed 's/^/#   /' "$tmp/render.out"
is "$(find "$tmp/render/devices" -name '*.yaml' | wc -l)" "$nmachines" \
	"one device dictionary per farm machine"

# --- up, twice -----------------------------------------------------------
watch up "$lab" up "$tmp/render/devices" >"$tmp/up.out" 2>&1
ok $? "lava-lab up registers the rendered dictionaries"
sed 's/^/# /' "$tmp/up.out"
no_token up "lava-lab up"
is "$(stat -c %a "$tokenf")" 600 "the admin token file is mode 600"
token=$(cat "$tokenf")

# whoami failing (a lavacli that fails it) is no reason for a new token
mkdir "$tmp/bin"
# shellcheck disable=SC2016 # the stand-in's own $a and $@
printf '#!/bin/sh\nfor a; do [ "$a" != whoami ] || exit 1; done\nexec %s "$@"\n' \
	"$(command -v lavacli)" >"$tmp/bin/lavacli"
chmod +x "$tmp/bin/lavacli"
PATH=$tmp/bin:$PATH "$lab" up "$tmp/render/devices" >"$tmp/up2.out" 2>&1
ok $? "lava-lab up again (idempotent), whoami failing"
grep 'lab up in' "$tmp/up2.out" | sed 's/^/# warm: /'
grep -q 'gunicorn: running' "$tmp/up2.out"
ok $? "the second up reuses the running server"
is "$(cat "$tokenf")" "$token" "and the token"

# lavacli's identities for the tests' own calls: in a file, like the lab's
mkdir -m 700 "$tmp/cfg"
# identities: NAME URI TOKEN, each; printf is built in
identities() {
	(umask 077 && while [ $# -ge 3 ]; do
		printf "%s:\n  uri: '%s'\n  username: admin\n  token: '%s'\n" "$1" "$2" "$3"
		shift 3
	done >"$tmp/cfg/lavacli.yaml")
}

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

identities lab "http://127.0.0.1:$port/RPC2" "$token" \
	nowhere http://127.0.0.1:9/RPC2 "$token"
lava() {
	XDG_CONFIG_HOME=$tmp/cfg lavacli --identity lab "$@"
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
	grep -q "SAC $nonce result [0-9]* [0-9a-f]* {.*\"workload.*boot.*\"status.*pass" "$tmp/$1.log"
	r=$?
	ok $r "$1: the console has the agent's result line with the job's nonce"
	[ $r -eq 0 ] || sed -n "/SAC /s/^/#   /p; \$s/^/#   last: /p" "$tmp/$1.log"
}
job x86-intel $SERIES-amd64-farm-desktop
job arm64-smmuv3 $SERIES-arm64-farm-desktop

# --- farm lava submit: cells through the lab into results.json ---------------
# shellcheck disable=SC2086,SC2154 # $kernels: the options, from need_kernels
watch sub "$top/farm/farm" lava submit --url "http://127.0.0.1:$port" \
	--token-file "$tokenf" \
	--machine x86-intel --machine arm64-smmuv3 --workload edu-lying \
	$kernels \
	--out "$tmp/sub" >"$tmp/sub.out" 2>&1
sed 's/^/# /' "$tmp/sub.out"
no_token sub "farm lava submit"
grep -rqF "$token" "$tmp/sub"
ok $((!$?)) "no file of the run holds the token"
# personal: LAVA 2023.01 shows it as the group named after the submitter
like "$(lava jobs show "$(cat "$tmp"/sub/latest/jobs/*/lava/lab-job-id | head -n 1)" 2>&1)" \
	'visibility *: Group \(admin\)' "the lab's jobs are personal (not Public)"
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
	--machine x86-intel --workload boot --kernel "$BUILD_DIR/kernel/$SERIES-amd64-farm-desktop" \
	--out "$tmp/badsub" >"$tmp/badsub.out" 2>&1
is "$(jq -r '.records[0].outcome' "$tmp/badsub/latest/results.json")" infra-error \
	"lava submit, bad token: the cell is an infra-error"
like "$(jq -r '.records[0].reason' "$tmp/badsub/latest/results.json")" \
	'401 Client Error: Unauthorized for url: http://<user>:<token>@' \
	"and the reason says 401, with the credentials masked"
grep -rq not-a-token "$tmp/badsub"
ok $((!$?)) "no file of the run holds the token"

# --- clear errors ----------------------------------------------------------
def=$(ls "$tmp/render/"*-x86-intel-$SERIES-amd64-farm-desktop-default-boot.yaml)
err=$(lavacli --uri "http://admin:not-a-token@127.0.0.1:$port/RPC2" \
	jobs submit "$def" 2>&1)
rc=$?
[ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
ok $? "bad token: rc=$rc, one line"
like "$err" '401 Client Error: Unauthorized' "bad token: the server says 401 Unauthorized"
err=$(XDG_CONFIG_HOME=$tmp/cfg lavacli --identity nowhere jobs submit "$def" 2>&1)
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

# --- a token the database no longer holds: a new one, the old revoked ------
echo stale >"$tokenf"
"$lab" up >"$tmp/up3.out" 2>&1
ok $? "lava-lab up with a stale token file"
grep -q 'admin token: .*(new' "$tmp/up3.out"
ok $? "it makes a new token"
new=$(cat "$tokenf")
is "$(lava-server manage tokens list --user admin --csv | tr -d '\r' |
	awk -F , '$3 == "lava-lab"' | wc -l)" 1 "one lava-lab token left in the database"
like "$(lava system whoami 2>&1)" '401 Client Error' "the old token is refused (401)"
identities lab "http://127.0.0.1:$port/RPC2" "$new"
is "$(lava system whoami 2>&1)" admin "the new one works"
token=$new

# --- down --------------------------------------------------------------------
"$lab" down >"$tmp/down.out" 2>&1
ok $? "lava-lab down"
downed=1
left=$(ps -eo stat=,args= | awk '$1 !~ /^Z/' |
	grep -E 'gunicorn|lava-worker|lava-scheduler|lava-publisher' | grep -v grep)
is "$left" "" "no lava or gunicorn process left"
"$lab" status >/dev/null 2>&1
ok $((!$?)) "status: non-zero once the lab is down"

# --- an up that fails takes down what it started -------------------------
pg=$(pg_lsclusters -h | awk 'NR == 1 { print $4 }')
stored=/etc/lava-server/dispatcher-config/devices/x86-intel.jinja2
before=$(cat "$stored" 2>/dev/null)
err=$("$lab" up "$tmp/bad" 2>&1 >"$tmp/upbad.out")
rc=$?
sed 's/^/# /' "$tmp/upbad.out"
[ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
ok $? "up of a stopped lab, failing at the devices: rc=$rc, one line"
grep -q 'gunicorn: started' "$tmp/upbad.out" && grep -q 'taking the lab down' "$tmp/upbad.out"
ok $? "it had started the server, and took the lab down"
is "$(cat "$stored" 2>/dev/null)" "$before" \
	"the good dictionary it had replaced is put back, not left broken"
left=$(ps -eo stat=,args= | awk '$1 !~ /^Z/' |
	grep -E 'gunicorn|lava-worker|lava-scheduler|lava-publisher' | grep -v grep)
is "$left" "" "no lava or gunicorn process left"
is "$(ls "$BUILD_DIR"/lava-lab/*.pid 2>/dev/null)" "" "no pid file left"
is "$(pg_lsclusters -h | awk 'NR == 1 { print $4 }')" "$pg" "PostgreSQL as before ($pg)"
"$lab" status >/dev/null 2>&1
ok $((!$?)) "status: non-zero"
done_testing
