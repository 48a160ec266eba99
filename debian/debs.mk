# Kernel packages: included from the top Makefile.
#   make debs ARCH=amd64|arm64 FLAVOURS="desktop server" BASE=farm|release
#   make all-debs          both arches, farm base
#   make check-debs        all-debs, then tests/debs (debootstrap root)
#   make source            the source package (.dsc) into out/source/
# Packages, .buildinfo, .changes and lintian.txt land in out/debs/SERIES/ARCH/
# (SERIES: the Makefile's, 6.1 unless set).
.PHONY: debs all-debs check-debs source

debs: deps host-tools
	@scripts/make-debs build $(ARCH) $(BASE) "$(FLAVOURS)"

all-debs: deps host-tools
	@for a in $(ARCHES); do \
		$(MAKE) --no-print-directory debs ARCH=$$a || exit 1; done

source:
	@scripts/make-source

check-debs: all-debs
	$(PROVE) tests/quick/gencontrol.t tests/debs
