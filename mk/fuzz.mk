# Fuzzing (docs/fuzzing.md; clang and libFuzzer; CI runs each harness 5 s); included by the
# Makefile. Every lib/**/*.c again with clang and the sanitizers into build-fuzz/, one
# harness per parser (tests/fuzz/*_fuzz.c), seed corpora made by tests/fuzz/seeds.sh with
# the tools. `make fuzz` runs each harness FUZZ_S seconds, one after another;
# `make fuzz FUZZ=model FUZZ_S=1800` runs one.
FUZZ_S      ?= 60
FUZZ_CC     ?= clang
FUZZ_DIR    := build-fuzz
FUZZ_ALL    := $(patsubst tests/fuzz/%_fuzz.c,%,$(wildcard tests/fuzz/*_fuzz.c))
FUZZ        ?= $(FUZZ_ALL)
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -pthread -Iinclude -Ilib -I/usr/include/libexttextcat $(FUZZ_SAN)
FUZZ_LIB    := $(FUZZ_DIR)/libnmt.a
FUZZ_UTIL   := $(FUZZ_DIR)/tests/fuzz/fuzz_util.o
.PHONY: fuzz fuzz-build fuzz-clang

# clang with its libFuzzer runtime (only recommended by clang's package), installed like
# .ci/deps installs its packages when a trivial harness does not link
fuzz-clang:
	@mkdir -p $(FUZZ_DIR)
	@echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' | \
	  $(FUZZ_CC) -x c - -fsanitize=fuzzer -o $(FUZZ_DIR)/probe 2>/dev/null || { \
	  SUDO=; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq clang libclang-rt-dev; }

$(FUZZ_DIR)/%.o: %.c | fuzz-clang
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_LIB): $(LIB_SRC:%.c=$(FUZZ_DIR)/%.o)
	rm -f $@
	$(AR) qcs $@ $^

# A harness of a tool's parser names the tool's sources it takes (FUZZ_SRC_NAME) and the
# libraries they need (FUZZ_LIBS_NAME): nmt-serve's websocket frames and request bodies.
FUZZ_SRC_ws       := tools/serve/ws_frame.c
FUZZ_SRC_request  := tools/serve/request.c tools/serve/request_search.c
FUZZ_LIBS_request := -ljansson
fuzz_tool_objs = $(patsubst %.c,$(FUZZ_DIR)/%.o,$(FUZZ_SRC_$1))
$(FUZZ_DIR)/tools/%.o: FUZZ_CFLAGS += -Itools/common
# (a harness names a tool's header from tools/: "serve/ws_frame.h")
$(FUZZ_DIR)/tests/fuzz/%.o: FUZZ_CFLAGS += -Itools
$(FUZZ_DIR)/%_fuzz: $(FUZZ_DIR)/tests/fuzz/%_fuzz.o $(FUZZ_UTIL) $$(call fuzz_tool_objs,$$*) $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -pthread $^ $(FUZZ_LIBS_$*) $(LDLIBS) -o $@

fuzz-build: $(FUZZ_ALL:%=$(FUZZ_DIR)/%_fuzz)

# Crashes land in build-fuzz/crash/NAME-*; -timeout turns a hang into a crash report;
# tests/fuzz/NAME.dict, when there is one, names the format's keywords.
fuzz: fuzz-build $(TOOL_BINS)
	@for f in $(FUZZ); do [ -d $(FUZZ_DIR)/corpus/$$f ] || \
	  { bash tests/fuzz/seeds.sh $(BIN) $(FUZZ_DIR)/corpus && break; } || exit 1; done
	@mkdir -p $(FUZZ_DIR)/crash $(FUZZ:%=$(FUZZ_DIR)/corpus/%)
	@for f in $(FUZZ); do echo "fuzz: $$f for $(FUZZ_S) s"; \
	  d=; [ -f tests/fuzz/$$f.dict ] && d=-dict=tests/fuzz/$$f.dict; \
	  $(FUZZ_DIR)/$${f}_fuzz -max_total_time=$(FUZZ_S) -timeout=10 -print_final_stats=1 $$d \
	    -artifact_prefix=$(FUZZ_DIR)/crash/$$f- $(FUZZ_DIR)/corpus/$$f || exit 1; done

-include $(LIB_SRC:%.c=$(FUZZ_DIR)/%.d) $(wildcard $(FUZZ_DIR)/tests/fuzz/*.d $(FUZZ_DIR)/tools/*/*.d)
