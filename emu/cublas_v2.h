// The emulated cuBLAS (emu/cuda_emu.h).
#ifndef NMT_EMU_CUBLAS_V2_H
#define NMT_EMU_CUBLAS_V2_H
#include "cuda_emu.h"
#endif
