/* Run-time settings of the CUDA emulator, callable from C (tests/emu). The
 * environment sets both at start: NMT_EMU_SCHEDULE, NMT_EMU_GUARD=1. */
#ifndef NMT_EMU_EMU_CONTROL_H
#define NMT_EMU_EMU_CONTROL_H
#include <stdbool.h>
#ifdef __cplusplus
extern "C" {
#endif

/* The order of a block's threads: "lockstep", "warp" or "reverse" (emu_sched.cpp);
 * NULL: NMT_EMU_SCHEDULE's, lockstep when unset. False for any other name. */
bool emu_set_schedule(const char *name);
/* Guard mode for the allocations made from now on (emu_memory.cpp). */
void emu_set_guard(bool on);
/* Pointer argument `index` (from 1) of a kernel row of lib/nn/kernels.def: when p is
 * not device memory, reports it and faults the device (sticky, as a GPU's illegal
 * address is); returns whether p was device memory. */
bool emu_check_kernel_pointer(const char *kernel, int index, const void *p);

#ifdef __cplusplus
}
#endif
#endif
