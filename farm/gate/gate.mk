# Make fragment: the release gate, $(BUILD_DIR)/host/gate. Include it
# after farm/common/common.mk (FARM_COMMON, FARM_HOST_CFLAGS,
# FARM_HOST_LIBS).
GATE_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
GATE_SRCS := $(sort $(wildcard $(GATE_DIR)/*.c))
GATE_HDRS := $(wildcard $(GATE_DIR)/*.h)

$(BUILD_DIR)/host/gate: $(GATE_SRCS) $(GATE_HDRS) $(FARM_COMMON)
	@mkdir -p $(@D)
	$(CC) $(FARM_HOST_CFLAGS) -I$(GATE_DIR) -o $@ $(GATE_SRCS) $(FARM_HOST_LIBS)
