// The emulated CUDA runtime (kernels/emu/cuda_emu.h).
#include "cuda_emu.h"
