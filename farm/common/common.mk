# Make fragment: farm/common, the host tools' shared library,
# $(BUILD_DIR)/host/libfarm-common.a. The runner, the classifier and the
# gate link it; include this before their fragments.

FARM_COMMON_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
FARM_COMMON := $(BUILD_DIR)/host/libfarm-common.a
FARM_COMMON_SRCS := $(sort $(wildcard $(FARM_COMMON_DIR)/*.c))
FARM_COMMON_HDRS := $(wildcard $(FARM_COMMON_DIR)/*.h)
FARM_COMMON_OBJDIR := $(BUILD_DIR)/host/farm-common
FARM_COMMON_OBJS := $(patsubst $(FARM_COMMON_DIR)/%.c,$(FARM_COMMON_OBJDIR)/%.o,$(FARM_COMMON_SRCS))
# Host C flags every farm host tool is built with.
FARM_HOST_CFLAGS ?= -O2 -g -Wall -Wextra -Werror -std=gnu11 -I$(FARM_COMMON_DIR)
FARM_HOST_LIBS := $(FARM_COMMON) -ljansson -lm

$(FARM_COMMON_OBJDIR)/%.o: $(FARM_COMMON_DIR)/%.c $(FARM_COMMON_HDRS)
	@mkdir -p $(@D)
	$(CC) $(FARM_HOST_CFLAGS) -c -o $@ $<

$(FARM_COMMON): $(FARM_COMMON_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^
