# nmt — build, test, bench, deps, install. `make` builds bin/nmt-<tool>; `make help` lists the rest.
# Every lib/**/*.c (and *.cc: C++ shims, behind C headers) but the CUDA backend's (lib/nn/cuda/) goes into build/libnmt.a; every tools/<name>/*.c into bin/nmt-<name>,
# with tools/common/*.c (what all tools share) linked into each; every tests/**/*.c (but cuda/, emu/, fuzz/) into bin/nmt-tests. Add a file and it is built: no list to edit.
# The other builds have files of their own, included at the end: mk/cuda.mk (the CUDA
# backend), mk/emu.mk (the same kernels on the emulator), mk/fuzz.mk (libFuzzer),
# mk/san.mk (the sanitizer flavours: make asan, asan-emu, tsan), mk/help.mk (make help, features),
# mk/lib.mk (libnmt.so) and mk/doc.mk (the man pages and bash completions).

CC      ?= gcc
PREFIX  ?= /usr/local
OPT     ?= -O2
SAN     ?=
CFLAGS  ?= $(OPT) -g
# (an option table's string and flag rows leave out the numeric rows' bounds)
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Wshadow \
           -Wno-missing-field-initializers -pthread -Iinclude -Ilib -I/usr/include/libexttextcat $(SAN)
CXXFLAGS ?= $(OPT) -g
CXXFLAGS += -std=c++17 -Wall -Wextra -Wno-unused-parameter -Wshadow -pthread -Ilib $(SAN)
# Every library is linked as needed: a tool gets one only when an object it pulls in from
# libnmt.a calls it (the text tools no OpenBLAS, whose thread pool would start with each of
# them; SentencePiece, C++ in lib/text/spm.cc, only where the shim is called). Debian's gcc
# does so by default but not under -fsanitize, and clang never.
LDFLAGS += -pthread -Wl,--as-needed $(SAN)
LDLIBS  := -lzstd -lz -lcsv -lpcre2-8 -lexttextcat-2.0 -lopenblas -lm -lsentencepiece_train \
           -lsentencepiece -lstdc++
# Libraries only one tool links (LDLIBS_<tool>): the HTTP server, JSON and SHA-1 (websocket
# handshakes; nettle comes with libmicrohttpd-dev) of nmt-serve,
# and the YAML of nmt-train's -c FILE.yml
LDLIBS_serve := -lmicrohttpd -ljansson -lnettle
LDLIBS_train := -lyaml
# Open MPI (mpirun -np N nmt-train, docs/distributed.md), found by pkg-config: compiled into
# lib/comm/comm_mpi.c, which only nmt-train calls; without it the build goes on and a run
# under mpirun is refused with one line.
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs ompi-c 2>/dev/null)
ifneq ($(MPI_LIBS),)
LDLIBS_train += $(MPI_LIBS)
MPI_CFLAGS   += -DNMT_MPI
else ifeq ($(MAKELEVEL),0)
$(info ✗ Open MPI not found (libopenmpi-dev: make deps): this nmt-train will refuse to run under mpirun)
endif

# SAN=... builds into folders of their own (the sanitizer flavours of mk/san.mk name it for you)
BUILD   := build$(if $(SAN),-san)
BIN     := bin$(if $(SAN),-san)

# The CUDA backend (lib/nn/cuda/, docs/gpu.md) is built only into the programs that run on a
# GPU: by nvcc (mk/cuda.mk) or g++ against the emulator (mk/emu.mk).
CUDA_DIR  := lib/nn/cuda
CU_SRC    := $(wildcard $(CUDA_DIR)/*.cu)
LIB_SRC   := $(sort $(filter-out $(CUDA_DIR)/%,$(shell find lib -name '*.c')))
LIB_CXX   := $(sort $(shell find lib -name '*.cc'))
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o) $(LIB_CXX:%.cc=$(BUILD)/%.o)
TOOLS     := $(filter-out common,$(notdir $(patsubst %/,%,$(dir $(wildcard tools/*/*.c)))))
COMMON_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tools/common/*.c))
TOOL_BINS := $(sort $(TOOLS:%=$(BIN)/nmt-%))
# A tool's objects: its own and tools/common's
tool_objs = $(addprefix $(BUILD)/,$(addsuffix .o,$(basename $(wildcard tools/$(1)/*.c)))) $(COMMON_OBJ)
# The tools that run on a GPU (--device cuda), built a second and a third time: against the
# emulated CUDA ($(BIN)/emu/, make emu) and the real one ($(BIN)/cuda/, make cuda).
GPU_TOOLS := train decode
# tests/ mirrors lib/'s folders; tests/cuda, emu and fuzz build their own programs
TEST_SRC  := $(sort $(filter-out tests/cuda/% tests/emu/% tests/fuzz/%,$(shell find tests -name '*.c')))
TEST_OBJ  := $(TEST_SRC:%.c=$(BUILD)/%.o)
# What the test runners of mk/cuda.mk and mk/emu.mk share with nmt-tests
TEST_MAIN_OBJ := $(BUILD)/tests/main.o $(BUILD)/tests/cli_cases.o $(BUILD)/tests/models/model_case.o \
                 $(BUILD)/tests/decode/decode_case.o

.PHONY: all test check bench deps bench-deps install clean demo
# The tools' objects are reached through a pattern rule, so make would delete them as
# intermediates after the link and rebuild them next time: keep every built file.
.SECONDARY:
all: $(TOOL_BINS) $(BIN)/nmt-tests $(BUILD)/libnmt.so doc

$(BUILD)/tools/%.o: CFLAGS += -Itools/common
$(BUILD)/lib/comm/comm_mpi.o: CFLAGS += $(MPI_CFLAGS)
# The build's git commit, recorded in the models nmt-train writes ("unknown" outside git).
# A stamp that changes with the commit rebuilds origin.o alone.
NMT_COMMIT := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(shell mkdir -p $(BUILD) && echo '$(NMT_COMMIT)' | cmp -s - $(BUILD)/commit 2>/dev/null || echo '$(NMT_COMMIT)' > $(BUILD)/commit)
$(BUILD)/tools/train/origin.o: CFLAGS += -DNMT_COMMIT='"$(NMT_COMMIT)"'
$(BUILD)/tools/train/origin.o: $(BUILD)/commit
$(BUILD)/tests/%.o: CFLAGS += -Itests
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -MMD -MP -c $< -o $@

# The archive is rebuilt afresh whenever its list of objects changes (a source added,
# renamed or deleted): `ar r` into the old one would keep a deleted source's object.
LIB_LIST := $(BUILD)/libnmt.list
$(shell mkdir -p $(BUILD) && echo '$(LIB_OBJ)' | cmp -s - $(LIB_LIST) 2>/dev/null || echo '$(LIB_OBJ)' > $(LIB_LIST))
$(BUILD)/libnmt.a: $(LIB_OBJ) $(LIB_LIST)
	rm -f $@
	$(AR) qcs $@ $(LIB_OBJ)

.SECONDEXPANSION:
# (no patsubst here: make would replace its % with the stem)
$(BIN)/nmt-%: $$(addprefix $(BUILD)/,$$(addsuffix .o,$$(basename $$(wildcard tools/$$*/*.c)))) $(COMMON_OBJ) $(BUILD)/libnmt.a
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) $^ $(LDLIBS_$*) $(LDLIBS) -o $@

$(BIN)/nmt-tests: $(TEST_OBJ) $(BUILD)/libnmt.a
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# The test runner finds the tools in $(BIN); a name filter may follow: make test T=bpe
# test and demo install the Debian packages first (`make deps`: 0.1 s when all are
# there), then build (a make of its own: Open MPI, found when this one started, may be new),
# so a fresh machine needs no other step.
test: deps
	@$(MAKE) --no-print-directory all
	NMT_BIN=$(CURDIR)/$(BIN) NMT_SANITIZED=$(if $(SAN),1) ./$(BIN)/nmt-tests $(T)
check: test

bench: all
	bash bench/run

# Quick start: the whole pipeline on a generated corpus (examples/demo), in $(BUILD)/demo.
demo: deps
	@$(MAKE) --no-print-directory all
	PATH="$(abspath $(BIN)):$$PATH" CC="$(CC)" bash examples/demo/run.sh $(BUILD)/demo

# One line when every package is there; apt-get's own output when some are not.
deps:
	@bash .ci/deps

# the packages of make deps, and the peer the benchmarks compare with
bench-deps:
	@bash .ci/deps --bench

# the tools, the library's files (mk/lib.mk: header, libnmt.so, nmt.pc, the Python package),
# the man pages and bash completions (mk/doc.mk)
install: $(TOOL_BINS) install-lib install-doc
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(TOOL_BINS) $(DESTDIR)$(PREFIX)/bin

clean:
	rm -rf build build-san bin bin-san $(FUZZ_DIR)

include mk/lib.mk mk/doc.mk mk/cuda.mk mk/emu.mk mk/fuzz.mk mk/san.mk mk/help.mk

-include $(wildcard $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d)) $(wildcard $(BUILD)/tools/*/*.d)
