#!/bin/sh
# Secrets and hardening, without a lab: farm lava submit hands lavacli
# the lab's token in a lavacli.yaml (mode 600, in a private mode 700
# directory that is gone after the run, whatever ends it), never on a
# command line: a stand-in lavacli records what it was given while ps is
# polled for the token. lavacli's errors reach results.json with the
# credentials masked. Jobs render visibility personal, and every
# machine's QEMU command carries the seccomp sandbox, which QEMU takes.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
farm=$top/farm/farm
command -v jq >/dev/null || skip_all "jq missing (make deps)"
need_kernels $SERIES-amd64-farm-desktop
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sandbox=on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny
plan 30

# --- the sandbox -------------------------------------------------------------
machines=$(jq -r '.machines[].id' "$top/farm/machines.json")
nm=$(printf '%s\n' "$machines" | wc -l)
# shellcheck disable=SC2046 # one --machine word pair per machine
"$farm" run --print-qemu $(for m in $machines; do echo --machine "$m"; done) \
	--workload boot --kernel "$BUILD_DIR/kernel/$SERIES-amd64-farm-desktop" \
	--kernel "$BUILD_DIR/kernel/$SERIES-arm64-farm-desktop" >"$tmp/qemu.jsonl" 2>&1
ok $? "farm run --print-qemu, every machine"
is "$(jq -r --arg s "$sandbox" '(.argv | index("-sandbox")) as $i |
	select($i != null and .argv[$i + 1] == $s) | .job' "$tmp/qemu.jsonl" |
	sed 's/^[0-9]*-\([a-z0-9]*-[a-z0-9]*\)-.*/\1/' | sort -u | wc -l)" "$nm" \
	"every machine's QEMU argv has -sandbox $sandbox"

# QEMU 7.2 takes the words on both arches: the guest runs under seccomp
for q in $(jq -r '.argv[3]' "$tmp/qemu.jsonl" | sort -u); do
	"$q" -sandbox "$sandbox" -M none -S -nographic -monitor none \
		-serial none </dev/null >"$tmp/q.err" 2>&1 &
	p=$!
	i=0
	until grep -q '^Seccomp:.*2' "/proc/$p/status" 2>/dev/null || [ $i -ge 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q '^Seccomp:.*2' "/proc/$p/status" 2>/dev/null
	ok $? "$q -sandbox $sandbox: running, in seccomp filter mode"
	kill "$p" 2>/dev/null
	wait "$p" 2>/dev/null
done

# --- jobs render personal ---------------------------------------------------
"$farm" lava render --machine x86-intel --workload boot --workload blk \
	--kernel "$BUILD_DIR/kernel/$SERIES-amd64-farm-desktop" --out "$tmp/r" >/dev/null 2>&1
ok $? "farm lava render"
is "$(grep -l "^visibility: 'personal'\$" "$tmp/r"/*.yaml | wc -l)" 2 \
	"both jobs are visibility: personal"
is "$(cat "$tmp/r"/*.yaml | grep -c '^visibility: public')" 0 "no job is public"

# --- the token never on a command line --------------------------------------
# A lavacli that records its arguments, its identity file and the
# directory's modes, submits job 42, waits $FAKE_WAIT s, and fails the
# logs with an error quoting the URI the way lavacli does.
mkdir "$tmp/bin" "$tmp/rec" "$tmp/t"
cat >"$tmp/bin/lavacli" <<EOF
#!/bin/sh
rec=$tmp/rec
EOF
cat >>"$tmp/bin/lavacli" <<'EOF'
echo "$*" >>"$rec/argv"
echo "${XDG_CONFIG_HOME:-}" >>"$rec/dirs"
y=${XDG_CONFIG_HOME:-/nonexistent}/lavacli.yaml
stat -c '%a %U %n' "$XDG_CONFIG_HOME" "$y" >>"$rec/modes" 2>&1
[ "$1 $2" = "--identity farm" ] || { echo "Unknown identity"; exit 1; }
f() { sed -n "s/^  $1: '\\(.*\\)'\$/\\1/p" "$y"; }
[ "$(sed -n 1p "$y")" = "farm:" ] && [ "$(f token)" = "$FAKE_TOKEN" ] &&
	[ "$(f username)" = admin ] && [ "$(f uri)" = "http://127.0.0.1:9/RPC2" ] &&
	echo identity-ok >>"$rec/identity"
case $4 in
submit) echo 42 ;;
wait) sleep "${FAKE_WAIT:-0}" ;;
logs)
	echo "Unable to connect: 401 Client Error: Unauthorized for url: http://$(f username):$(f token)@127.0.0.1:9/RPC2; $(f token)"
	exit 1
	;;
esac
EOF
chmod +x "$tmp/bin/lavacli"
FAKE_TOKEN=farm$$secret$(date +%N)
echo "$FAKE_TOKEN" >"$tmp/token"
export FAKE_TOKEN

# poll FILE: ps -eo args into FILE every 50 ms until $tmp/stop exists.
poll() {
	while [ ! -e "$tmp/stop" ]; do
		ps -eo args >>"$1"
		sleep 0.05
	done
}

# submit DIR [OPTION]...: farm lava submit of one x86-intel boot cell to
# the stand-in, its output in DIR.out
submit() {
	d=$1
	shift
	PATH=$tmp/bin:$PATH TMPDIR=$tmp/t "$farm" lava submit \
		--url http://127.0.0.1:9 --token-file "$tmp/token" \
		--machine x86-intel --workload boot \
		--kernel "$BUILD_DIR/kernel/$SERIES-amd64-farm-desktop" --out "$d" "$@" \
		>"$d.out" 2>&1
}

rm -f "$tmp/stop"
poll "$tmp/ps" &

# a process with the token in its arguments, which the poll must see
sh -c 'sleep 2' "canary-$FAKE_TOKEN" &
export FAKE_WAIT=2
submit "$tmp/sub"
touch "$tmp/stop"
wait
res=$tmp/sub/latest/results.json
is "$(jq -r '.records[0].outcome' "$res")" infra-error \
	"farm lava submit through the stand-in: the failed logs make an infra-error"
grep -q "canary-$FAKE_TOKEN" "$tmp/ps"
ok $? "the ps poll sees a token on a command line (the canary's)"
like "$(grep -c 'bin/lavacli --identity farm jobs wait' "$tmp/ps")" '^[1-9]' \
	"the ps poll saw lavacli waiting"
is "$(grep -F "$FAKE_TOKEN" "$tmp/ps" | grep -vc canary-)" 0 \
	"no other command line ps showed holds the token"
is "$(grep -cF "$FAKE_TOKEN" "$tmp/rec/argv")" 0 "lavacli's arguments never hold the token"
is "$(wc -l <"$tmp/rec/identity" 2>/dev/null)" 3 \
	"each of the 3 lavacli runs read identity farm: admin, the token, the URI"
is "$(awk '{ print $1, $2 }' "$tmp/rec/modes" | sort -u | tr '\n' ' ')" \
	"600 root 700 root " "the identity file is mode 600, its directory 700"
d=$(sort -u "$tmp/rec/dirs")
like "$d" "^$tmp/t/farm-lavacli\\.[^/]*\$" "one private directory, in TMPDIR"
[ ! -e "$d" ] && [ -z "$(ls -A "$tmp/t")" ]
ok $? "the directory is gone after the run"
reason=$(jq -r '.records[0].reason' "$res")
like "$reason" 'Unauthorized for url: http://<user>:<token>@127\.0\.0\.1:9/RPC2; <token>' \
	"lavacli's error is in the reason, the credentials masked"
grep -rqF "$FAKE_TOKEN" "$tmp/sub" "$tmp/sub.out"
ok $((!$?)) "no file of the run holds the token"

# An error of lava submit's own quotes no token.
err=$(PATH=$tmp/bin:$PATH TMPDIR=$tmp/t "$farm" lava submit --url http://127.0.0.1:9 \
	--token-file "$tmp/token" --user "o'neil" --machine x86-intel --workload boot \
	--kernel "$BUILD_DIR/kernel/$SERIES-amd64-farm-desktop" --out "$tmp/quote" 2>&1)
rc=$?
[ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ]
ok $? "a user lavacli.yaml cannot hold: rc=$rc, one line: $err"
printf '%s\n' "$err" | grep -qF "$FAKE_TOKEN"
ok $((!$?)) "and the error does not quote the token"
is "$(ls -A "$tmp/t")" "" "and leaves no directory"

# --- every exit path removes the directory ----------------------------------
# gone_within SECS: the private directory gone within SECS seconds
gone_within() {
	i=0
	while [ -n "$(ls -A "$tmp/t")" ] && [ $i -lt $(($1 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -z "$(ls -A "$tmp/t")" ]
}

# killed SIGNAL: a run killed with SIGNAL while lavacli waits
killed() {
	rm -f "$tmp/rec/argv"
	FAKE_WAIT=60
	# $! is the runner: farm/farm execs it (its workers and its guard
	# have the same command line); SIGINT as at a terminal, not ignored
	# as the shell leaves it for a command run with &
	(
		PATH=$tmp/bin:$PATH TMPDIR=$tmp/t
		export PATH TMPDIR
		exec env --default-signal=INT "$farm" lava submit --url http://127.0.0.1:9 \
			--token-file "$tmp/token" --machine x86-intel --workload boot \
			--kernel "$BUILD_DIR/kernel/$SERIES-amd64-farm-desktop" --out "$tmp/k$1"
	) >"$tmp/k$1.out" 2>&1 &
	runner=$!
	i=0
	until grep -q 'jobs wait' "$tmp/rec/argv" 2>/dev/null || [ $i -ge 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$(ls -A "$tmp/t")" ] &&
		tr '\0' ' ' <"/proc/$runner/cmdline" | grep -q '^[^ ]*farm-runner lava submit '
	ok $? "SIG$1: lavacli waits, the directory is there"
	kill -"$1" "$runner"
	if [ "$1" = KILL ]; then
		# its workers and their lavacli, which outlive it for now
		sleep 0.5
		for g in $(ps -eo pgid=,args= | awk -v b="$tmp/bin/lavacli" \
			'$2 == "/bin/sh" && $3 == b { print $1 }' | sort -u); do
			kill -KILL "-$g"
		done
	fi
	gone_within 10
	ok $? "SIG$1 to the runner: the directory is gone within 10 s"
	wait
	is "$(pgrep -fc "^/bin/sh $tmp/bin/lavacli")" 0 \
		"SIG$1: no lavacli left"
}
killed INT
killed TERM
killed KILL

done_testing
