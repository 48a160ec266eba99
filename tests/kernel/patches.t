#!/bin/sh
# The series applies in order to a pristine linux-source-6.1 tree, and
# every patch is clean under checkpatch --strict.
. "$(dirname "$0")/../lib/tap.sh"
tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
[ -f "$tarball" ] || skip_all "$tarball missing"
series=$(grep -v '^#' "$top/patches/series")
plan $(($(echo "$series" | wc -l) * 2 + 1))

mkdir -p "$BUILD_DIR"
t=$(mktemp -d "$BUILD_DIR/patches-test.XXXXXX")
trap 'rm -rf "$t"' EXIT
# Only the files the series touches that exist before it (not those it
# creates, "--- /dev/null"), plus checkpatch and its data.
created=$(cd "$top/patches" &&
	awk '/^--- \/dev\/null$/ { getline; sub(/^\+\+\+ b\//, ""); print }' $series)
files=$(cd "$top/patches" && sed -n 's|^--- a/||p' $series | sort -u |
	grep -vxF "$created")
tar -xf "$tarball" -C "$t" --strip-components=1 --wildcards \
	$(for f in $files scripts/checkpatch.pl scripts/spelling.txt \
		scripts/const_structs.checkpatch; do
		echo "linux-source-6.1/$f"; done)
ok $? "pristine files unpacked from $(basename "$tarball")"

for p in $series; do
	out=$(patch -d "$t" -p1 --batch --forward <"$top/patches/$p" 2>&1)
	rc=$?
	! printf '%s' "$out" | grep -Eq 'offset|fuzz|FAILED|rej'
	ok $((rc + $?)) "$p applies cleanly (no offset, fuzz or reject)"
	[ $rc -eq 0 ] || printf '# %s\n' "$out"
	res=$(cd "$t" && perl scripts/checkpatch.pl --strict --no-tree "$top/patches/$p" 2>&1)
	like "$res" "total: 0 errors, 0 warnings," "checkpatch --strict: $p"
done
done_testing
