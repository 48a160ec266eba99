# Make fragment: the farm's host runner, $(BUILD_DIR)/host/farm-runner:
# farm/cli (its command line, which picks the engine), farm/runner (the
# core) and farm/lava (the LAVA engines and renderer).
# Include it from the top Makefile after farm/common/common.mk. farm/farm
# builds it (and the guest agents, modules and classifier from their own
# fragments) before every run.

FARM_RUNNER_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
FARM_LAVA_DIR := $(FARM_RUNNER_DIR)/../lava
FARM_CLI_DIR := $(FARM_RUNNER_DIR)/../cli
FARM_RUNNER := $(BUILD_DIR)/host/farm-runner
FARM_RUNNER_SRCS := $(sort $(wildcard $(FARM_RUNNER_DIR)/*.c $(FARM_LAVA_DIR)/*.c \
	$(FARM_CLI_DIR)/*.c))
FARM_RUNNER_HDRS := $(wildcard $(FARM_RUNNER_DIR)/*.h $(FARM_LAVA_DIR)/*.h)
FARM_RUNNER_LIBS ?= $(shell pkg-config --libs yaml-0.1 2>/dev/null || echo -lyaml)

.PHONY: farm-runner

farm-runner: $(FARM_RUNNER)

$(FARM_RUNNER): $(FARM_RUNNER_SRCS) $(FARM_RUNNER_HDRS) $(FARM_COMMON)
	@mkdir -p $(@D)
	$(CC) $(FARM_HOST_CFLAGS) -I$(FARM_RUNNER_DIR) -I$(FARM_LAVA_DIR) -o $@ \
		$(FARM_RUNNER_SRCS) $(FARM_RUNNER_LIBS) $(FARM_HOST_LIBS)
