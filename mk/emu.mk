# The emulated CUDA backend (docs/gpu.md, "The emulator"); included by the Makefile.
# The same lib/nn/cuda/*.cu, rewritten by emu/rewrite.pl (launches and __shared__; the build
# stops on one it cannot handle) and compiled by g++ against emu/ (the emulator: no CUDA
# toolkit), run on the CPU with one fiber per CUDA thread. $(BIN)/nmt-tests-emu =
# tests/main.c + tests/cuda + tests/emu (planted GPU bugs) + the emulated kernels and table +
# libnmt.a; $(BIN)/emu/nmt-train, nmt-decode run --device cuda on it.
# At run time NMT_EMU_SCHEDULE=lockstep|warp|reverse orders the threads of a block and
# NMT_EMU_GUARD=1 fences device memory off from host code. Under the sanitizers:
# make asan-emu and make tsan (mk/san.mk).
EMU          := $(BUILD)/emu
EMU_CXXFLAGS := $(OPT) -g -std=c++17 -Wall -Wextra -Wno-unused-parameter -pthread \
                -include emu/cuda_emu.h -I$(EMU)/lib -Iemu -Ilib $(SAN)
EMU_CU       := $(patsubst %.cu,$(EMU)/%.o,$(CU_SRC) $(wildcard tests/emu/*.cu))
EMU_RT       := $(patsubst %.cpp,$(EMU)/%.o,$(wildcard emu/*.cpp))
EMU_TEST_OBJ := $(TEST_MAIN_OBJ) $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/cuda/*.c tests/emu/*.c))
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

-include $(wildcard $(BUILD)/tests/emu/*.d) $(shell find $(EMU) -name '*.d' 2>/dev/null)
