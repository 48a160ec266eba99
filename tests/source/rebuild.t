#!/bin/sh
# The source package rebuilds from its .dsc as a Debian builder would
# run it: dpkg-source -x, then dpkg-buildpackage -Pnocheck as an
# unprivileged user (nobody), with no network (a network namespace of
# its own), an unwritable HOME and parallel=N; its ccache is the
# project's, mounted read-only (the builder enables it by setting
# CCACHE_DIR; the build must not need to write there). One flavour,
# amd64: the packages it makes hold the same files as make debs' ones.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../debs/lib.sh"
a=amd64
need_debs $a
[ "$(id -u)" = 0 ] || skip_all "building as nobody needs root to switch to it"
f=$(flavours | head -n 1)
kr=$(kr_of "$f")
plan 9
log=$BUILD_DIR/logs/debs-source.log
: >"$log"

SOURCE_DIR=$BUILD_DIR/source-out "$top/scripts/make-source" >>"$log" 2>&1
ok $? "scripts/make-source: .dsc, orig and debian tarballs"
dsc=$BUILD_DIR/source-out/linux-sac_$version.dsc
lintian --fail-on error "$dsc" >>"$log" 2>&1
ok $? "lintian: no error on the .dsc"

t=$(mktemp -d /tmp/sac-source.XXXXXX)
trap 'rm -rf "$t"' EXIT
chmod 755 "$t"
dpkg-source -x "$dsc" "$t/src" >>"$log" 2>&1
ok $? "dpkg-source -x unpacks it"
# dpkg-source -b leaves VCS files out of the .debian.tar.xz by default:
# debian/.gitignore is the one we have.
tracked=$(cd "$top" && git ls-files | grep -v '^debian/\(.*/\)\?\.gitignore$' | sort)
got=$(cd "$t/src" && find . -type f ! -path './.pc/*' | sed 's|^\./||' | sort)
is "$got" "$tracked" "the unpacked source is what git tracks (less debian/.gitignore)"
chown -R nobody:nogroup "$t"
mkdir "$t/ccache"
cache=$(sh -c '. "$1/scripts/lib.sh" && echo "$SAC_CCACHE_HOME"' "$top/scripts/lib.sh" "$top")
[ -d "$cache" ] || mkdir -p "$cache"

# In private mount and network namespaces: the cache read-only where
# nobody can reach it, then nobody builds with no network and HOME=/nonexistent.
unshare --net --mount --propagation private sh -eu -c '
	t=$1 cache=$2 jobs=$3 prof=$4
	mount --bind "$cache" "$t/ccache"
	mount -o remount,bind,ro "$t/ccache"
	cd "$t/src"
	exec setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/nonexistent LC_ALL=C.UTF-8 \
		DEB_BUILD_OPTIONS="nocheck parallel=$jobs" CCACHE_DIR="$t/ccache" \
		CCACHE_READONLY=1 CCACHE_TEMPDIR="$t/ccache-tmp" \
		dpkg-buildpackage -b -uc -us -P"$prof"
' sh "$t" "$cache" "$(nproc)" "nocheck,pkg.linux-sac.flavour-$f" >>"$log" 2>&1
r=$?
ok $r "dpkg-buildpackage -Pnocheck as nobody, no network, HOME unwritable"
[ $r -eq 0 ] || tail -n 15 "$log" | sed 's/^/#   /'
[ ! -e /nonexistent ]
ok $? "HOME stayed unwritable (no /nonexistent made)"
built=$t/linux-image-${kr}_${version}_$a.deb
"$top/scripts/make-debs" verify "$built" >>"$log" 2>&1
ok $? "the rebuilt linux-image-$kr is a $f kernel (make-debs verify)"
for p in "linux-image-$kr" "linux-headers-$kr"; do
	is "$(dpkg-deb -c "$t/${p}_${version}_$a.deb" 2>/dev/null | awk '{print $1, $6}' | sort | md5sum)" \
		"$(dpkg-deb -c "$(deb "$p" $a)" | awk '{print $1, $6}' | sort | md5sum)" \
		"$p: the same files, modes and links as make debs built"
done
done_testing
