# Make fragment: triage, $(BUILD_DIR)/host/triage (farm/farm triage), its
# parser unit tests (triage-unit), the fuzz driver (triage-fuzz) and, on
# demand only, that driver under AddressSanitizer and UBSan
# (triage-fuzz-asan).
# Include it after farm/common/common.mk.
TRIAGE_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
TRIAGE_CORE := $(addprefix $(TRIAGE_DIR)/,scan.c devices.c context.c ids.c result.c \
	report.c report_json.c)
TRIAGE_SRCS := $(TRIAGE_DIR)/main.c $(TRIAGE_CORE)
TRIAGE_DEPS := $(TRIAGE_SRCS) $(TRIAGE_DIR)/triage.h $(FARM_COMMON)
TRIAGE_OUT := $(BUILD_DIR)/host

.PHONY: triage
triage: $(TRIAGE_OUT)/triage $(TRIAGE_OUT)/triage-unit $(TRIAGE_OUT)/triage-fuzz

$(TRIAGE_OUT)/triage: $(TRIAGE_DEPS)
	@mkdir -p $(@D)
	$(CC) $(FARM_HOST_CFLAGS) -I$(TRIAGE_DIR) -o $@ $(TRIAGE_SRCS) $(FARM_HOST_LIBS)

$(TRIAGE_OUT)/triage-unit: $(TRIAGE_DIR)/unit.c $(TRIAGE_DEPS)
	@mkdir -p $(@D)
	$(CC) $(FARM_HOST_CFLAGS) -I$(TRIAGE_DIR) -o $@ $(TRIAGE_DIR)/unit.c \
		$(TRIAGE_CORE) $(FARM_HOST_LIBS)

$(TRIAGE_OUT)/triage-fuzz: $(TRIAGE_DIR)/fuzz.c $(TRIAGE_DEPS)
	@mkdir -p $(@D)
	$(CC) $(FARM_HOST_CFLAGS) -I$(TRIAGE_DIR) -o $@ $(TRIAGE_DIR)/fuzz.c \
		$(TRIAGE_CORE) $(FARM_HOST_LIBS)

# The fuzz driver with triage's code and the parser instrumented, for
# tests/quick/triage-fuzz.t; built only when asked for.
TRIAGE_ASAN_COMMON := $(addprefix $(FARM_COMMON_DIR)/,faults.c util.c chain.c sha256.c)
$(TRIAGE_OUT)/triage-fuzz-asan: $(TRIAGE_DIR)/fuzz.c $(TRIAGE_DEPS) $(TRIAGE_ASAN_COMMON)
	@mkdir -p $(@D)
	$(CC) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer -Wall -Wextra -std=gnu11 \
		-I$(FARM_COMMON_DIR) -I$(TRIAGE_DIR) -o $@ $(TRIAGE_DIR)/fuzz.c \
		$(TRIAGE_CORE) $(TRIAGE_ASAN_COMMON) -ljansson -lm

# MB/s on a ~100 MB synthetic log (the figure in README.md, "Triage").
.PHONY: bench-triage
bench-triage: $(TRIAGE_OUT)/triage
	@scripts/bench-triage -n 3
