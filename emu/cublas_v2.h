// The emulated cuBLAS (emu/cuda_emu.h).
#include "cuda_emu.h"
