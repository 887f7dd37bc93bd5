# nmt — build, test, bench, deps, install. `make` builds bin/nmt-<tool>.
# Every lib/*.c goes into build/libnmt.a; every tools/<name>/*.c into bin/nmt-<name>;
# every tests/*.c into bin/nmt-tests. Add a file and it is built: no list to edit.

CC      ?= gcc
PREFIX  ?= /usr/local
OPT     ?= -O2
SAN     ?=
CFLAGS  ?= $(OPT) -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Wshadow \
           -pthread -Ilib -I/usr/include/libexttextcat $(SAN)
LDFLAGS += -pthread $(SAN)
LDLIBS  := -lzstd -lcsv -lpcre2-8 -lexttextcat-2.0 -lopenblas -lm

BUILD   := build$(if $(SAN),-san)
BIN     := bin$(if $(SAN),-san)

LIB_SRC   := $(wildcard lib/*.c)
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
TOOLS     := $(notdir $(patsubst %/,%,$(dir $(wildcard tools/*/*.c))))
TOOL_BINS := $(sort $(TOOLS:%=$(BIN)/nmt-%))
TEST_SRC  := $(wildcard tests/*.c)
TEST_OBJ  := $(TEST_SRC:%.c=$(BUILD)/%.o)

.PHONY: all test check bench deps install clean cuda demo
all: $(TOOL_BINS) $(BIN)/nmt-tests

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libnmt.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

.SECONDEXPANSION:
# (no patsubst here: make would replace its % with the stem)
$(BIN)/nmt-%: $$(addprefix $(BUILD)/,$$(addsuffix .o,$$(basename $$(wildcard tools/$$*/*.c)))) $(BUILD)/libnmt.a
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BIN)/nmt-tests: $(TEST_OBJ) $(BUILD)/libnmt.a
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# The test runner finds the tools in $(BIN); a name filter may follow: make test T=bpe
test: all
	NMT_BIN=$(CURDIR)/$(BIN) ./$(BIN)/nmt-tests $(T)
check: test

bench: all
	bash bench/run

# Quick start: the whole pipeline on a generated corpus (examples/demo), in $(BUILD)/demo.
demo: all
	PATH="$(abspath $(BIN)):$$PATH" CC="$(CC)" bash examples/demo/run.sh $(BUILD)/demo

# Compile-only CUDA build (kernels/ arrive with the GPU issue); skipped without nvcc.
NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CU_SRC := $(wildcard kernels/*.cu)
cuda:
ifeq ($(NVCC),)
	@echo "cuda: nvcc not found, skipped"
else
	@mkdir -p $(BUILD)/kernels
	@for f in $(CU_SRC); do echo "nvcc -c $$f"; $(NVCC) -O2 -Ilib -c $$f -o $(BUILD)/$${f%.cu}.o || exit 1; done
	@echo "cuda: $(words $(CU_SRC)) kernel file(s) compiled with $(NVCC)"
endif

# libFuzzer on the tensor stream reader (clang; not in CI): make fuzz FUZZ_S=600
FUZZ_S ?= 60
.PHONY: fuzz
fuzz: $(BIN)/nmt-bpe
	@mkdir -p $(BUILD)/fuzz-corpus
	printf '<pad>\n<unk>\n<s>\n</s>\na\nb\n' > $(BUILD)/fuzz-vocab
	printf 'a b\n\nb a c\n' | $(BIN)/nmt-bpe -c /dev/null --ids $(BUILD)/fuzz-vocab -o $(BUILD)/fuzz-corpus/seed
	clang -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 -D_GNU_SOURCE -Ilib tests/fuzz/tstream_fuzz.c \
	  lib/tstream.c lib/crc32c.c lib/io.c lib/err.c lib/utf8.c -lzstd -pthread -o $(BUILD)/tstream-fuzz
	$(BUILD)/tstream-fuzz -max_total_time=$(FUZZ_S) $(BUILD)/fuzz-corpus

deps:
	bash .ci/deps

install: $(TOOL_BINS)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(TOOL_BINS) $(DESTDIR)$(PREFIX)/bin

clean:
	rm -rf build build-san bin bin-san

-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(wildcard $(BUILD)/tools/*/*.d)
