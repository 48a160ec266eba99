# Kernel packages: included from the top Makefile.
#   make debs ARCH=amd64|arm64 FLAVOURS="desktop server" BASE=release|farm
#   make all-debs          both arches, farm base unless BASE is given
#   make check-debs        all-debs, then tests/debs (debootstrap root)
#   make source            the source package (.dsc) into out/source/
# Packages, .buildinfo, .changes and lintian.txt land in out/debs/SERIES/ARCH/
# for the release base, out/farm-debs/SERIES/ARCH/ for the farm's (SERIES:
# the Makefile's, 6.1 unless set).
.PHONY: debs all-debs check-debs source

# make debs builds what ships, the release base, unless BASE is given:
# the farm base's packages are the test farm's (make all-debs, which
# make check and make farm use).
DEBS_BASE := $(if $(filter file,$(origin BASE)),release,$(BASE))

debs: deps host-tools
	@scripts/make-debs build $(ARCH) $(DEBS_BASE) "$(FLAVOURS)"

all-debs: deps host-tools
	@for a in $(ARCHES); do \
		$(MAKE) --no-print-directory debs ARCH=$$a BASE=$(BASE) || exit 1; done

source:
	@scripts/make-source

check-debs: all-debs
	$(PROVE) tests/quick/gencontrol.t tests/debs
