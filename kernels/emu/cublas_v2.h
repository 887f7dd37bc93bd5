// The emulated cuBLAS (kernels/emu/cuda_emu.h).
#include "cuda_emu.h"
