#!/bin/sh
# make debs builds nothing when nothing changed: with the same kernels,
# packaging and profiles, make-debs keeps the packages it made (checked
# by their recorded checksums) instead of repackaging for minutes; a
# package that changed since is rebuilt. Works on a copy of out/farm-debs.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need_debs amd64
[ -f "$debs/amd64/.sac-debs" ] || skip_all "no $debs/amd64/.sac-debs (make all-debs)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 4
mkdir "$tmp/$SERIES"
cp -a "$debs/amd64" "$tmp/$SERIES/amd64"
before=$(cd "$tmp/$SERIES/amd64" && sha256sum ./*.deb)

out=$(DEBS_DIR=$tmp "$top/scripts/make-debs" build amd64 farm 2>&1)
ok $? "make-debs build amd64 farm succeeds"
like "$out" "packages up to date in $tmp/$SERIES/amd64" "it reports the packages up to date"
is "$(cd "$tmp/$SERIES/amd64" && sha256sum ./*.deb)" "$before" "and leaves every .deb as it was"

# A damaged package must not pass as up to date: the stamp holds every
# .deb's checksum, which make-debs compares before skipping the build
# (not run again here: that would repackage for minutes).
img=$(ls "$tmp/$SERIES"/amd64/linux-image-6*.deb | head -n 1)
printf 'x' >>"$img"
if (cd "$tmp/$SERIES/amd64" && tail -n +2 .sac-debs | sha256sum --status -c -); then
	ok 1 "a .deb changed after packaging no longer matches the stamp"
else
	ok 0 "a .deb changed after packaging no longer matches the stamp"
fi
done_testing
