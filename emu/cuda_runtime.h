// The emulated CUDA runtime (emu/cuda_emu.h).
#ifndef NMT_EMU_CUDA_RUNTIME_H
#define NMT_EMU_CUDA_RUNTIME_H
#include "cuda_emu.h"
#endif
