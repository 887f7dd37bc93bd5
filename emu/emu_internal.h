// Between the parts of the CUDA emulator (emu/*.cpp).
#ifndef NMT_EMU_EMU_INTERNAL_H
#define NMT_EMU_EMU_INTERNAL_H
#include "cuda_emu.h"

// Records e as cudaGetLastError will return it (cudaErrorLaunchFailure sticks, as a
// kernel fault does on a GPU) and prints "emu: <message>" on stderr.
void emu_report(cudaError_t e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
cudaError_t emu_error(cudaError_t e); // records e quietly; returns what the call returns
cudaError_t emu_sticky(void); // cudaSuccess unless a kernel faulted
static inline bool emu_stopped(void) { return emu_sticky() != cudaSuccess; }
// False (error reported) when s is neither 0 nor a live stream.
bool emu_stream_ok(cudaStream_t s, const char *what);

// Guard mode (NMT_EMU_GUARD=1): device memory is readable and writable only between
// emu_device_access(true, what) and emu_device_access(false, NULL).
void emu_device_access(bool open, const char *what);
// [p, p+bytes) lies inside one live device allocation.
bool emu_is_device(const void *p, size_t bytes);
size_t emu_memory_cap(void); // NMT_EMU_MEMORY, else 16 GiB
// Names a mapping for the SIGSEGV handler's message.
void emu_note_region(const void *p, size_t bytes, const char *what);

#endif
