# The sanitizer flavours, named: what CI runs (.ci/run), built on the SAN= and OPT= override
# (SAN=... alone still builds anything into build-san/ and bin-san/); included by the Makefile.
# A name filter passes through: make asan T=bpe, make tsan T=cuda_lstm.
#   make asan      the suite under ASan+UBSan, in build-san/ and bin-san/ (a few cases skip)
#   make asan-emu  the emulator's suite (make test-emu) under ASan+UBSan, the same folders
#   make tsan      the emulator's kernel cases under ThreadSanitizer, in build/tsan/: a race
#                  between two CUDA threads of a block is a report. One schedule suffices
#                  (TSan sees the threads as concurrent between barriers), and the engine's
#                  cases are left out (EMU_ENGINE=0: races within a block are the kernels').
ASAN_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all
ASAN_VARS := SAN='$(ASAN_SAN)' OPT=-O1
ASAN_ENV  := ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
TSAN_VARS := SAN=-fsanitize=thread OPT=-O1 BUILD=build/tsan BIN=build/tsan/bin
.PHONY: asan asan-emu tsan

# (make test installs the packages and builds first; the emulator's builds, then its runs)
asan:
	$(ASAN_ENV) $(MAKE) --no-print-directory test $(ASAN_VARS)

asan-emu:
	$(MAKE) --no-print-directory emu $(ASAN_VARS)
	$(ASAN_ENV) $(MAKE) --no-print-directory test-emu $(ASAN_VARS)

tsan:
	$(MAKE) --no-print-directory emu $(TSAN_VARS)
	$(MAKE) --no-print-directory test-emu $(TSAN_VARS) EMU_SCHEDULES=lockstep EMU_ENGINE=0
