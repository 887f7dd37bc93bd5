# What there is to make, and what the build found on this machine; included by the Makefile.
.PHONY: help features
# A line per optional part, ✓ or ✗
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
	@echo "make bench        the benchmarks (bench/README.md); not part of make test; make bench-deps: their peer"
	@echo "make cuda         the CUDA kernels, their tests and the CUDA nmt-train/nmt-decode; make test-cuda"
	@echo "make emu          the same kernels on the CUDA emulator (no GPU); make test-emu"
	@echo "make fuzz         every libFuzzer harness FUZZ_S seconds (FUZZ=ws FUZZ_S=1800: one); make fuzz-build"
	@echo "make asan         make test under ASan+UBSan, in build-san/ and bin-san/ (T= as for make test)"
	@echo "make asan-emu     make test-emu under ASan+UBSan, in build-san/ and bin-san/"
	@echo "make tsan         the emulator's kernel cases under ThreadSanitizer, in build/tsan/"
	@echo "make SAN='-fsanitize=...' OPT=-O1 [target]   any target with other sanitizers, in build-san/ and bin-san/"
	@echo "make deps         the Debian packages (.ci/deps); make clean"
	@echo "make install      PREFIX=/usr/local DESTDIR=: the tools, nmt.h, libnmt.so, nmt.pc, the Python package,"
	@echo "                  the man pages and bash completions; make uninstall"
	@echo "make doc          the man pages and bash completions into $(BUILD)/man and $(BUILD)/completions"
	@echo "make shared       build/libnmt.so alone (docs/api.md)"
	@echo "Found on this machine:"
	@$(MAKE) -s --no-print-directory features
