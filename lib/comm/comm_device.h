/* Communicators whose float buffers are device memory (a GPU's), for the
 * gradient of training on a device under mpirun: NCCL's (comm_nccl.c, built
 * by `make cuda` alone), or the host-staged one over the host communicator
 * (comm_staged.c: copy to the host, Open MPI, copy back), which every build
 * has. Like every nmt_comm they move bytes and never add (comm/comm.h): the
 * caller folds the shards on the device in (rank, part) order, so the bits do
 * not depend on the transport.
 *
 * A device communicator has alltoallv, allgatherv, abort and close (bcast
 * and allgather are NULL: the host communicator does those). Its rank and
 * size are the host's; closing it leaves the host communicator open. */
#ifndef NMT_COMM_COMM_DEVICE_H
#define NMT_COMM_COMM_DEVICE_H
#include "comm/comm.h"

/* The device's copies (the backend's to_host and to_device rows): NMT statuses. */
typedef struct {
  int (*to_host)(void *dst, const void *src, size_t bytes);
  int (*to_device)(void *dst, const void *src, size_t bytes);
} nmt_comm_copies;

/* The host-staged communicator over host. */
int nmt_comm_staged(nmt_comm **out, nmt_comm *host, nmt_comm_copies copies);

/* NCCL's on this process's current GPU, its unique id broadcast over host.
 * A collective call on every rank; it fails on all alike (NMT_EUSAGE in a
 * build without NCCL or when two ranks share a GPU, NMT_EIO when NCCL cannot
 * start), so the ranks fall back to the staged one together. */
int nmt_comm_nccl(nmt_comm **out, nmt_comm *host);

#endif
