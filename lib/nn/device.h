/* Where the engine computes: `--device cpu|cuda|cuda:N`. A program that links
 * the CUDA backend (make cuda, make emu: lib/nn/cuda/) opens the GPU through
 * that backend's entry, nmt_cuda_gpu below; every other program, and a CUDA one
 * on a machine without a usable GPU, runs on the CPU and says so in a notice.
 * A GPU index that does not exist is an error, not a fallback: the user named a
 * device and a typo should not silently train on the CPU. */
#ifndef NMT_NN_DEVICE_H
#define NMT_NN_DEVICE_H
#include <stdbool.h>
#include <stddef.h>

struct nn_backend;

typedef enum { NMT_DEVICE_CPU, NMT_DEVICE_CUDA } nmt_device_kind;

/* A GPU backend as the device layer finds it: its table and its devices. The
 * backend defines its entry above this layer (lib/nn/cuda/nn_cuda_backend.c:
 * nmt_cuda_gpu) and only the programs that run on a GPU link it; device.c
 * refers to the name weakly, so elsewhere it is absent (its address NULL) and
 * nothing here includes the backend's headers. */
typedef struct nmt_gpu {
  const struct nn_backend *be; /* its kernels and memory (nn/backend.h) */
  int (*count)(void);          /* the GPUs this process sees; 0 without a usable driver */
  int (*init)(int index);      /* open GPU index: NMT_OK, NMT_EUSAGE (no such GPU), NMT_EIO */
  void (*shutdown)(void);      /* release what init acquired */
} nmt_gpu;
extern const nmt_gpu nmt_cuda_gpu;

typedef struct {
  nmt_device_kind kind;
  int index; /* the GPU for NMT_DEVICE_CUDA */
  /* "cuda" without an index: under Open MPI's mpirun nmt_device_open takes the
   * GPU of this process's rank on its machine, OMPI_COMM_WORLD_LOCAL_RANK
   * modulo the GPUs it sees (one GPU per rank when -np matches them); else 0 */
  bool per_rank;
} nmt_device;

/* "cpu", "cuda" (GPU 0, or per_rank) or "cuda:N"; anything else is NMT_EUSAGE. */
int nmt_device_parse(const char *spec, nmt_device *out);
/* Opens d. Falls back to the CPU (d->kind becomes NMT_DEVICE_CPU, NMT_OK) when
 * the build has no CUDA or no GPU can be used, writing one line without a
 * program prefix into notice (for nmt_warn), e.g. "no CUDA device found
 * (cudaErrorNoDevice); running on CPU"; notice is "" otherwise. A missing GPU
 * index is NMT_EUSAGE. */
int nmt_device_open(nmt_device *d, char *notice, size_t n);
/* What nmt-train and nmt-decode call for --device: parse and open spec; *be
 * gets the backend the engine runs on (nn/backend.h): the CUDA table for an
 * opened GPU, else the CPU's (with nmt_device_open's notice when that is a
 * fallback). NMT_EUSAGE for a bad spec or a missing GPU index. */
int nmt_device_use(const char *spec, const struct nn_backend **be, char *notice, size_t n);
/* Releases what nmt_device_open acquired (nothing on the CPU). */
void nmt_device_close(nmt_device *d);
/* True in a program that links the CUDA backend (nmt_cuda_gpu). */
bool nmt_device_cuda_built(void);

#endif
