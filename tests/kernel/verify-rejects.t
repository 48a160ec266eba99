#!/bin/sh
# The config stage fails, naming the option, when a fragment asks for
# something olddefconfig cannot keep.
. "$(dirname "$0")/../lib/tap.sh"
src=$BUILD_DIR/src/linux-$SERIES
[ -f "$src/.sac-source" ] || skip_all "no unpacked tree (make kernels first)"
plan 4

t=$(mktemp -d "$BUILD_DIR/verify-test.XXXXXX")
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/build/src" "$t/frag"
ln -s "$src" "$t/build/src/linux-$SERIES"
ln -s "$BUILD_DIR/host" "$t/build/host"
cp -r "$top/config-fragments/base" "$t/frag/"
# An x86 kernel cannot have the Arm SMMU driver.
cat "$top/config-fragments/server.config" >"$t/frag/broken.config"
echo 'CONFIG_ARM_SMMU_V3=y' >>"$t/frag/broken.config"

err=$(BUILD_DIR=$t/build FRAGMENTS=$t/frag \
	"$top/scripts/kernel-build" config amd64 farm broken 2>&1 >/dev/null)
rc=$?
[ $rc -ne 0 ]
ok $? "config stage fails (rc=$rc)"
like "$err" "CONFIG_ARM_SMMU_V3=y \(from [^)]*broken.config, got nothing\)" \
	"the error names the dropped option and its fragment"
! [ -f "$t/build/kernel/$SERIES-amd64-farm-broken/.sac-config" ]
ok $? "no config stamp left behind"
last=$(printf '%s\n' "$err" | tail -n 1)
like "$last" "^kernel-build: error: $SERIES/amd64/farm/broken: config fragments not honoured" \
	"a clear final error line"
done_testing
