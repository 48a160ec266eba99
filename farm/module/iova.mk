# Make fragment: build farm/module/sac_iova.ko (the iova-bench module)
# against a built farm kernel, beside sac_edu.ko where the runner looks:
#
#   make $(BUILD_DIR)/module/<arch>-<base>-<flavour>/sac_iova.ko
#   make sac-iova-module MODULE_KERNEL=amd64-farm-desktop
#   make sac-iova-modules          (every kernel that has finished building)
#
# It builds in its own dir, $(BUILD_DIR)/module-iova/<kernel>/, with a
# Kbuild of its own (module.mk's copy of farm/module/Kbuild names only
# sac_edu.o), and copies the .ko into $(BUILD_DIR)/module/<kernel>/.

BUILD_DIR ?= /work/main/build
SAC_IOVA_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
SAC_IOVA_SRCS := $(addprefix $(SAC_IOVA_DIR)/,sac_iova.c Makefile)
SAC_IOVA_KSRC ?= $(BUILD_DIR)/src/linux

sac_iova_kargs = $(if $(filter arm64-%,$(1)),ARCH=arm64 \
	CROSS_COMPILE=aarch64-linux-gnu-,ARCH=x86 CROSS_COMPILE=)

$(BUILD_DIR)/module-iova/%/sac_iova.ko: $(SAC_IOVA_SRCS) $(BUILD_DIR)/kernel/%/.sac-built
	@mkdir -p $(@D)
	cp $(SAC_IOVA_SRCS) $(@D)/
	echo 'obj-m += sac_iova.o' > $(@D)/Kbuild
	$(MAKE) --no-print-directory -C $(@D) KSRC=$(SAC_IOVA_KSRC) \
		KDIR=$(BUILD_DIR)/kernel/$* $(call sac_iova_kargs,$*)

# keep the built .ko: make would delete it as an intermediate
.PRECIOUS: $(BUILD_DIR)/module-iova/%/sac_iova.ko

$(BUILD_DIR)/module/%/sac_iova.ko: $(BUILD_DIR)/module-iova/%/sac_iova.ko
	@mkdir -p $(@D)
	cp $< $@

.PHONY: sac-iova-module sac-iova-modules sac-iova-need-kernel
sac-iova-module: $(if $(MODULE_KERNEL),$(BUILD_DIR)/module/$(MODULE_KERNEL)/sac_iova.ko,sac-iova-need-kernel)

sac-iova-need-kernel:
	@echo "sac-iova-module: set MODULE_KERNEL=<arch>-<base>-<flavour>" >&2
	@exit 1

sac-iova-modules: $(patsubst $(BUILD_DIR)/kernel/%/.sac-built,$(BUILD_DIR)/module/%/sac_iova.ko,$(wildcard $(BUILD_DIR)/kernel/*/.sac-built))
