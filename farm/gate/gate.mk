# The release gate: $(BUILD_DIR)/host/gate.
GATE_SRC := $(addprefix farm/gate/,gate.c policy.c outputs.c report.c)

$(BUILD_DIR)/host/gate: $(GATE_SRC) farm/gate/gate.h farm/gate/policy.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $(GATE_SRC) -ljansson -lm
