#!/bin/sh
# The guest agent's pure parts on the host: command line parsing, JSON
# escaping, the 4000-byte line bound, the gzip decoder that reads
# /proc/config.gz in the guest, and the line chain (SHA-256, HMAC-SHA256,
# seq and mac on every line: farm/PROTOCOL.md, "Integrity").
. "$(dirname "$0")/../lib/tap.sh"
u=$BUILD_DIR/guest/host/agent-unit
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

if ! make -s -C "$top" -f farm/guest/guest.mk guest-unit \
	BUILD_DIR="$BUILD_DIR" >"$t/make.log" 2>&1; then
	echo "Bail out! cannot build agent-unit: $(tail -n 1 "$t/make.log")"
	exit 1
fi

# Any JSON parser will do; without one those checks are skipped.
if command -v jq >/dev/null; then
	json_ok() { jq -e . >/dev/null 2>&1; }
elif command -v python3 >/dev/null; then
	json_ok() { python3 -c 'import json,sys; json.load(sys.stdin)' 2>/dev/null; }
else
	json_ok() { cat >/dev/null; return 0; }
	echo "# no jq or python3: JSON validity is not checked"
fi

# cmdline TEXT: what agent-unit parsed out of it
cmdline() { printf '%s' "$1" | "$u" cmdline; }
field() { printf '%s\n' "$1" | sed -n "s/^$2=//p"; }

## command line
out=$(cmdline 'console=ttyS0 sac.nonce=0123456789abcdef sac.run=boot,blk,net sac.stall=blk sac.blk.mib=16 root=/dev/x')
is "$(field "$out" nonce)" 0123456789abcdef "nonce parsed"
is "$(field "$out" run)" boot,blk,net "run list parsed in order"
is "$(field "$out" stall)" blk "stall parsed"
is "$(field "$out" "param blk.mib")" 16 "workload parameter parsed"
is "$(field "$out" errors)" 0 "other people's parameters are not errors"

out=$(cmdline '"sac.edu-lying.note=two words" sac.blk.mib=1 sac.blk.mib=2')
is "$(field "$out" "param edu-lying.note")" "two words" "double quotes group blanks, like the kernel"
is "$(printf '%s\n' "$out" | grep -c '^param blk.mib=')" 1 "a repeated parameter is stored once"
is "$(field "$out" "param blk.mib")" 2 "the last one wins"

out=$(cmdline '')
is "$(field "$out" nonce),$(field "$out" run),$(field "$out" errors)" "none,,0" \
	"empty command line: no nonce, nothing to run, no error"

for bad in 0123456789ABCDEF 0123456789abcde 0123456789abcdef0 0123456789abcdeg; do
	out=$(cmdline "sac.nonce=$bad")
	is "$(field "$out" nonce)/$(field "$out" errors)" "none/1" "nonce '$bad' refused"
done
out=$(cmdline 'sac.nonce=0123456789abcdef sac.nonce=XYZ')
is "$(field "$out" nonce)" 0123456789abcdef "a bad nonce does not clobber a good one"

for bad in 'sac.run=boot,,blk' 'sac.run=Boot' 'sac.run=' 'sac.run=a/b' \
	'sac.run=abcdefghijklmnopqrstuvwxyz0123456789'; do
	out=$(cmdline "$bad")
	is "$(field "$out" run)/$(field "$out" errors)" "/1" "'$bad' refused, runs nothing"
done
out=$(cmdline "sac.run=$(seq -s, 1 17 | sed 's/[0-9]*/w&/g')")
like "$(field "$out" first_error)" "too many workloads" "17 workloads: too many"
is "$(field "$out" run)" "" "17 workloads: none of them run"

for bad in 'sac.bogus' 'sac.foo=1' 'sac..x=1' 'sac.blk.=1' 'sac.blk.MiB=1' \
	'sac.stall=../x'; do
	out=$(cmdline "$bad")
	is "$(field "$out" errors)" 1 "'$bad' counted as malformed"
	is "$(printf '%s\n' "$out" | grep -c '^param ')" 0 "'$bad' not stored"
done
out=$(printf 'sac.blk.dev=a\001b' | "$u" cmdline)
is "$(field "$out" errors)" 1 "a control character in a value is refused"
out=$(cmdline "sac.blk.note=$(head -c 300 /dev/zero | tr '\0' x)")
like "$(field "$out" first_error)" "too long" "a 300-byte value is refused"

# 70 distinct parameters: 64 fit, the rest are reported.
out=$(cmdline "$(seq 1 70 | sed 's/.*/sac.w.k&=v/' | tr '\n' ' ')")
is "$(printf '%s\n' "$out" | grep -c '^param ')" 64 "at most 64 parameters kept"
like "$(field "$out" first_error)" "too many parameters" "and the overflow is reported"

# 10 KB: cut at 4 KB; a nonce before the cut is seen, one after is not.
pad=$(head -c 10000 /dev/zero | tr '\0' p)
out=$(cmdline "sac.nonce=0123456789abcdef $pad sac.run=boot")
is "$(field "$out" nonce),$(field "$out" run)" "0123456789abcdef," "oversized: parsed up to the cut"
like "$(field "$out" first_error)" "too long" "oversized: reported"
out=$(cmdline "$pad sac.nonce=0123456789abcdef")
is "$(field "$out" nonce)" none "oversized: nothing after the cut is trusted"

## JSON escaping
esc() { printf "$1" | "$u" escape "$2" 2>/dev/null; }
is "$(esc 'a"b\\c' 100)" 'a\"b\\c' "quote and backslash escaped"
is "$(esc 'x\ny\tz\r' 100)" 'x\ny\tz\r' "newline, tab, CR escaped"
is "$(esc '\001\037\177' 100)" '\u0001\u001f\u007f' "other control characters as \\u00XX"
is "$(esc '\303\251' 100)" '\u00c3\u00a9' "bytes >= 0x80 as \\u00XX: output stays ASCII"
is "$(esc 'abcdef"' 8)" 'abcdef' "a cut never splits an escape (\\\")"
is "$(esc 'abcdef"' 9)" 'abcdef\"' "the escape fits with one more byte"
is "$(esc 'ab\001' 8)" 'ab' "a cut never splits a \\u00XX escape"
is "$(head -c 100000 /dev/zero | tr '\0' a | "$u" escape 4000 2>/dev/null | wc -c)" 4000 \
	"a 100 KB string is cut to the capacity (3999 + newline)"
printf '"%s"\n' "$(printf 'q"\\\001\n\303' | "$u" escape 100 2>/dev/null)" | json_ok
ok $? "escaped nasty bytes form a valid JSON string"

## line bound
check_line() { # FILE KIND DESCRIPTION
	is "$(wc -l <"$1")" 1 "$3: exactly one line"
	[ "$(wc -c <"$1")" -lt 4000 ]
	ok $? "$3: under 4000 bytes ($(wc -c <"$1"))"
	like "$(cat "$1")" "^SAC 0123456789abcdef $2 0 [0-9a-f]{64} \\{" "$3: framed, seq 0, mac"
	cut -d' ' -f6- "$1" | json_ok
	ok $? "$3: the object is valid JSON"
}
"$u" result 3 2 20 >"$t/small"
check_line "$t/small" result "small result"
is "$(cut -d' ' -f6- "$t/small" | grep -c truncated)" 0 "small result: nothing truncated"
like "$(cat "$t/small")" '"metrics":\{"m0":0,"m1":1.5,"m2":3\}' "small result: metrics as numbers"
"$u" result 100 100 100000 >"$t/big"
check_line "$t/big" result "huge result"
like "$(cat "$t/big")" '"truncated":[1-9]' "huge result: says what it dropped"
like "$(cat "$t/big")" '"status":"fail","reason":"data-corruption: ' "huge result: status and reason kept"
"$u" identity 3 40 >"$t/id3"
check_line "$t/id3" identity "identity, 3 devices"
like "$(cat "$t/id3")" '\{"bdf":"0000:00:00.0","vendor":"1af4","device":"1042","group":-1,"domain":"none"\}' \
	"identity: a device without a group"
is "$(grep -c pci_total "$t/id3")" 0 "identity, 3 devices: list not cut"
"$u" identity 500 4095 >"$t/id500"
check_line "$t/id500" identity "identity, 500 devices, 4 KB cmdline"
like "$(cat "$t/id500")" '"pci_total":500\}$' "identity: a cut list says how long it was"
like "$(cat "$t/id500")" '"pci":\[\{"bdf"' "identity: the cut list still has devices"

## word lists (installed-boot's modules, from /proc/modules)
words() { "$u" words modules | cut -d' ' -f6- | jq -r "$1"; }
seq -f 'module_number_%02g 16384 0 - Live 0x0' 1 60 >"$t/modules"
if command -v jq >/dev/null; then
	is "$(words '.details | [.[]] | join(" ")' <"$t/modules")" \
		"$(cut -d' ' -f1 "$t/modules" | tr '\n' ' ' | sed 's/ $//')" \
		"words: every module, in order, none twice"
	is "$(words '.details | keys | join(",")' <"$t/modules")" \
		modules1,modules2,modules3,modules4 "words: 60 names in four details"
	is "$(words '[.details[] | length | select(. > 255)] | length' <"$t/modules")" 0 \
		"words: each detail fits a value (255 bytes)"
	is "$(printf 'one\ntwo\n' | words '.details.modules1')" "one two" \
		"words: a line that is one word"
	is "$(words '.details | length' </dev/null)" 0 "words: no lines, no detail"
else
	for i in 1 2 3 4 5; do ok 0 "# SKIP jq missing (make deps)"; done
fi

## gzip
head -c 300000 /dev/urandom >"$t/random"
{ seq 1 50000; cat "$t/random" | od -An -tx1 | head -2000; } >"$t/text"
printf 'hello' >"$t/tiny"
: >"$t/empty"
for f in random text tiny empty; do
	for lvl in 1 9; do
		gzip -"$lvl" -n <"$t/$f" | "$u" gunzip >"$t/out" 2>/dev/null &&
			cmp -s "$t/out" "$t/$f"
		ok $? "gunzip: $f at -$lvl round-trips"
	done
done
cp "$t/text" "$t/named.txt" && gzip -9 "$t/named.txt"
"$u" gunzip <"$t/named.txt.gz" | cmp -s - "$t/text"
ok $? "gunzip: a header with a file name"

gzip -9 -n <"$t/text" >"$t/good.gz"
size=$(wc -c <"$t/good.gz")
head -c $((size - 100)) "$t/good.gz" | "$u" gunzip >/dev/null 2>"$t/err"
is $? 1 "gunzip: truncated input refused"
is "$(wc -l <"$t/err")" 1 "gunzip: with one error line"
{ head -c 5000 "$t/good.gz"; printf 'X'; tail -c +5002 "$t/good.gz"; } |
	"$u" gunzip >/dev/null 2>&1
is $? 1 "gunzip: a changed byte is caught"
"$u" gunzip <"$t/text" >/dev/null 2>&1
is $? 1 "gunzip: not gzip at all"

sacflag() { printf "$1" | gzip -n | "$u" sacflag; }
is "$(sacflag 'CONFIG_A=y\nCONFIG_IOMMU_DMA_PCI_SAC=y\n')" y "config: option on"
is "$(sacflag '# CONFIG_IOMMU_DMA_PCI_SAC is not set\n')" n "config: option off"
is "$(sacflag 'CONFIG_IOMMU_DMA_PCI_SAC_X=y\nXCONFIG_IOMMU_DMA_PCI_SAC=y\n')" unknown \
	"config: only the exact option counts"
for f in desktop:y server:n; do
	cfg=$BUILD_DIR/kernel/$SERIES-amd64-farm-${f%:*}/kernel/config_data.gz
	if [ -f "$cfg" ]; then
		is "$("$u" sacflag <"$cfg")" "${f#*:}" "the ${f%:*} kernel's own config.gz says ${f#*:}"
	else
		ok 0 "# SKIP no ${f%:*} kernel built"
	fi
done

## SHA-256 (FIPS 180-4 examples) and HMAC-SHA256 (RFC 4231)
sha() { printf "$1" | "$u" sha256; }
is "$(sha '')" e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 "sha256: empty"
is "$(sha abc)" ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad "sha256: abc"
is "$(sha abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq)" \
	248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1 "sha256: two blocks"
is "$(head -c 1000000 /dev/zero | tr '\0' a | "$u" sha256)" \
	cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0 "sha256: a million a's"
bad=
for n in 1 54 55 56 57 63 64 65 119 120 128 1000; do
	head -c "$n" "$t/random" >"$t/part"
	[ "$("$u" sha256 <"$t/part")" = "$(sha256sum <"$t/part" | cut -d' ' -f1)" ] ||
		bad="$bad $n"
done
is "${bad:-none}" none "sha256: agrees with sha256sum at every padding boundary"
hmac() { printf "$2" | "$u" hmac "$1"; }
is "$(hmac 0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b 'Hi There')" \
	b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7 "hmac: RFC 4231 case 1"
is "$(hmac 4a656665 'what do ya want for nothing?')" \
	5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843 "hmac: case 2, a short key"
aa=$(head -c 131 /dev/zero | od -An -v -tx1 | tr -d ' \n' | tr 0 a)
is "$(hmac "$aa" 'Test Using Larger Than Block-Size Key - Hash Key First')" \
	60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54 "hmac: case 6, a key longer than a block"

## the chain: seq and mac on every agent line
key=$(printf 'agent-unit' | "$u" sha256)
n=0123456789abcdef
printf 'x\r\r\nSAC %s %s\r\r\n' "$n start" '{"agent":"sac-agent","version":2}' \
	"$n result" '{"workload":"w","status":"pass"}' \
	"fedcba9876543210 result" '{"workload":"w"}' "$n done" '{"results":1}' |
	head -c -3 >"$t/plain"
"$u" sign "$key" $n <"$t/plain" >"$t/chained"
is "$(grep -a "^SAC $n" "$t/chained" | cut -d' ' -f3-4 | tr '\n' ,)" "start 0,result 1,done 2," \
	"sign: each of the nonce's lines gets the next seq"
is "$(grep -ac "^SAC $n [a-z]* [0-9] [0-9a-f]\{64\} {" "$t/chained")" 3 "sign: and a 64-digit mac before its JSON"
is "$(grep -av "^SAC $n" "$t/chained" | od -An -c | tr -s ' \n' ' ')" \
	"$(grep -av "^SAC $n" "$t/plain" | od -An -c | tr -s ' \n' ' ')" \
	"sign: every other line byte for byte (another nonce's too)"
is "$(tr -cd '\r' <"$t/chained" | wc -c)" "$(tr -cd '\r' <"$t/plain" | wc -c)" "sign: the console's CRs kept"
"$u" sign "$key" $n <"$t/chained" | cmp -s - "$t/chained"
ok $? "sign: a chained log chains to itself"
"$u" sign "$(printf other | "$u" sha256)" $n <"$t/plain" | cut -d' ' -f5 >"$t/macs2"
grep -a "^SAC $n" "$t/chained" | cut -d' ' -f5 | cmp -s - "$t/macs2"
is $? 1 "sign: another key, other macs"
# mac_i = HMAC(key, mac_{i-1} || the line without " <mac>"), mac_0 = HMAC(key, nonce)
if command -v python3 >/dev/null; then
	want=$(python3 -c '
import hmac, hashlib, sys
key, nonce = bytes.fromhex(sys.argv[1]), sys.argv[2].encode()
mac = hmac.new(key, nonce, hashlib.sha256).digest()
for line in sys.stdin.buffer.read().split(b"\n"):
    line = line.rstrip(b"\r")
    if not line.startswith(b"SAC " + nonce + b" "):
        continue
    f = line.split(b" ", 5)
    mac = hmac.new(key, mac + b" ".join(f[:4] + f[5:]), hashlib.sha256).digest()
    print(mac.hex())' "$key" $n <"$t/chained")
	is "$want" "$(grep -a "^SAC $n" "$t/chained" | cut -d' ' -f5)" \
		"chain: every mac is what Python's hmac computes from the protocol's definition"
else
	ok 0 "# SKIP no python3 to compute the macs independently"
fi
"$u" sign abc $n </dev/null >/dev/null 2>&1
is $? 2 "sign: a key that is not 32 bytes is refused"

## module loading: a distribution's compressed modules go to the kernel
## to decompress (MODULE_INIT_COMPRESSED_FILE is 4), plain ones as they are
for m in nvme-core.ko.xz virtio_blk.ko.zst e1000.ko.gz; do
	is "$("$u" modflags "/lib/modules/6.12.0/kernel/$m")" 4 "modflags: $m is decompressed by the kernel"
done
is "$("$u" modflags /lib/modules/6.1.0/extra/sac_edu.ko)" 0 "modflags: a plain .ko is passed as it is"
is "$("$u" modflags .xz)" 0 "modflags: a name that is only the suffix is not a module"

plan "$tap_n"
done_testing
