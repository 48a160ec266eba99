# Console classifier (host side). Included from the top Makefile; outputs
# go under $(BUILD_DIR)/host only.
BUILD_DIR ?= /work/main/build
CLS_SRC   := $(dir $(lastword $(MAKEFILE_LIST)))
CLS_OUT   := $(BUILD_DIR)/host
CLS_FLAGS := -O2 -g -Wall -Wextra -Werror
CLS_LIBS  := -ljansson
CLS_DEPS  := $(CLS_SRC)judge.c $(CLS_SRC)classify.h

.PHONY: classify
classify: $(CLS_OUT)/classify $(CLS_OUT)/classify-unit

$(CLS_OUT)/classify: $(CLS_SRC)classify.c $(CLS_DEPS)
	@mkdir -p $(CLS_OUT)
	$(CC) $(CLS_FLAGS) -o $@ $(CLS_SRC)classify.c $(CLS_SRC)judge.c $(CLS_LIBS)

$(CLS_OUT)/classify-unit: $(CLS_SRC)classify_test.c $(CLS_DEPS)
	@mkdir -p $(CLS_OUT)
	$(CC) $(CLS_FLAGS) -o $@ $(CLS_SRC)classify_test.c $(CLS_SRC)judge.c $(CLS_LIBS)
