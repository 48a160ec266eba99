# Make fragment: the farm's out-of-tree modules (farm/module/*.c, listed
# in its Kbuild), built against each built farm kernel.
#
#   make $(BUILD_DIR)/module/<series>-<arch>-<base>-<flavour>/sac_edu.ko
#   make farm-module MODULE_KERNEL=6.1-amd64-farm-desktop
#   make farm-modules          (every kernel in $(BUILD_DIR)/kernel that
#                               has finished building)
#
# <series>-<arch>-<base>-<flavour> names the kernel's O= dir under
# $(BUILD_DIR)/kernel/ (its source tree is $(BUILD_DIR)/src/linux-<series>);
# its .sac-built stamp is a prerequisite, so the
# modules are rebuilt whenever that kernel is. The sources are copied into
# the output dir and built there: Linux 6.1 has no MO=, and M= alone would
# write objects into the source tree.

BUILD_DIR ?= $(CURDIR)/build
FARM_MOD_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
FARM_MODS := $(basename $(notdir $(wildcard $(FARM_MOD_DIR)/*.c)))
FARM_MOD_SRCS := $(wildcard $(FARM_MOD_DIR)/*.c $(FARM_MOD_DIR)/*.h) \
	$(addprefix $(FARM_MOD_DIR)/,Kbuild Makefile)
# $(call farm_mod_ksrc,<series>-...) -> that kernel's source tree
farm_mod_ksrc = $(BUILD_DIR)/src/linux-$(firstword $(subst -, ,$(1)))

# $(call farm_mod_kargs,<series>-<arch>-...) -> ARCH/CROSS_COMPILE for it
farm_mod_kargs = $(if $(filter arm64,$(subst -, ,$(1))),ARCH=arm64 \
	CROSS_COMPILE=aarch64-linux-gnu-,ARCH=x86 CROSS_COMPILE=)

# One kbuild run makes every module of a kernel; the stamp stands for all.
$(BUILD_DIR)/module/%/.built: $(FARM_MOD_SRCS) $(BUILD_DIR)/kernel/%/.sac-built
	@mkdir -p $(@D)
	@rm -f $@
	cp $(FARM_MOD_SRCS) $(@D)/
	$(MAKE) --no-print-directory -C $(@D) KSRC=$(call farm_mod_ksrc,$*) \
		KDIR=$(BUILD_DIR)/kernel/$* $(call farm_mod_kargs,$*)
	@touch $@

$(foreach m,$(FARM_MODS),$(BUILD_DIR)/module/%/$(m).ko): $(BUILD_DIR)/module/%/.built
	@test -f $@

$(BUILD_DIR)/kernel/%/.sac-built:
	@echo "kernel $* is not built (no $@): run make kernels first" >&2
	@exit 1

.PHONY: farm-module farm-modules farm-module-need-kernel
farm-module: $(if $(MODULE_KERNEL),$(BUILD_DIR)/module/$(MODULE_KERNEL)/.built,farm-module-need-kernel)

farm-module-need-kernel:
	@echo "farm-module: set MODULE_KERNEL=<series>-<arch>-<base>-<flavour>" >&2
	@exit 1

farm-modules: $(patsubst $(BUILD_DIR)/kernel/%/.sac-built,$(BUILD_DIR)/module/%/.built,$(wildcard $(BUILD_DIR)/kernel/*/.sac-built))
