# nmt — build, test, bench, deps, install. `make` builds bin/nmt-<tool>.
# Every lib/**/*.c (and *.cc: C++ shims, behind C headers) but the CUDA backend's (lib/nn/cuda/) goes into build/libnmt.a; every tools/<name>/*.c into bin/nmt-<name>,
# with tools/common/*.c (what all tools share) linked into each; every tests/**/*.c (but cuda/, emu/, fuzz/) into bin/nmt-tests. Add a file and it is built: no list to edit.

CC      ?= gcc
PREFIX  ?= /usr/local
OPT     ?= -O2
SAN     ?=
CFLAGS  ?= $(OPT) -g
# (an option table's string and flag rows leave out the numeric rows' bounds)
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Wshadow \
           -Wno-missing-field-initializers -pthread -Ilib -I/usr/include/libexttextcat $(SAN)
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

BUILD   := build$(if $(SAN),-san)
BIN     := bin$(if $(SAN),-san)

# The CUDA backend (lib/nn/cuda/, docs/gpu.md) is built only into the programs that run on a GPU.
CUDA_DIR  := lib/nn/cuda
LIB_SRC   := $(sort $(filter-out $(CUDA_DIR)/%,$(shell find lib -name '*.c')))
LIB_CXX   := $(sort $(shell find lib -name '*.cc'))
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o) $(LIB_CXX:%.cc=$(BUILD)/%.o)
TOOLS     := $(filter-out common,$(notdir $(patsubst %/,%,$(dir $(wildcard tools/*/*.c)))))
COMMON_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tools/common/*.c))
TOOL_BINS := $(sort $(TOOLS:%=$(BIN)/nmt-%))
# tests/ mirrors lib/'s folders; tests/cuda, emu and fuzz build their own programs
TEST_SRC  := $(sort $(filter-out tests/cuda/% tests/emu/% tests/fuzz/%,$(shell find tests -name '*.c')))
TEST_OBJ  := $(TEST_SRC:%.c=$(BUILD)/%.o)

.PHONY: all test check bench deps bench-deps install clean cuda test-cuda demo
# The tools' objects are reached through a pattern rule, so make would delete them as
# intermediates after the link and rebuild them next time: keep every built file.
.SECONDARY:
all: $(TOOL_BINS) $(BIN)/nmt-tests

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
# there), then build, so a fresh machine needs no other step.
test: deps
	$(MAKE) all
	NMT_BIN=$(CURDIR)/$(BIN) NMT_SANITIZED=$(if $(SAN),1) ./$(BIN)/nmt-tests $(T)
check: test

bench: all
	bash bench/run

# Quick start: the whole pipeline on a generated corpus (examples/demo), in $(BUILD)/demo.
demo: deps
	$(MAKE) all
	PATH="$(abspath $(BIN)):$$PATH" CC="$(CC)" bash examples/demo/run.sh $(BUILD)/demo

# The tools that run on a GPU (--device cuda), built a second and a third time: against the
# emulated CUDA ($(BIN)/emu/, make emu) and the real one ($(BIN)/cuda/, make cuda).
GPU_TOOLS := train decode
# CUDA backend (docs/gpu.md), never part of `all`: lib/nn/cuda/*.cu into $(BUILD)/libnmt_cuda.a,
# its table (nn_cuda_backend.c: the entry nn/device.c finds, nmt_cuda_gpu), and
# $(BIN)/nmt-tests-cuda (kernels against the CPU ops; every case skips without a GPU).
# CUDA=0 turns it off; auto builds it when nvcc exists.
CUDA      ?= auto
NVCC      ?= $(if $(filter 0,$(CUDA)),,$(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null))
# nvcc may be a wrapper script outside the toolkit (/usr/local/bin/nvcc): ask it where its
# libraries are, from the link line it would run (the last -L of LIBRARIES=).
CUDA_LIBDIR ?= $(if $(NVCC),$(shell $(NVCC) --dryrun -x cu /dev/null -o /dev/null 2>&1 | \
  sed -n 's/^\#\$$ LIBRARIES=.*"-L\([^"]*\)"[^"]*$$/\1/p'))
CUDA_ARCH ?= -gencode arch=compute_90,code=[sm_90,compute_90]
NVCCFLAGS ?= -O3 -std=c++17 --extended-lambda $(CUDA_ARCH)
CU_SRC    := $(wildcard $(CUDA_DIR)/*.cu)
CU_OBJ    := $(CU_SRC:%.cu=$(BUILD)/%.o)
# What a CUDA program links before libnmt.a: the backend table, then the kernels.
CUDA_HOST := $(BUILD)/$(CUDA_DIR)/nn_cuda_backend.o
CUDA_LINK := $(CUDA_HOST) $(BUILD)/libnmt_cuda.a
CUDA_LIBS := -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcublas -lcudart -lstdc++
CUDA_INCDIR ?= $(if $(NVCC),$(shell $(NVCC) --dryrun -x cu /dev/null -o /dev/null 2>&1 | \
  sed -n 's/^\#\$$ INCLUDES="-I\([^"]*\)".*$$/\1/p'))
# NCCL (the toolkit's; docs/distributed.md, "GPUs"): lib/comm/comm_nccl.c again with
# -DNMT_NCCL, linked before libnmt.a (whose copy says "no NCCL") into the CUDA nmt-train alone.
CUDA_OBJ_train  := $(BUILD)/cuda/lib/comm/comm_nccl.o
CUDA_LIBS_train := -lnccl
$(BUILD)/cuda/lib/comm/comm_nccl.o: lib/comm/comm_nccl.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DNMT_NCCL -I$(CUDA_INCDIR) -MMD -MP -c $< -o $@
CUDA_TEST_OBJ := $(BUILD)/tests/main.o $(BUILD)/tests/cli_cases.o $(BUILD)/tests/models/model_case.o \
                 $(BUILD)/tests/decode/decode_case.o \
                 $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/cuda/*.c))

$(BUILD)/$(CUDA_DIR)/%.o: $(CUDA_DIR)/%.cu $(CUDA_DIR)/nn_cuda.h $(CUDA_DIR)/nn_cuda_internal.cuh
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Ilib -c $< -o $@

$(BUILD)/libnmt_cuda.a: $(CU_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/tests/cuda/%.o: CFLAGS += -Itests

$(BIN)/nmt-tests-cuda: $(CUDA_TEST_OBJ) $(CUDA_LINK) $(BUILD)/libnmt.a
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) $(CUDA_LIBS) -o $@

ifeq ($(NVCC),)
cuda test-cuda:
	@echo "$@: no nvcc (or CUDA=0), skipped"
else
cuda: $(BIN)/nmt-tests-cuda $(GPU_TOOLS:%=$(BIN)/cuda/nmt-%)
	@echo "cuda: $(words $(CU_SRC)) kernel files compiled and linked with $(NVCC)"
$(BIN)/cuda/nmt-%: $$(call tool_objs,$$*) $$(CUDA_OBJ_$$*) $(CUDA_LINK) $(BUILD)/libnmt.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS_$*) $(LDLIBS) $(CUDA_LIBS) $(CUDA_LIBS_$*) -o $@
# Without a GPU every case reports itself skipped; a name filter may follow: T=cuda_lstm
test-cuda: $(BIN)/nmt-tests-cuda
	./$(BIN)/nmt-tests-cuda $(or $(T),cuda_)
	$(if $(T),,./$(BIN)/nmt-tests-cuda gpu_)
endif

# The emulated CUDA backend (docs/gpu.md, "The emulator"): the same lib/nn/cuda/*.cu,
# rewritten by emu/rewrite.pl (launches and __shared__; the build stops on one it
# cannot handle) and compiled by g++ against emu/ (the emulator: no CUDA toolkit), run on the
# CPU with one fiber per CUDA thread. $(BIN)/nmt-tests-emu = tests/main.c + tests/cuda +
# tests/emu (planted GPU bugs) + the emulated kernels and table + libnmt.a.
# At run time NMT_EMU_SCHEDULE=lockstep|warp|reverse orders the threads of a block and
# NMT_EMU_GUARD=1 fences device memory off from host code. `make emu SAN=...` builds it
# with the sanitizers into build-san/bin-san; ThreadSanitizer (a race between two CUDA
# threads of a block is a report) wants folders of its own: SAN=-fsanitize=thread
# BUILD=build/tsan BIN=build/tsan/bin.
EMU          := $(BUILD)/emu
EMU_CXXFLAGS := $(OPT) -g -std=c++17 -Wall -Wextra -Wno-unused-parameter -pthread \
                -include emu/cuda_emu.h -I$(EMU)/lib -Iemu -Ilib $(SAN)
EMU_CU       := $(patsubst %.cu,$(EMU)/%.o,$(CU_SRC) $(wildcard tests/emu/*.cu))
EMU_RT       := $(patsubst %.cpp,$(EMU)/%.o,$(wildcard emu/*.cpp))
EMU_TEST_OBJ := $(BUILD)/tests/main.o $(BUILD)/tests/cli_cases.o $(BUILD)/tests/models/model_case.o \
                $(BUILD)/tests/decode/decode_case.o $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/cuda/*.c tests/emu/*.c))
EMU_SCHEDULES := lockstep warp reverse

$(EMU)/%.cu: %.cu emu/rewrite.pl
	@mkdir -p $(dir $@)
	perl emu/rewrite.pl $< $@
$(EMU)/%.cuh: %.cuh emu/rewrite.pl
	@mkdir -p $(dir $@)
	perl emu/rewrite.pl $< $@
# (-iquote: the source's own folder, for its other headers; -I$(EMU)/lib first: the
# rewritten nn/cuda/nn_cuda_internal.cuh)
$(EMU)/%.o: $(EMU)/%.cu $(EMU)/$(CUDA_DIR)/nn_cuda_internal.cuh
	$(CXX) $(EMU_CXXFLAGS) -iquote $(dir $*) -MMD -MP -x c++ -c $< -o $@
$(EMU)/emu/%.o: emu/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(EMU_CXXFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests/emu/%.o: CFLAGS += -Iemu -Itests

# The emulated programs' CUDA table checks that each kernel is given device memory.
EMU_HOST := $(EMU)/$(CUDA_DIR)/nn_cuda_backend.o
tool_objs = $(addprefix $(BUILD)/,$(addsuffix .o,$(basename $(wildcard tools/$(1)/*.c)))) $(COMMON_OBJ)
$(BIN)/emu/nmt-%: $$(call tool_objs,$$*) $(EMU_HOST) $(patsubst %.cu,$(EMU)/%.o,$(CU_SRC)) $(EMU_RT) $(BUILD)/libnmt.a
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) $^ $(LDLIBS_$*) $(LDLIBS) -o $@
$(EMU)/$(CUDA_DIR)/%.o: $(CUDA_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DNMT_CUDA_EMU -Iemu -MMD -MP -c $< -o $@

$(BIN)/nmt-tests-emu: $(EMU_TEST_OBJ) $(EMU_HOST) $(EMU_CU) $(EMU_RT) $(BUILD)/libnmt.a
	@mkdir -p $(BIN)
	$(CXX) $(LDFLAGS) $^ $(LDLIBS) -o $@

.PHONY: emu test-emu
emu: $(BIN)/nmt-tests-emu $(GPU_TOOLS:%=$(BIN)/emu/nmt-%) $(GPU_TOOLS:%=$(BIN)/nmt-%)
	@echo "emu: $(words $(CU_SRC)) kernel files compiled with $(CXX) against emu/"
# The kernel cases under every schedule, then in guard mode, then the planted bugs
# (each in a child process), then the engine on the emulated GPU (gpu_: every family's
# loss, gradients, Adam steps and decoding against the CPU; nmt-train and nmt-decode
# --device cuda, and nmt-train under mpirun), which EMU_ENGINE=0 leaves out (ThreadSanitizer's run: races within a
# block are the kernels'). A name filter may follow: T=cuda_lstm
test-emu: emu
	@for s in $(EMU_SCHEDULES); do echo "test-emu: NMT_EMU_SCHEDULE=$$s"; \
	  NMT_EMU_SCHEDULE=$$s ./$(BIN)/nmt-tests-emu $(or $(T),cuda_) || exit 1; done
	@echo "test-emu: NMT_EMU_GUARD=1"
	NMT_EMU_GUARD=1 ./$(BIN)/nmt-tests-emu $(or $(T),cuda_)
	./$(BIN)/nmt-tests-emu $(or $(T),emu_)
ifneq ($(EMU_ENGINE),0)
	@echo "test-emu: the engine on the emulated GPU (gpu_), plainly and in guard mode"
	./$(BIN)/nmt-tests-emu gpu_
	NMT_EMU_GUARD=1 ./$(BIN)/nmt-tests-emu gpu_
	NMT_EMU_GUARD=1 bash tests/emu/gpu_tools.sh $(BIN)
	NMT_EMU_GUARD=1 NMT_SANITIZED=$(if $(SAN),1) bash tests/emu/gpu_mpi.sh $(BIN)
endif

# Fuzzing (docs/fuzzing.md; clang and libFuzzer; CI runs each harness 5 s): every lib/**/*.c again with
# clang and the sanitizers into build-fuzz/, one harness per parser (tests/fuzz/*_fuzz.c), seed
# corpora made by tests/fuzz/seeds.sh with the tools. `make fuzz` runs each harness FUZZ_S
# seconds, one after another; `make fuzz FUZZ=model FUZZ_S=1800` runs one.
FUZZ_S      ?= 60
FUZZ_CC     ?= clang
FUZZ_DIR    := build-fuzz
FUZZ_ALL    := $(patsubst tests/fuzz/%_fuzz.c,%,$(wildcard tests/fuzz/*_fuzz.c))
FUZZ        ?= $(FUZZ_ALL)
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -pthread -Ilib -I/usr/include/libexttextcat $(FUZZ_SAN)
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
FUZZ_SRC_request  := tools/serve/request.c
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

deps:
	bash .ci/deps

# the packages of make deps, and the peer the benchmarks compare with
bench-deps:
	bash .ci/deps --bench

install: $(TOOL_BINS)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(TOOL_BINS) $(DESTDIR)$(PREFIX)/bin

clean:
	rm -rf build build-san bin bin-san $(FUZZ_DIR)

# What the build found: a line per optional part (make help, make features).
.PHONY: help features
features:
	@ok() { if [ "$$1" = 1 ]; then echo "  ✓ $$2"; else echo "  ✗ $$3"; fi; }; \
	ok $(if $(MPI_LIBS),1,0) "Open MPI: mpirun -np N nmt-train (docs/distributed.md)" \
	  "Open MPI: not found (libopenmpi-dev, make deps): nmt-train refuses to run under mpirun"; \
	ok $(if $(NVCC),1,0) "CUDA: $(NVCC) (make cuda: the kernels, nmt-train and nmt-decode --device cuda)" \
	  "CUDA: no nvcc (or CUDA=0): make cuda skips; make emu still runs the kernels on the CPU"; \
	ok "$$([ -n "$(CUDA_INCDIR)" ] && [ -f "$(CUDA_INCDIR)/nccl.h" ] && echo 1)" "NCCL: $(CUDA_INCDIR)/nccl.h (multi-GPU nmt-train)" \
	  "NCCL: no nccl.h beside CUDA's headers: make cuda links its nmt-train with -lnccl"; \
	ok "$$(echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' | \
	  $(FUZZ_CC) -x c - -fsanitize=fuzzer -o /dev/null 2>/dev/null && echo 1)" "$(FUZZ_CC) with libFuzzer (make fuzz)" \
	  "$(FUZZ_CC) with libFuzzer: not found; make fuzz installs clang and libclang-rt-dev"; \
	ok "$$(command -v node >/dev/null && echo 1)" "node: the browser page and websocket cases" \
	  "node: not found (make deps): the page and websocket cases skip"

help:
	@echo "make              the tools into $(BIN)/ (nmt-<tool>) and the test runner"
	@echo "make test         install what is missing (make deps), build, run every test; T=cli/serve one suite"
	@echo "make demo         the whole pipeline on a generated corpus, in $(BUILD)/demo"
	@echo "make bench        the benchmarks (bench/README.md); not part of make test"
	@echo "make cuda         the CUDA kernels, their tests and the CUDA nmt-train/nmt-decode; make test-cuda"
	@echo "make emu          the same kernels on the CUDA emulator (no GPU); make test-emu"
	@echo "make fuzz         every libFuzzer harness FUZZ_S seconds (FUZZ=ws FUZZ_S=1800: one)"
	@echo "make SAN='-fsanitize=address,undefined' OPT=-O1 [test]   a sanitizer build, in build-san/ and bin-san/"
	@echo "make deps         the Debian packages (.ci/deps); make install PREFIX=/usr/local; make clean"
	@echo "Found on this machine:"
	@$(MAKE) -s --no-print-directory features

-include $(wildcard $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d)) $(wildcard $(BUILD)/tools/*/*.d) \
  $(wildcard $(BUILD)/$(CUDA_DIR)/*.d $(BUILD)/tests/cuda/*.d $(BUILD)/tests/emu/*.d) \
  $(LIB_SRC:%.c=$(FUZZ_DIR)/%.d) $(wildcard $(FUZZ_DIR)/tests/fuzz/*.d $(FUZZ_DIR)/tools/*/*.d) \
  $(shell find $(EMU) -name '*.d' 2>/dev/null)
