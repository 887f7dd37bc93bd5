// The emulated CUDA runtime (emu/cuda_emu.h).
#include "cuda_emu.h"
