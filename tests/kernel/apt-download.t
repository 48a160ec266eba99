#!/bin/sh
# Debian's arm64 kernel config (the release base) is fetched without
# changing this machine: scripts/apt-download keeps a foreign arch's
# package lists in a private apt state under $BUILD_DIR/apt and never runs
# dpkg --add-architecture (a dpkg on PATH that records its arguments
# proves it). Bad input gets one line and exit 1.
. "$(dirname "$0")/../lib/tap.sh"
command -v apt-get >/dev/null || skip_all "no apt-get"
[ "$(dpkg --print-architecture)" = amd64 ] || skip_all "the test fetches arm64 from amd64"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 7

mkdir "$tmp/bin"
cat >"$tmp/bin/dpkg" <<EOS
#!/bin/sh
echo "dpkg \$*" >>"$tmp/dpkg.log"
exec /usr/bin/dpkg "\$@"
EOS
chmod +x "$tmp/bin/dpkg"
: >"$tmp/dpkg.log"
PATH=$tmp/bin:$PATH BUILD_DIR=$tmp/build "$top/scripts/fetch-debian-config" \
	arm64 "$tmp/config" >"$tmp/out" 2>&1
is "$?" 0 "fetch-debian-config arm64 succeeds with a private apt state"
sed 's/^/# /' "$tmp/out"
xz -t "$tmp/config/config.arm64_none_arm64.xz" 2>/dev/null
ok $? "... and writes Debian's arm64 config"
xz -dc "$tmp/config/config.arm64_none_arm64.xz" 2>/dev/null | grep -q '^CONFIG_ARM_SMMU_V3='
ok $? "... an arm64 one (CONFIG_ARM_SMMU_V3)"
! grep -q -- '--add-architecture' "$tmp/dpkg.log"
ok $? "dpkg --add-architecture never ran"
[ -d "$tmp/build/apt/arm64/lists" ]
ok $? "the arm64 lists are under BUILD_DIR/apt, not /var/lib/apt"

out=$("$top/scripts/apt-download" sparc foo 2>&1)
is "$out" "apt-download: error: unknown arch 'sparc' (known: amd64 arm64)" \
	"an unknown arch: one line"
out=$(cd "$tmp" && BUILD_DIR=$tmp/build "$top/scripts/apt-download" arm64 no-such-package-$$ 2>&1 | grep -v '^==>')
like "$out" "^apt-download: error: cannot download no-such-package-$$ for arm64 \(see " \
	"a package apt does not have: one line naming it"
done_testing
