#!/bin/sh
# The fault-line parser and triage under fuzzing. triage-fuzz's generator
# makes a few thousand inputs from the captured consoles and the composed
# logs (byte flips, junk, NUL and CR, cut and doubled spans, very long
# lines, fragments of every fault format with random numbers) and runs
# them through triage's own code; every 25th also goes to the program,
# which must exit 0 or 1 with nothing on stderr and JSON that parses.
# Then the same code built with AddressSanitizer and UBSan (made here,
# once: make .../host/triage-fuzz-asan) on other inputs. A failure names
# the input; triage-fuzz -s SEED -x I writes it out to replay.
# TRIAGE_FUZZ_SEED picks other inputs (default 1).
. "$(dirname "$0")/../lib/tap.sh"
tri=$BUILD_DIR/host/triage
fuzz=$BUILD_DIR/host/triage-fuzz
asan=$BUILD_DIR/host/triage-fuzz-asan
[ -x "$tri" ] && [ -x "$fuzz" ] || skip_all "build first: make triage"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
seed=${TRIAGE_FUZZ_SEED:-1}
set -- "$top"/tests/data/console/*/console.log "$top"/tests/data/triage/*.log
plan 3

s=$(date +%s)
"$fuzz" -n 2000 -e 25 -s "$seed" "$tri" "$@" >"$t/out" 2>&1
r=$?
sed 's/^/# /' "$t/out"
ok $r "2000 inputs (seed $seed), 80 of them through the program: $(tail -n 1 "$t/out") in $(($(date +%s) - s)) s"

if make -s -C "$top" BUILD_DIR="$BUILD_DIR" "$asan" >"$t/make" 2>&1; then
	s=$(date +%s)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		"$asan" -n 1000 -e 0 -s "$((seed + 1))" "$tri" "$@" >"$t/asan" 2>&1
	r=$?
	tail -n 40 "$t/asan" | sed 's/^/# /'
	ok $r "under ASan and UBSan, 1000 other inputs: $(tail -n 1 "$t/asan") in $(($(date +%s) - s)) s"
else
	sed 's/^/# /' "$t/make"
	ok 0 "under ASan and UBSan # SKIP the sanitizer build failed (no libasan/libubsan?)"
fi

"$fuzz" -n 1 -s "$seed" -x 0 -k "$t" "$tri" "$@" >/dev/null
[ -f "$t/fuzz-0.log" ]
ok $? "an input can be written out to replay (-x)"
done_testing
