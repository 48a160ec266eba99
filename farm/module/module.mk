# Make fragment: build farm/module/sac_edu.ko against a built farm kernel.
#
#   make $(BUILD_DIR)/module/<arch>-<base>-<flavour>/sac_edu.ko
#   make sac-edu-module MODULE_KERNEL=amd64-farm-desktop
#   make sac-edu-modules          (every kernel in $(BUILD_DIR)/kernel that
#                                  has finished building)
#
# <arch>-<base>-<flavour> names the kernel's O= dir under
# $(BUILD_DIR)/kernel/; its .sac-built stamp is a prerequisite, so the
# module is rebuilt whenever that kernel is. The sources are copied into
# the output dir and built there: Linux 6.1 has no MO=, and M= alone would
# write objects into the source tree.

BUILD_DIR ?= /work/main/build
SAC_EDU_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
SAC_EDU_SRCS := $(addprefix $(SAC_EDU_DIR)/,sac_edu.c Kbuild Makefile)
SAC_EDU_KSRC ?= $(BUILD_DIR)/src/linux

# $(call sac_edu_kargs,<arch>-...) -> ARCH/CROSS_COMPILE for that kernel
sac_edu_kargs = $(if $(filter arm64-%,$(1)),ARCH=arm64 \
	CROSS_COMPILE=aarch64-linux-gnu-,ARCH=x86 CROSS_COMPILE=)

$(BUILD_DIR)/module/%/sac_edu.ko: $(SAC_EDU_SRCS) $(BUILD_DIR)/kernel/%/.sac-built
	@mkdir -p $(@D)
	cp $(SAC_EDU_SRCS) $(@D)/
	$(MAKE) --no-print-directory -C $(@D) KSRC=$(SAC_EDU_KSRC) \
		KDIR=$(BUILD_DIR)/kernel/$* $(call sac_edu_kargs,$*)

$(BUILD_DIR)/kernel/%/.sac-built:
	@echo "kernel $* is not built (no $@): run make kernels first" >&2
	@exit 1

.PHONY: sac-edu-module sac-edu-modules sac-edu-need-kernel
sac-edu-module: $(if $(MODULE_KERNEL),$(BUILD_DIR)/module/$(MODULE_KERNEL)/sac_edu.ko,sac-edu-need-kernel)

sac-edu-need-kernel:
	@echo "sac-edu-module: set MODULE_KERNEL=<arch>-<base>-<flavour>" >&2
	@exit 1

sac-edu-modules: $(patsubst $(BUILD_DIR)/kernel/%/.sac-built,$(BUILD_DIR)/module/%/sac_edu.ko,$(wildcard $(BUILD_DIR)/kernel/*/.sac-built))
