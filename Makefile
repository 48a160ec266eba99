# Thin glue: every recipe calls a script or a tool that does the work.
ARCH     ?= amd64
ARCHES   ?= amd64 arm64
BASE     ?= farm
FLAVOURS ?= $(shell scripts/flavours)
# The kernel series (patches/SERIES/; scripts/series lists them): every
# kernel, package and farm target works on this one.
SERIES   ?= $(shell scripts/series --default)
export SERIES
BUILD_DIR ?= $(CURDIR)/build
export BUILD_DIR

HOST    := $(BUILD_DIR)/host
CFLAGS  ?= -O2 -g -Wall -Wextra -Werror
# Every test runs the way make check runs it, through tests/lib/run-test
# (which executes the file itself): a test that is not executable fails
# in make check-quick too, not only in CI.
PROVE   := prove --timer -f --exec tests/lib/run-test

.PHONY: all deps host-tools kernels all-kernels debug-kernels image-kernels release-modules release-check all-release-check check-release check-lava check-export check-source check-series \
	check check-quick bench-build clean farm farm-quick farm-tools bench bench-iova bench-farm bench-installed bench-release

# The targets share one kernel source tree and two cores: make -j runs
# them one after the other (each kernel build is parallel inside).
.NOTPARALLEL:

all: kernels

deps:
	@scripts/deps

$(HOST)/%: tools/%.c
	@mkdir -p $(HOST)
	$(CC) $(CFLAGS) -o $@ $<

include debian/debs.mk
include farm/common/common.mk
include farm/gate/gate.mk
include farm/classify/classify.mk
include farm/triage/triage.mk
include farm/guest/guest.mk
include farm/module/module.mk
include farm/runner/runner.mk

host-tools: $(HOST)/kconfig-verify $(HOST)/gate classify triage

kernels: deps host-tools
	@for f in $(FLAVOURS); do \
		scripts/kernel-build build $(ARCH) $(BASE) $$f || exit 1; done

all-kernels: deps host-tools
	@for a in $(ARCHES); do \
		$(MAKE) --no-print-directory kernels ARCH=$$a || exit 1; done

# kernel_per_arch BASE FLAVOUR: that kernel for every arch in ARCHES
kernel_per_arch = for a in $(ARCHES); do \
	scripts/kernel-build build $$a $(1) $(2) || exit 1; done

# The debug base (KASAN, lockdep, hang checkers) for the race and fault
# tests, one flavour per arch: what they test is the same in every flavour.
DEBUG_FLAVOUR := desktop
debug-kernels: deps host-tools
	@$(call kernel_per_arch,debug,$(DEBUG_FLAVOUR))

# The kernel scripts/farm-image boots to install .debs into the bookworm
# image: any farm-base kernel of the arch. Every target that boots an
# installed system asks for it, because gating or timing the release
# base alone builds no farm-base kernel.
IMAGE_FLAVOUR := desktop
image-kernels: deps host-tools
	@$(call kernel_per_arch,farm,$(IMAGE_FLAVOUR))

# Debian's shipped config + each flavour, compiling only what the series
# touches: a full release build takes hours on two cores.
# The modules the release base keeps (config-fragments/base/release-*.modules):
# those Debian's own kernel loads on the farm's installed system.
release-modules: deps farm-tools
	@scripts/release-modules

release-check: deps host-tools
	@for f in $(FLAVOURS); do \
		scripts/kernel-build object $(ARCH) release $$f \
			drivers/iommu/dma-iommu.o || exit 1; done

QUICK_TESTS := tests/quick $(HOST)/classify-unit

# Two at a time: most of them wait more than they compute. The agent's
# unit driver, which three of them build, is built first, once.
check-quick: deps host-tools guest-unit
	$(PROVE) -j2 $(QUICK_TESTS)

all-release-check: deps host-tools
	@for a in $(ARCHES); do \
		$(MAKE) --no-print-directory release-check ARCH=$$a || exit 1; done

# Everything farm/farm needs; it runs this before every run.
farm-tools: host-tools farm-runner guest-agents farm-modules

# The tests that boot the debug kernels, or wait on kernel-build's lock,
# run after the others: scripts/run-check builds the debug kernels while
# the packages are built and the others run.
DEBUG_TESTS := tests/farm/debug.t tests/faults/faults.t tests/kernel/verify-rejects.t
# Outside make check, for CI's 90 minutes from a fresh machine (README,
# "Tests"): the autopkgtests under autopkgtest's own runner (make
# check-source) and the loopback LAVA lab (make check-lava).
SLOW_TESTS := tests/debs/autopkgtest.t tests/lava-lab/lab.t
CHECK_TESTS := $(QUICK_TESTS) $(filter-out $(DEBUG_TESTS) $(SLOW_TESTS),$(wildcard \
	$(patsubst %,%/*.t,tests/kernel tests/gate tests/farm tests/faults \
	tests/debs tests/installed tests/lava tests/lava-lab)))

# Each test names itself as it starts (tests/lib/run-test): a CI run
# stopped at its time limit shows which test it was in.
check: deps host-tools all-kernels all-release-check farm-tools
	PROVE='$(PROVE)' scripts/run-check --make all-debs \
		$(CHECK_TESTS) -- $(DEBUG_TESTS)

# The LAVA tests: rendered jobs, the lava-run engine, and a loopback lab
# (lava-server + lava-worker, scripts/lava-lab) running rendered jobs
# submitted with lavacli (needs root).
check-lava: deps all-kernels farm-tools
	$(PROVE) tests/lava tests/lava-lab

# The export to Debian's linux source package (scripts/export-debian-linux)
# proved on that package: downloads it (140 MB, cached in BUILD_DIR), runs
# Debian's own rules on it. Not part of check: its 4 minutes do not fit
# CI's 90-minute budget (README, "Tests").
check-export: deps
	$(PROVE) tests/export

# The source package rebuilt from its .dsc as a buildd would (nobody, no
# network, HOME unwritable, -Pnocheck): a kernel build of its own, whose
# 10 minutes do not fit CI's budget either (README, "Tests"); and the
# autopkgtests of debian/tests/control run by autopkgtest on the amd64
# packages (11 minutes from a fresh machine).
check-source: deps all-debs
	$(PROVE) tests/source tests/debs/autopkgtest.t

# The release base's packages, built and then tested beside the farm
# base's (tests/release). Not part of check: the release kernels' cold
# builds do not fit CI's 90 minutes beside it (README, "Tests"); make
# check proves their configs (make release-check).
check-release: deps all-debs
	@$(MAKE) --no-print-directory all-debs BASE=release
	$(PROVE) tests/release

# Every series but the default (make check covers that one): its farm
# kernels, release checks and packages, then the tests of a series' own
# kernels on it (coinstall.t also installs the default series' packages;
# stock-6.12.t boots Debian's own 6.12 kernels, 2.6 min).
# Not part of check: a series' cold kernel builds (~25 min) do not fit
# CI's 90-minute budget (README, "Kernel series").
OTHER_SERIES := $(filter-out $(shell scripts/series --default),$(shell scripts/series))
SERIES_TESTS := tests/kernel/flavours.t tests/kernel/release.t tests/farm/boot.t tests/farm/workloads.t \
	tests/farm/sacpol.t tests/farm/pressure.t tests/farm/debs.t tests/debs/files.t \
	tests/series/peer.t tests/series/coinstall.t tests/series/stock-6.12.t
check-series: deps host-tools all-debs
	@for s in $(OTHER_SERIES); do \
		$(MAKE) --no-print-directory all-kernels all-release-check all-debs SERIES=$$s && \
		$(MAKE) --no-print-directory farm-tools SERIES=$$s && \
		SERIES=$$s $(PROVE) $(SERIES_TESTS) || exit 1; done

# The main job: build the .debs of each base of FARM_BASES, boot the
# default matrix on the kernels from those packages, gate it: every
# series, unless SERIES is given on the command line or in the
# environment. The release base is what ships; the farm base keeps the
# deep DMA workloads fast, and is all make farm-quick gates.
FARM_SERIES := $(if $(filter file,$(origin SERIES)),$(shell scripts/series),$(SERIES))
FARM_BASES ?= release farm
farm: deps farm-tools image-kernels
	@for s in $(FARM_SERIES); do for b in $(FARM_BASES); do \
		$(MAKE) --no-print-directory all-debs SERIES=$$s BASE=$$b || exit 1; \
		done; done
	@FARM_SERIES="$(FARM_SERIES)" FARM_BASES="$(FARM_BASES)" scripts/farm-release

farm-quick:
	@$(MAKE) --no-print-directory farm FARM_BASES=farm

bench-build: deps host-tools
	@scripts/bench-build $(ARCH) $(BASE)

bench-farm: deps all-kernels farm-tools
	@scripts/bench-farm -n 3

bench-iova: deps all-kernels farm-tools
	@scripts/bench-iova -n 3
	@scripts/bench-iova -M -n 3

# The installed system: image cold/warm, an install, installed against
# initramfs boots, and the installed cells of every .deb (--matrix).
bench-installed: deps all-debs farm-tools image-kernels
	@scripts/bench-installed -n 3 --base $(BASE) --matrix

# The release base's figures: build times per arch (cold, warm second
# flavour), how its configs differ from Debian's, its packages' build,
# and its boots (bench-installed: initramfs and installed, no --matrix).
bench-release: deps host-tools
	@for a in $(ARCHES); do scripts/bench-build $$a release || exit 1; done
	@$(MAKE) --no-print-directory all-kernels all-debs farm-tools image-kernels BASE=release
	@scripts/bench-release
	@scripts/bench-installed -n 3 --base release

# Figures for README: build times per arch, IOVA cost with the trick on/off.
bench: deps
	@for a in $(ARCHES); do $(MAKE) --no-print-directory bench-build ARCH=$$a || exit 1; done
	@$(MAKE) --no-print-directory bench-farm
	@$(MAKE) --no-print-directory bench-iova
	@$(MAKE) --no-print-directory bench-installed

clean:
	rm -rf $(BUILD_DIR)/kernel $(BUILD_DIR)/logs $(BUILD_DIR)/host

# make help: the targets a user runs and the variables they take, one
# line each: a target meant for users gets its line here.
define HELP
usage: make [TARGET]... [VARIABLE=VALUE]...   (no target: kernels)
targets:
  farm               build the .debs of every series (or SERIES) on FARM_BASES, boot the default matrix on them, gate it
  farm-quick         farm on the farm base alone: the inner loop
  check              everything CI runs: all kernels, release checks, .debs, all tests
  check-quick        the unit tests alone (tests/quick), no kernel build
  kernels            build FLAVOURS for ARCH on BASE (scripts/kernel-build)
  all-kernels        kernels for every arch in ARCHES
  debug-kernels      the debug farm base (KASAN, lockdep, hang checkers; desktop) for every arch in ARCHES
  release-modules    capture what Debian's own kernel loads on the farm's installed systems: the modules the release base keeps
  release-check      Debian's config + each flavour, trimmed to the farm's modules, compiling dma-iommu.o only
  all-release-check  release-check for every arch in ARCHES
  debs               the kernel packages of FLAVOURS for ARCH and SERIES on the release base (~75 min for amd64's three), into out/debs/SERIES/ARCH; BASE=farm: out/farm-debs/SERIES/ARCH
  all-debs           the farm base's debs (or BASE's) for every arch in ARCHES
  check-debs         all-debs, then the package tests (tests/debs)
  check-lava         the LAVA tests: rendered jobs, lava-run, a loopback lab
  check-export       scripts/export-debian-linux proved on Debian's linux source
  check-release      the release base's .debs of every arch, then its tests (tests/release)
  check-source       the .dsc rebuilt as nobody, with no network (tests/source), and the autopkgtests
  check-series       every series but the default: its kernels, .debs and farm tests
  source             the source package (.dsc, orig, debian tarballs) into out/source
  bench              bench-build for every arch, then bench-farm, bench-iova and bench-installed
  bench-build        kernel build times for ARCH on BASE (cold, warm, no-op)
  bench-farm         boot-to-agent times and the default matrix's wall time
  bench-iova         iova-bench: the SAC trick on and off, then always/adaptive/strict against never in one boot
  bench-installed    the installed system: image cold/warm, an install, installed against initramfs boots, its cells' wall time (BASE's .debs)
  bench-release      the release base: build times, config diff against Debian's, .deb build, boots
  farm-tools         the farm's runner, classifier, guest agents and modules
  deps               install what debian/control, debian/tests/control and tests/control declare (root)
  clean              remove $$BUILD_DIR's kernels, logs and host tools
  help               this text
variables (each with its value now):
  ARCH       one arch, amd64 (native) or arm64 (cross): $(ARCH)
  ARCHES     the arches of the all-* targets: $(ARCHES)
  FLAVOURS   any of scripts/flavours (config-fragments/*.config): $(FLAVOURS)
  SERIES     one of scripts/series (patches/*/), the Debian kernel source to patch: $(SERIES)
  BASE       farm (tinyconfig + base/farm-*.config), debug (farm + base/debug.config) or release (Debian's config): $(BASE)
  FARM_BASES the bases make farm gates, release and/or farm: $(FARM_BASES)
  BUILD_DIR  where everything built goes: $(BUILD_DIR)
endef

.PHONY: help
help:
	@: $(info $(HELP))
