#!/bin/sh
# The autopkgtests of debian/tests/control pass on the amd64 packages,
# run by autopkgtest itself with its chroot runner in a scratch copy of
# the bookworm root (the unshare runner needs /etc/subuid ranges this
# machine's root has not got; null would install kernels on the host).
# The chroot gets /proc, a private /dev/pts and a persistent apt archive
# in a mount namespace of its own, so nothing stays mounted whatever
# happens; a test that fails is named, with autopkgtest's log.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
a=amd64
need_debs $a
command -v autopkgtest >/dev/null || skip_all "autopkgtest missing (make deps)"
tests=$(sed -n 's/^Tests: *//p' "$top/debian/tests/control")
plan $((2 + $(echo $tests | wc -w)))
log=$BUILD_DIR/logs/debs-autopkgtest.log
out=$BUILD_DIR/autopkgtest-out
archives=$BUILD_DIR/apt-archives

work_root autopkgtest
ok 0 "scratch copy of the bookworm root ($root_cache)"

# The series' package tree (what its .dsc holds), not build/.
src=$BUILD_DIR/autopkgtest-src
rm -rf "$out"
mkdir -p "$archives/partial"
"$top/scripts/package-tree" "$src" >>"$log" 2>&1
# Every farm package of this source, all flavours: the tests' Depends
# name each flavour's kernel as the release one or else the farm one.
set --
for p in "$kbuild_pkg" $(for f in $(flavours); do
	kr=$(kr_of "$f")
	echo "linux-image-$kr linux-headers-$kr linux-image-$kr-dbg"
	echo "linux-image-$(meta_of "$f") linux-headers-$(meta_of "$f")"
done); do
	set -- "$@" "$(deb "$p" $a)"
done

unshare --mount --propagation private sh -eu -c '
	r=$1 archives=$2 out=$3 src=$4
	shift 4
	mount -t proc proc "$r/proc"
	mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$r/dev/pts"
	rm -f "$r/dev/ptmx"
	ln -s pts/ptmx "$r/dev/ptmx"
	mount --bind "$archives" "$r/var/cache/apt/archives"
	exec autopkgtest --output-dir "$out" -B "$@" "$src/" -- chroot "$r"
' sh "$root" "$archives" "$out" "$src" "$@" >"$log" 2>&1
rc=$?
ok $rc "autopkgtest ... -- chroot: every test passes (exit $rc; log $log)"
for t in $tests; do
	grep -Eq "^$t +PASS" "$out/summary" 2>/dev/null
	r=$?
	ok $r "autopkgtest $t: PASS"
	[ $r -eq 0 ] || grep -A3 "^$t " "$out/summary" "$out/log" 2>/dev/null |
		tail -n 12 | sed 's/^/#   /'
done
rm -rf "$src"
done_testing
