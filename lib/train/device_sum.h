/* The gradient's sum when training runs on a device (a GPU) under mpirun:
 * one slot per rank (a device runs one worker), its gradient in device
 * memory. As on the CPU (train/update.c) the gradient is cut into shards
 * (nmt_comm_shard); each rank receives every slot's slice of its shard
 * (alltoallv), folds them on the device in slot order with the backend's
 * axpby_fwd row (y = a + 1·b: one float add per element, as the CPU's sum),
 * and the shards are gathered to all (allgatherv). The bytes move by NCCL or
 * through the host (comm/comm_device.h); either way the sum has the same bits. */
#ifndef NMT_TRAIN_DEVICE_SUM_H
#define NMT_TRAIN_DEVICE_SUM_H
#include "comm/comm.h"
#include "nn/params.h"
#include <stddef.h>

struct nn_backend;
typedef struct nmt_device_sum nmt_device_sum;

/* On every rank together. NCCL when the build has it and every rank has a GPU
 * of its own (NMT_NCCL=0 in the environment: never), else the host-staged
 * path; note gets one line saying which, and why not NCCL. */
int nmt_device_sum_open(nmt_device_sum **d, nmt_comm *host, const struct nn_backend *be, char *note, size_t n);
/* p->g (on the device, p->n floats) of this rank's slot becomes the sum of
 * every slot's; counts[r]: rank r's slots, 0 or 1. */
int nmt_device_sum_run(nmt_device_sum *d, nn_params *p, const int *counts);
void nmt_device_sum_free(nmt_device_sum *d);

#endif
