#!/bin/sh
# A flavour's tree starts from a built sibling's copy, also when it was
# configured before and never built (make release-check leaves such
# trees): built in place, a release flavour would be compiled whole
# (40 min on amd64) where the copy recompiles what the flavours' options
# touch. A tree that is such a copy already is not copied again. The
# configs are made for real (the farm base, in a build dir of the test's
# own); a stand-in make "builds" by leaving a file that names the tree
# it was built in.
. "$(dirname "$0")/../lib/tap.sh"
src=$BUILD_DIR/src/linux-$SERIES
[ -f "$src/.sac-source" ] || skip_all "no unpacked $src (make kernels)"
[ -x "$BUILD_DIR/host/kconfig-verify" ] || skip_all "no kconfig-verify (make host-tools)"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
plan 8

bd=$t/bd
mkdir -p "$bd/src" "$t/bin"
ln -s "$src" "$bd/src/linux-$SERIES"
ln -s "$BUILD_DIR/host" "$bd/host"
real_make=$(command -v make)
# config targets go to make; the build's targets leave built-in, naming
# the tree (O=) it was made in, and the image
cat >"$t/bin/make" <<EOF
#!/bin/sh
case " \$* " in
*" modules "*) ;;
*) exec "$real_make" "\$@" ;;
esac
for a in "\$@"; do
	case \$a in O=*) o=\${a#O=} ;; esac
done
[ -f "\$o/built-in" ] || echo "\$o" >"\$o/built-in"
mkdir -p "\$o/arch/x86/boot" && : >"\$o/arch/x86/boot/bzImage"
EOF
chmod +x "$t/bin/make"

# kb STAGE FLAVOUR: kernel-build STAGE amd64 farm FLAVOUR in the test's
# build dir; its output in $t/out.
kb() {
	PATH="$t/bin:$PATH" BUILD_DIR=$bd SAC_CCACHE_DIR='' \
		"$top/scripts/kernel-build" "$1" amd64 farm "$2" >"$t/out" 2>&1
}
tree() {
	echo "$bd/kernel/$SERIES-amd64-farm-$1"
}

kb config server
is "$?:$(ls "$(tree server)/.sac-built" 2>/dev/null)" 0: "server configured, not built"
kb build desktop
is "$(cat "$(tree desktop)/built-in")" "$(tree desktop)" "desktop built in its own tree (no sibling built)"
kb build server
like "$(cat "$t/out")" "server: never built; starting from a built sibling instead" \
	"server, configured and never built: its tree is replaced"
like "$(cat "$t/out")" "seeding from $SERIES-amd64-farm-desktop" "... by a copy of desktop's"
is "$(cat "$(tree server)/built-in" 2>&1)" "$(tree desktop)" "server's objects are the copied ones"
grep -q '^CONFIG_LOCALVERSION="-sac-server"$' "$(tree server)/.config"
is "$?" 0 "... and its config is server's"
kb build server
is "$(grep -c 'seeding\|starting from' "$t/out")" 0 "built server again: nothing replaced"
kb build adaptive
is "$(grep -c 'seeding' "$t/out")" 1 "adaptive, a new tree: seeded once, not again after its config"
done_testing
