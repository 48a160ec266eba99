# Make fragment: the farm's host runner, $(BUILD_DIR)/host/farm-runner.
# Include it from the top Makefile, or use it alone:
#   make -f farm/runner/runner.mk farm-runner
# farm/farm builds it (and the guest agents, modules and classifier from
# their own fragments) before every run.

BUILD_DIR ?= $(CURDIR)/build
FARM_RUNNER_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
FARM_RUNNER := $(BUILD_DIR)/host/farm-runner
FARM_RUNNER_SRCS := $(sort $(wildcard $(FARM_RUNNER_DIR)/*.c))
FARM_RUNNER_CFLAGS ?= -O2 -g -Wall -Wextra -Werror -std=gnu11
FARM_RUNNER_LIBS ?= $(shell pkg-config --libs jansson yaml-0.1 2>/dev/null || echo -ljansson -lyaml)

.PHONY: farm-runner

farm-runner: $(FARM_RUNNER)

$(FARM_RUNNER): $(FARM_RUNNER_SRCS) $(wildcard $(FARM_RUNNER_DIR)/*.h)
	@mkdir -p $(@D)
	$(CC) $(FARM_RUNNER_CFLAGS) -o $@ $(FARM_RUNNER_SRCS) $(FARM_RUNNER_LIBS)
