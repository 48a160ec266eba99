#!/bin/sh
# kconfig-verify: the check that stops a dropped option from shipping.
. "$(dirname "$0")/../lib/tap.sh"
kv=$BUILD_DIR/host/kconfig-verify
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
plan 20

cat >"$t/config" <<'CFG'
CONFIG_A=y
CONFIG_B="text"
# CONFIG_C is not set
CONFIG_D=m
CFG
printf 'CONFIG_A=y\nCONFIG_B="text"\n# CONFIG_C is not set\n' >"$t/good"
printf '# comment\n\n# CONFIG_ABSENT is not set\n' >"$t/absent"
printf 'CONFIG_A=y\nCONFIG_GONE=y\nCONFIG_D=y\n' >"$t/bad"
printf 'CONFIG_A=y\nthis is not kconfig\n' >"$t/garbage"

"$kv" "$t/config" "$t/good" 2>"$t/err"
ok $? "all requested options kept: exit 0"
is "$(cat "$t/err")" "" "silent on success"
"$kv" "$t/config" "$t/absent" 2>/dev/null
ok $? "'is not set' matches an absent option"

"$kv" "$t/config" "$t/good" "$t/bad" 2>"$t/err"
is $? 1 "dropped and changed options: exit 1"
err=$(cat "$t/err")
is "$(wc -l <"$t/err")" 1 "one error line"
like "$err" "CONFIG_GONE=y \(from [^)]*bad, got nothing\)" "names the dropped option and its fragment"
like "$err" "CONFIG_D=y \(from [^)]*bad, got m\)" "names the changed option and what it became"
like "$err" "\[2 options\]" "counts them"

"$kv" "$t/config" "$t/garbage" 2>"$t/err"
is $? 2 "malformed fragment: exit 2"
like "$(cat "$t/err")" "garbage:2: not a Kconfig line" "names file and line"

"$kv" "$t/config" "$t/missing" 2>/dev/null
is $? 2 "missing fragment: exit 2"

## --against: a release config trimmed to the farm's modules
cat >"$t/untrimmed" <<'CFG'
CONFIG_A=y
CONFIG_D=m
CONFIG_E=m
CONFIG_E_EXTRA=y
CONFIG_E_BUFS=16
CONFIG_F=m
CFG
# D trimmed; E trimmed, and with it what depends on it; F kept
cat >"$t/trimmed" <<'CFG'
CONFIG_A=y
# CONFIG_D is not set
CONFIG_F=m
CFG
"$kv" --against "$t/untrimmed" "$t/trimmed" "$t/absent" >"$t/out" 2>"$t/err"
ok $? "a trim that changed only modules: exit 0"
like "$(tail -n 1 "$t/out")" ": 2 modules trimmed \(=m -> not set\), 1 kept; 1 =y options kept; 2 options gone with the trimmed modules they depend on \(1 of them =y\); 0 other changes$" \
	"the counts: trimmed, kept, gone with them, other"
is "$(sed '$d' "$t/out" | sort | tr '\n' ,)" \
	"CONFIG_D m -> n trimmed,CONFIG_E m -> n trimmed,CONFIG_E_BUFS 16 -> gone with a trimmed module,CONFIG_E_EXTRA y -> gone with a trimmed module," \
	"every change listed, one a line"
printf 'CONFIG_A=m\nCONFIG_D=m\nCONFIG_E=m\nCONFIG_E_EXTRA=y\nCONFIG_E_BUFS=8\nCONFIG_F=m\nCONFIG_NEW=y\n' >"$t/meddled"
"$kv" --against "$t/untrimmed" "$t/meddled" "$t/absent" >"$t/out" 2>"$t/err"
is $? 1 "a built-in made a module, a value changed, an option turned on: exit 1"
is "$(grep -c 'NOT A TRIM$' "$t/out")" 3 "each of the three is a line NOT A TRIM"
like "$(grep CONFIG_A "$t/out")" "^CONFIG_A y -> m NOT A TRIM$" "=y to =m is not a trim"
like "$(cat "$t/err")" "changed more than modules against .*untrimmed" "and one error line says so"
printf 'CONFIG_A=y\n# CONFIG_D is not set\n' >"$t/lost"
"$kv" --against "$t/untrimmed" "$t/lost" "$t/good" >/dev/null 2>"$t/err"
is $? 1 "a fragment's option lost in the trim: exit 1"
like "$(cat "$t/err")" "lost options the fragments request: CONFIG_B=" "named as without --against"
done_testing
