# Console classifier (host side). Included from the top Makefile after
# farm/common/common.mk; outputs go under $(BUILD_DIR)/host only.
CLS_SRC    := $(dir $(lastword $(MAKEFILE_LIST)))
CLS_OUT    := $(BUILD_DIR)/host
CLS_LIBSRC := $(CLS_SRC)judge.c $(CLS_SRC)lines.c
CLS_DEPS   := $(CLS_LIBSRC) $(CLS_SRC)classify.h $(FARM_COMMON)

.PHONY: classify
classify: $(CLS_OUT)/classify $(CLS_OUT)/classify-unit

$(CLS_OUT)/classify: $(CLS_SRC)classify.c $(CLS_DEPS)
	@mkdir -p $(CLS_OUT)
	$(CC) $(FARM_HOST_CFLAGS) -o $@ $(CLS_SRC)classify.c $(CLS_LIBSRC) $(FARM_HOST_LIBS)

$(CLS_OUT)/classify-unit: $(CLS_SRC)classify_test.c $(CLS_DEPS)
	@mkdir -p $(CLS_OUT)
	$(CC) $(FARM_HOST_CFLAGS) -o $@ $(CLS_SRC)classify_test.c $(CLS_LIBSRC) $(FARM_HOST_LIBS)
