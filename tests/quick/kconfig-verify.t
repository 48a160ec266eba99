#!/bin/sh
# kconfig-verify: the check that stops a dropped option from shipping.
. "$(dirname "$0")/../lib/tap.sh"
kv=$BUILD_DIR/host/kconfig-verify
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
plan 11

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
done_testing
