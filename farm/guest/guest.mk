# Make fragment: the guest agent (static, one per arch) and the host unit
# driver for its pure parts. Include it from the top Makefile, or use it
# alone: make -f farm/guest/guest.mk guest-agents guest-unit
#
#   $(BUILD_DIR)/guest/amd64/sac-agent   x86_64 static PID 1
#   $(BUILD_DIR)/guest/arm64/sac-agent   aarch64 static PID 1
#   $(BUILD_DIR)/guest/host/agent-unit   native, for tests/quick/agent-unit.t

BUILD_DIR ?= $(CURDIR)/build
SAC_GUEST_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
SAC_GUEST_OUT := $(BUILD_DIR)/guest

SAC_CC_amd64 ?= gcc
SAC_CC_arm64 ?= aarch64-linux-gnu-gcc
SAC_CC_host ?= $(CC)
SAC_GUEST_CFLAGS ?= -O2 -Wall -Wextra -Werror -std=gnu11
# The line chain is the host's too: farm/common's, which needs no jansson.
SAC_GUEST_COMMON := $(SAC_GUEST_DIR)/../common
SAC_GUEST_CPPFLAGS := -I$(SAC_GUEST_COMMON)

# agent.h includes the edu IDs the module shares (farm/module/edu.h).
SAC_GUEST_HDRS := $(wildcard $(SAC_GUEST_DIR)/*.h) $(SAC_GUEST_DIR)/../module/edu.h \
	$(addprefix $(SAC_GUEST_COMMON)/,chain.h sha256.h)
SAC_GUEST_CORE := $(addprefix $(SAC_GUEST_DIR)/,core.c inflate.c) \
	$(addprefix $(SAC_GUEST_COMMON)/,chain.c sha256.c)
# Every wl-*.c is a workload; workloads.c lists them.
SAC_AGENT_SRCS := $(addprefix $(SAC_GUEST_DIR)/,agent.c workloads.c) \
	$(SAC_GUEST_CORE) $(sort $(wildcard $(SAC_GUEST_DIR)/wl-*.c))
SAC_UNIT_SRCS := $(SAC_GUEST_DIR)/unit.c $(SAC_GUEST_CORE)

SAC_AGENTS := $(SAC_GUEST_OUT)/amd64/sac-agent $(SAC_GUEST_OUT)/arm64/sac-agent
SAC_AGENT_UNIT := $(SAC_GUEST_OUT)/host/agent-unit

.PHONY: guest-agents guest-unit

guest-agents: $(SAC_AGENTS)

guest-unit: $(SAC_AGENT_UNIT)

$(SAC_GUEST_OUT)/%/sac-agent: $(SAC_AGENT_SRCS) $(SAC_GUEST_HDRS)
	@mkdir -p $(dir $@)
	$(SAC_CC_$*) $(SAC_GUEST_CFLAGS) $(SAC_GUEST_CPPFLAGS) -static -s -o $@ \
		$(SAC_AGENT_SRCS)

$(SAC_AGENT_UNIT): $(SAC_UNIT_SRCS) $(SAC_GUEST_HDRS)
	@mkdir -p $(dir $@)
	$(SAC_CC_host) $(SAC_GUEST_CFLAGS) $(SAC_GUEST_CPPFLAGS) -g -o $@ \
		$(SAC_UNIT_SRCS)
