#!/bin/sh
# The agent's lines are chained (farm/PROTOCOL.md, "Integrity"): crafted
# from the captured passing console (tests/data/console/pass), a forged
# result with the job's nonce but no valid mac, a suppressed line, a
# reordered pair, an altered line, a line replayed from another job, a
# console from another job, a missing or cut done, a line after done and
# an unchained (old agent's) line are each an infra-error naming the
# line; the valid chain passes, under any key it was written with; the
# classifier without the key file gives no verdict but infra-error.
. "$(dirname "$0")/../lib/tap.sh"
cls=$BUILD_DIR/host/classify
agent=$BUILD_DIR/guest/host/agent-unit
data=$top/tests/data/console
pass=$data/pass
nonce=5ac0ffee00c0ffee
[ -x "$cls" ] || skip_all "build first: make classify"
make -s -C "$top" -f farm/guest/guest.mk guest-unit BUILD_DIR="$BUILD_DIR" \
	>/dev/null 2>&1 || skip_all "cannot build agent-unit"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
plan 31

# classify LOG [KEY]: the record of LOG with the pass case's status
classify() {
	"$cls" --log "$1" --status "$pass/status" --key "${2:-$data/key}" \
		--nonce $nonce --workloads ok,ok
}
field() { jq -r ".$1" "$t/out"; }

# craft NAME AWK: the pass console rewritten by AWK, which sees each
# line in $0 (its CRs stripped into cr), agent (an agent line of the
# job's nonce) and seq (its sequence number), and prints with say().
craft() {
	awk -v nonce=$nonce -v other="$(cat "$t/other-result" 2>/dev/null)" '
	function say(s) { printf "%s%s\n", s, cr }
	{ cr = $0; sub(/^[^\r]*/, "", cr); sub(/\r+$/, "") }
	{ agent = $0 ~ ("^SAC " nonce " "); seq = agent ? $4 : -1 }
	'"$2" "$pass/console.log" >"$t/$1.log"
}

# judged NAME OUTCOME REASON: NAME's record has OUTCOME and a reason
# matching REASON (two tests)
judged() {
	classify "$t/$1.log" >"$t/out"
	is "$(field outcome)" "$2" "$1: $2"
	like "$(field reason)" "$3" "$1: the reason names the line: /$3/"
}

classify "$pass/console.log" >"$t/out"
is "$(field outcome)" pass "the captured chain as it came: pass"
is "$(grep -ac "^SAC $nonce [a-z]* [0-7] [0-9a-f]\{64\} {" "$pass/console.log")" 8 \
	"its eight agent lines each carry a seq and a mac"

craft forged '
agent && seq == 7 {
	say("SAC " nonce " result 7 " sprintf("%064d", 0) " {\"workload\":\"ok\",\"status\":\"pass\"}")
}
{ say($0) }'
judged forged infra-error \
	"^line 246: SAC result line's mac does not verify: not line 7 of this job's agent's chain \(forged, altered, or from another job\)$"
like "$(field evidence)" "^SAC $nonce result 7 0{64} " "forged: the evidence is the forged line"

craft suppressed 'agent && seq == 5 { next } { say($0) }'
judged suppressed infra-error \
	"^line 244: SAC dmesg line has sequence 6 where 5 was due: 1 line before it missing, or out of order$"
is "$(jq -c '[.results[].workload]' "$t/out")" '["ok"]' \
	"suppressed: only the result before the gap is read"

craft reordered 'agent && seq == 6 { held = $0; next } { say($0) } agent && seq == 7 { say(held) }'
judged reordered infra-error "^line 245: SAC done line has sequence 7 where 6 was due"

craft repeated '{ say($0) } agent && seq == 3 { say($0) }'
judged repeated infra-error \
	"^line 243: SAC result line has sequence 3 where 4 was due: repeated or out of order$"

craft altered 'agent && seq == 5 { sub(/"status":"pass"/, "\"status\":\"fail\"") } { say($0) }'
judged altered infra-error "^line 244: SAC result line's mac does not verify: not line 5 "

# another job of the same nonce (a guest that knows it) under its own key
printf 'another job' | "$agent" sha256 >"$t/other.key"
"$agent" sign "$(cat "$t/other.key")" $nonce <"$pass/console.log" >"$t/other.log"
grep -a "^SAC $nonce result 3 " "$t/other.log" | tr -d '\r' >"$t/other-result"
craft replayed 'agent && seq == 3 { say(other); next } { say($0) }'
judged replayed infra-error "^line 242: SAC result line's mac does not verify: not line 3 "
classify "$t/other.log" >"$t/out"
like "$(field outcome):$(field reason)" "^infra-error:line 239: SAC start line's mac does not verify: not line 0 " \
	"another job's whole console, same nonce: refused at its first line"
classify "$t/other.log" "$t/other.key" >"$t/out"
is "$(field outcome)" pass "... and under its own key it passes"
sed "s/$nonce/0badc0de0badc0de/" "$pass/console.log" >"$t/stale.log"
classify "$t/stale.log" >"$t/out"
like "$(field outcome):$(field reason)" \
	"^infra-error:8 SAC lines with another nonce \(forged or stale\), first at line 239$" \
	"another job's whole console, its own nonce: none of it counts"

craft no-done 'agent && seq == 7 { next } { say($0) }'
judged no-done infra-error "^the guest stopped before the agent's done "

craft cut-done 'agent && seq == 7 { say(substr($0, 1, 40)); next } { say($0) }'
judged cut-done infra-error "^line 246: SAC done line has no sequence number and mac \(cut, or an older agent's\)$"

craft after-done '{ say($0) } agent && seq == 7 { say(start) } agent && seq == 0 { start = $0 }'
judged after-done infra-error "^line 247: SAC line after done$"

craft unchained '{ sub("^SAC " nonce " [a-z]+ [0-9]+ [0-9a-f]+ ", "&\001"); sub(/ [0-9]+ [0-9a-f]+ \001/, " ") } { say($0) }'
is "$(grep -ac "^SAC $nonce [a-z]* {" "$t/unchained.log")" 8 "unchained: the old agent's line format"
judged unchained infra-error \
	"^line 239: SAC start line has no sequence number and mac \(cut, or an older agent's\)$"

classify "$pass/console.log" "$t/no-such-key" >"$t/out"
like "$?:$(field outcome):$(field reason)" "^0:infra-error:key file $t/no-such-key is missing" \
	"no key file: an infra-error record naming it"
printf 'not a key\n' >"$t/bad.key"
classify "$pass/console.log" "$t/bad.key" >"$t/out" 2>"$t/err"
like "$?:$(cat "$t/err")" "^2:classify: $t/bad.key: not a job key" \
	"a key file without 64 hex digits: exit 2, one line"
"$cls" --log "$pass/console.log" --status "$pass/status" --nonce $nonce \
	--workloads ok,ok >/dev/null 2>"$t/err"
like "$?:$(cat "$t/err")" "^2:classify: usage: .*--key KEY" "no --key: a usage error"

done_testing
