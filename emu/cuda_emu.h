// A host emulation of the CUDA runtime and cuBLAS, enough for lib/nn/cuda/*.cu to
// compile with g++ and run on the CPU (docs/gpu.md, "The emulator"). Included
// first into every emulated translation unit (-include); cuda_runtime.h and
// cublas_v2.h beside it only include it. emu/rewrite.pl has already
// turned each launch `k<<<cfg>>>(args)` into emu_launch(...) and each
// `__shared__ T x[N];` into a reference to per-block storage (emu_shared).
//
// One host thread drives the device. Each CUDA thread of a block is a fiber;
// __syncthreads and warp shuffles switch back to the scheduler (emu_sched.cpp),
// which runs the block's threads in the order NMT_EMU_SCHEDULE names.
#ifndef NMT_EMU_CUDA_EMU_H
#define NMT_EMU_CUDA_EMU_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <tuple>
#include <type_traits>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
// A __shared__ the rewrite did not handle (extern, dynamic size) stops the build here.
#define __shared__ EMU_UNHANDLED_SHARED_DECLARATION

// ---- vector types and the thread coordinates ----

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint3 { unsigned x, y, z; };
struct uint2 { unsigned x, y; };
struct uint4 { unsigned x, y, z, w; };
static inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }

// Set by the scheduler before it resumes a fiber.
extern uint3 emu_thread_idx, emu_block_idx;
extern dim3 emu_block_dim, emu_grid_dim;
#define threadIdx emu_thread_idx
#define blockIdx emu_block_idx
#define blockDim emu_block_dim
#define gridDim emu_grid_dim

// ---- synchronisation (scheduler barriers) ----

void emu_syncthreads(void);
#define __syncthreads() emu_syncthreads()
// Waits for every lane of `mask`, then returns lane src's `bytes` bytes of `in`.
void emu_shuffle(unsigned mask, const void *in, void *out, size_t bytes, int src);
int emu_lane(void);

template <class T> T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8, "shuffle of a small value");
  int lane = emu_lane(), src = lane ^ lane_mask;
  if (src / width > lane / width) src = lane; // a later group: the caller's own value
  T out;
  emu_shuffle(mask, &v, &out, sizeof v, src);
  return out;
}

// Fibers never interleave inside a call, but ThreadSanitizer must see an atomic.
template <class T> T atomicAdd(T *p, T v) {
  T old, sum;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  do sum = old + v;
  while (!__atomic_compare_exchange(p, &old, &sum, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return old;
}

static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((uint64_t)a * b) >> 32); }
static inline unsigned __float_as_uint(float x) {
  unsigned u;
  memcpy(&u, &x, sizeof u);
  return u;
}
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }

// ---- the CUDA runtime (emu_runtime.cpp, emu_memory.cpp) ----

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorLaunchFailure = 719,
};
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
};
typedef struct emu_stream *cudaStream_t;
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem, sharedMemPerBlock;
  int major, minor, warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3];
};

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int device);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaMalloc(void **p, size_t bytes);
cudaError_t cudaFree(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t s = 0);
cudaError_t cudaMemset(void *p, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t s = 0);

// ---- cuBLAS (emu_cublas.cpp): column-major reference GEMMs ----

enum cublasStatus_t {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
};
enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 };
enum cublasMath_t { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 3 };
typedef struct emu_blas *cublasHandle_t;

cublasStatus_t cublasCreate(cublasHandle_t *h);
cublasStatus_t cublasDestroy(cublasHandle_t h);
cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s);
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode);
const char *cublasGetStatusString(cublasStatus_t s);
cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const float *alpha, const float *A, int lda,
                           const float *B, int ldb, const float *beta, float *C, int ldc);
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta,
                                         cublasOperation_t tb, int m, int n, int k,
                                         const float *alpha, const float *A, int lda, long long sa,
                                         const float *B, int ldb, long long sb, const float *beta,
                                         float *C, int ldc, long long sc, int batch);

// ---- launches and shared memory (emu_sched.cpp) ----

struct emu_config {
  dim3 grid, block;
  size_t shmem;
  cudaStream_t stream;
  emu_config(dim3 g, dim3 b, size_t sh = 0, cudaStream_t s = 0) : grid(g), block(b), shmem(sh), stream(s) {}
};

// Runs body(ctx) as every thread of every block; errors as cudaGetLastError reports them.
void emu_run(const char *kernel, const char *file, int line, const emu_config &c,
             void (*body)(void *), void *ctx);

// `k<<<cfg>>>(args)` becomes emu_launch("k", __FILE__, __LINE__, emu_config(cfg),
// [](auto... a) { k(a...); }, args): the arguments are evaluated once, as on the
// host, and every thread calls the kernel with its own copy.
template <class K, class... A>
void emu_launch(const char *kernel, const char *file, int line, const emu_config &c, K k, A... a) {
  std::tuple<A...> args(a...);
  auto body = [&] { std::apply(k, args); };
  emu_run(kernel, file, line, c, [](void *p) { (*static_cast<decltype(body) *>(p))(); }, &body);
}

// Storage of one __shared__ declaration in the running block, allocated on its first
// use in the block, filled with 0xff bytes (a NaN in every float and double lane).
void *emu_shared_alloc(const void *site, size_t bytes);
// `__shared__ T x[N];` becomes `T (&x)[N] = emu_shared<T[N]>([] {});`: the lambda's
// type, distinct for every declaration (and every template instance), keys the storage.
template <class T, class Site> T &emu_shared(Site) {
  static const char site = 0;
  return *static_cast<T *>(emu_shared_alloc(&site, sizeof(T)));
}

#endif
