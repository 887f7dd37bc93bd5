/* NCCL's device communicator (comm/comm_device.h): the gradient's bytes move
 * between the GPUs' memories, never through the host. Compiled with NCCL into
 * `make cuda`'s nmt-train alone (-DNMT_NCCL, linked before libnmt.a); in
 * every other build nmt_comm_nccl says so and the staged one is used.
 *
 * NCCL runs on a stream of its own. Before each collective the device is
 * synchronised (the gradient's kernels, on the engine's stream, are done),
 * after it the stream (the engine's next kernels read what arrived). */
#include "comm/comm_device.h"
#include "base/err.h"

#ifdef NMT_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  nmt_comm c; /* first: what the callers see */
  nmt_comm *host;
  ncclComm_t nccl;
  cudaStream_t stream;
} nccl_comm;

static int cuda_fail(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return NMT_OK;
  return nmt_fail(NMT_EIO, "CUDA error in %s: %s", what, cudaGetErrorString(e));
}

static int nccl_fail(ncclResult_t r, const char *what) {
  if (r == ncclSuccess) return NMT_OK;
  return nmt_fail(NMT_EIO, "NCCL %s failed: %s", what, ncclGetErrorString(r));
}

/* One group of NCCL calls, ended and waited for; r is the first call's failure. */
static int group_end(nccl_comm *m, ncclResult_t r, const char *what) {
  ncclResult_t e = ncclGroupEnd();
  int st = nccl_fail(r != ncclSuccess ? r : e, what);
  return st ? st : cuda_fail(cudaStreamSynchronize(m->stream), what);
}

static int group_start(void) {
  int st = cuda_fail(cudaDeviceSynchronize(), "the gradient's kernels");
  return st ? st : nccl_fail(ncclGroupStart(), "group start");
}

/* Point to point, every pair at once (NCCL has no alltoallv). */
static int alltoallv(nmt_comm *c, const float *send, const size_t *scount, const size_t *sdispl, float *recv,
                     const size_t *rcount, const size_t *rdispl) {
  nccl_comm *m = (nccl_comm *)c;
  int st = group_start();
  if (st) return st;
  ncclResult_t r = ncclSuccess;
  for (int k = 0; k < c->size && r == ncclSuccess; k++) {
    if (scount[k]) r = ncclSend(send + sdispl[k], scount[k], ncclFloat, k, m->nccl, m->stream);
    if (rcount[k] && r == ncclSuccess) r = ncclRecv(recv + rdispl[k], rcount[k], ncclFloat, k, m->nccl, m->stream);
  }
  return group_end(m, r, "alltoallv");
}

/* Shards of unequal sizes: one broadcast per rank, in place (ncclAllGather wants equal ones). */
static int allgatherv(nmt_comm *c, float *buf, const size_t *count, const size_t *displ) {
  nccl_comm *m = (nccl_comm *)c;
  int st = group_start();
  if (st) return st;
  ncclResult_t r = ncclSuccess;
  for (int k = 0; k < c->size && r == ncclSuccess; k++)
    if (count[k]) r = ncclBroadcast(buf + displ[k], buf + displ[k], count[k], ncclFloat, k, m->nccl, m->stream);
  return group_end(m, r, "allgatherv");
}

static _Noreturn void abort_all(nmt_comm *c, int status) {
  nccl_comm *m = (nccl_comm *)c;
  ncclCommAbort(m->nccl);
  m->host->ops->abort(m->host, status);
  exit(status); /* abort does not return; the compiler cannot know */
}

static void close_nccl(nmt_comm *c) {
  nccl_comm *m = (nccl_comm *)c;
  ncclCommDestroy(m->nccl);
  cudaStreamDestroy(m->stream);
  free(m);
}

static const nmt_comm_ops nccl_ops = {"NCCL", NULL, NULL, alltoallv, allgatherv, abort_all, close_nccl};

/* NCCL refuses two ranks on one GPU: find them first (host name and PCI bus id), alike on every rank. */
static int distinct_gpus(nmt_comm *host) {
  enum { ID = 320 };
  char mine[ID] = {0}, *all = calloc((size_t)host->size, ID);
  if (!all) return nmt_fail(NMT_EIO, "out of memory");
  int dev = 0, st = cuda_fail(cudaGetDevice(&dev), "cudaGetDevice");
  gethostname(mine, 255);
  size_t at = strlen(mine);
  mine[at++] = ' ';
  if (!st) st = cuda_fail(cudaDeviceGetPCIBusId(mine + at, (int)(ID - at), dev), "cudaDeviceGetPCIBusId");
  st = nmt_comm_exchange(host, st, mine, all, ID);
  for (int a = 0; a < host->size && !st; a++)
    for (int b = a + 1; b < host->size && !st; b++)
      if (!strcmp(all + (size_t)a * ID, all + (size_t)b * ID))
        st = nmt_fail(NMT_EUSAGE, "ranks %d and %d share the GPU %s, and NCCL wants one GPU per rank", a, b,
                      all + (size_t)a * ID);
  free(all);
  return st;
}

int nmt_comm_nccl(nmt_comm **out, nmt_comm *host) {
  int st = distinct_gpus(host);
  if (st) return st;
  struct {
    int status;
    ncclUniqueId id;
  } boot = {NMT_OK};
  if (host->rank == 0) boot.status = nccl_fail(ncclGetUniqueId(&boot.id), "ncclGetUniqueId");
  if ((st = host->ops->bcast(host, &boot, sizeof boot, 0))) return st;
  if (boot.status) return nmt_fail(boot.status, "NCCL cannot start: rank 0 got no unique id");
  nccl_comm *m = calloc(1, sizeof *m);
  if (!m) return nmt_fail(NMT_EIO, "out of memory");
  st = cuda_fail(cudaStreamCreateWithFlags(&m->stream, cudaStreamNonBlocking), "cudaStreamCreate");
  if (!st) st = nccl_fail(ncclCommInitRank(&m->nccl, host->size, boot.id, host->rank), "ncclCommInitRank");
  /* a rank that failed tells the others, which may have started */
  bool failed = st != NMT_OK, any = true;
  int told = nmt_comm_any(host, failed, &any);
  if (told || any) {
    if (m->nccl) ncclCommAbort(m->nccl);
    if (m->stream) cudaStreamDestroy(m->stream);
    free(m);
    return told ? told : failed ? st : nmt_fail(NMT_EIO, "NCCL could not start on another rank");
  }
  m->c.rank = host->rank, m->c.size = host->size, m->c.ops = &nccl_ops;
  m->host = host;
  *out = &m->c;
  return NMT_OK;
}

#else

int nmt_comm_nccl(nmt_comm **out, nmt_comm *host) {
  (void)out, (void)host;
  return nmt_fail(NMT_EUSAGE, "this build has no NCCL (make cuda has)");
}

#endif
