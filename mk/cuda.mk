# The CUDA backend (docs/gpu.md), never part of `all`; included by the Makefile.
# lib/nn/cuda/*.cu into $(BUILD)/libnmt_cuda.a, its table (nn_cuda_backend.c: the entry
# nn/device.c finds, nmt_cuda_gpu), $(BIN)/nmt-tests-cuda (kernels against the CPU ops; every
# case skips without a GPU), $(BIN)/cuda/nmt-train, nmt-decode (--device cuda) and
# $(BUILD)/cuda/libnmt.so.MAJOR (the API's device "cuda"). CUDA=0 turns it off; auto builds it
# when nvcc exists.
CUDA      ?= auto
NVCC      ?= $(if $(filter 0,$(CUDA)),,$(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null))
# nvcc may be a wrapper script outside the toolkit (/usr/local/bin/nvcc): ask it where its
# libraries are, from the link line it would run (the last -L of LIBRARIES=).
CUDA_LIBDIR ?= $(if $(NVCC),$(shell $(NVCC) --dryrun -x cu /dev/null -o /dev/null 2>&1 | \
  sed -n 's/^\#\$$ LIBRARIES=.*"-L\([^"]*\)"[^"]*$$/\1/p'))
CUDA_ARCH ?= -gencode arch=compute_90,code=[sm_90,compute_90]
# (-fPIC: the same kernel objects go into the CUDA programs and into build/cuda/libnmt.so)
NVCCFLAGS ?= -O3 -std=c++17 --extended-lambda -Xcompiler -fPIC $(CUDA_ARCH)
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
CUDA_TEST_OBJ := $(TEST_MAIN_OBJ) $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/cuda/*.c))

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

# libnmt.so with the CUDA backend (docs/api.md "GPUs"): mk/lib.mk's position-independent
# lib/ objects, the backend's table and kernels, the same SONAME and export list.
CUDA_SO := $(BUILD)/cuda/$(SO_FILE)
$(CUDA_SO): $(PIC_OBJ) $(PIC)/$(CUDA_DIR)/nn_cuda_backend.o $(BUILD)/libnmt_cuda.a $(SO_MAP) $(LIB_LIST)
	@mkdir -p $(dir $@)
	$(CC) -shared -pthread -Wl,-soname,$(SO_NAME) -Wl,--version-script=$(SO_MAP) -Wl,--no-undefined \
	  -Wl,--as-needed $(PIC_OBJ) $(PIC)/$(CUDA_DIR)/nn_cuda_backend.o $(BUILD)/libnmt_cuda.a $(LDLIBS) $(CUDA_LIBS) -o $@
	ln -sf $(SO_FILE) $(BUILD)/cuda/$(SO_NAME)

.PHONY: cuda test-cuda
ifeq ($(NVCC),)
cuda test-cuda:
	@echo "$@: no nvcc (or CUDA=0), skipped"
else
cuda: $(BIN)/nmt-tests-cuda $(GPU_TOOLS:%=$(BIN)/cuda/nmt-%) $(CUDA_SO)
	@echo "cuda: $(words $(CU_SRC)) kernel files compiled and linked with $(NVCC)"
$(BIN)/cuda/nmt-%: $$(call tool_objs,$$*) $$(CUDA_OBJ_$$*) $(CUDA_LINK) $(BUILD)/libnmt.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS_$*) $(LDLIBS) $(CUDA_LIBS) $(CUDA_LIBS_$*) -o $@
# Without a GPU every case reports itself skipped; a name filter may follow: T=cuda_lstm
test-cuda: $(BIN)/nmt-tests-cuda
	./$(BIN)/nmt-tests-cuda $(or $(T),cuda_)
	$(if $(T),,./$(BIN)/nmt-tests-cuda gpu_)
endif

-include $(wildcard $(BUILD)/$(CUDA_DIR)/*.d $(BUILD)/tests/cuda/*.d $(BUILD)/cuda/lib/comm/*.d)
