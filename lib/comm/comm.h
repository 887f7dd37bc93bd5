/* The processes of one training run and what they exchange: a table of
 * functions (the communicator), one process by default (comm_local.c), or
 * Open MPI under mpirun (comm_mpi.c, linked into nmt-train alone).
 *
 * Every collective moves bytes and never adds: the sums that training needs
 * are folded by the caller in a fixed order (rank, then part), so their bits
 * do not depend on the transport or on MPI's reduction algorithms. A
 * collective that fails returns NMT_EIO with a message; the caller then ends
 * the job with nmt_comm_abort (a rank left waiting would hang). */
#ifndef NMT_COMM_COMM_H
#define NMT_COMM_COMM_H
#include <stdbool.h>
#include <stddef.h>

typedef struct nmt_comm nmt_comm;

typedef struct {
  const char *name; /* "local", "Open MPI": for messages */
  /* buf (n bytes) of rank root on every rank */
  int (*bcast)(nmt_comm *c, void *buf, size_t n, int root);
  /* all (size * n bytes): every rank's mine (n bytes), in rank order */
  int (*allgather)(nmt_comm *c, const void *mine, void *all, size_t n);
  /* floats: send[sdispl[r] ..+ scount[r]) to rank r, and rank r's into recv[rdispl[r] ..+ rcount[r]) */
  int (*alltoallv)(nmt_comm *c, const float *send, const size_t *scount, const size_t *sdispl, float *recv,
                   const size_t *rcount, const size_t *rdispl);
  /* floats: every rank's buf[displ[r] ..+ count[r]) to all ranks, in place */
  int (*allgatherv)(nmt_comm *c, float *buf, const size_t *count, const size_t *displ);
  /* end every process of the job with this exit status; never returns */
  void (*abort)(nmt_comm *c, int status);
  /* the end of a run that all ranks reach */
  void (*close)(nmt_comm *c);
} nmt_comm_ops;

/* What to do when a collective has not returned for the watchdog's timeout:
 * called from the watchdog's thread with the operation's name; it should end
 * the process (the one in the collective cannot be woken). */
typedef void (*nmt_comm_stuck_fn)(const nmt_comm *c, const char *op, double seconds);

struct nmt_comm {
  int rank, size;
  volatile long step; /* what the caller is at (a training step), for the watchdog's message */
  const nmt_comm_ops *ops;
  /* the last error was decided together (the same status and message on
   * every rank): rank 0 reports it and every rank ends normally */
  bool failed_together;
  /* seconds spent moving gradient shards (the sum's alltoallv and allgatherv):
   * the reduction's own cost, apart from waiting for a slower rank's step */
  double reduce_s;
  /* nmt_comm_scatter_parts' buffers, kept between steps */
  float *send, *recv;
  size_t send_cap, recv_cap;
  const float **got;
  int got_cap;
};

/* The one-process communicator (rank 0 of 1); needs no closing. */
nmt_comm *nmt_comm_local(void);

/* Under Open MPI's mpirun (OMPI_COMM_WORLD_SIZE in the environment) the MPI
 * communicator, else the local one. Nothing calls MPI_Init outside mpirun,
 * so a plain run is the plain process it always was. With timeout > 0 a
 * watchdog thread calls stuck when a collective takes longer (a rank hung or
 * gone). NMT_EUSAGE when started by mpirun but built without Open MPI;
 * NMT_EIO when MPI cannot start. */
int nmt_comm_open(nmt_comm **c, double timeout, nmt_comm_stuck_fn stuck);
void nmt_comm_close(nmt_comm *c);

/* *buf holds at least n floats (a communicator's buffers, grown as needed). */
int nmt_comm_reserve(float **buf, size_t *cap, size_t n);

/* Shards start at multiples of this many floats: the optimizer sums the
 * gradient's squares in chunks of as many (nn/optim.h), so each chunk is one
 * rank's and the sharded norm has the bits of the whole one. */
enum { NMT_SHARD_GRAIN = 1 << 16 };

/* Rank r's shard of n floats: of the k = ceil(n / GRAIN) grains,
 * [k*r/size, k*(r+1)/size), cut at n. A model under size grains leaves some
 * ranks an empty shard. */
void nmt_comm_shard(const nmt_comm *c, size_t n, int r, size_t *lo, size_t *hi);

/* The first half of a sum in a fixed order: rank r holds counts[r] parts of n
 * floats each (parts, counts[rank] of them; a rank may hold none). *got gets
 * one pointer per part of every rank, in (rank, part) order, to that part's
 * slice of this rank's shard (nmt_comm_shard): the caller folds them left to
 * right. With one process the slices are the parts themselves (no copy). */
int nmt_comm_scatter_parts(nmt_comm *c, float *const *parts, const int *counts, size_t n, const float ***got);
/* Every rank's shard of buf (n floats) to every rank: the weights, after
 * each rank updated its shard (train/shard.h). */
int nmt_comm_gather_shards(nmt_comm *c, float *buf, size_t n);

/* The step header's all-reduce: every rank's status and n bytes of payload
 * (mine) to every rank (all: size * n bytes, in rank order), for the caller
 * to fold in rank order. When a rank failed, every rank returns the first
 * failing rank's status and message ("rank R: ..."; with one process the
 * message as it was) and c->failed_together is set. */
int nmt_comm_exchange(nmt_comm *c, int status, const void *mine, void *all, size_t n);

/* Every rank's n bytes of mine to every rank, n differing by rank: *all
 * (malloc'd; the caller frees it) gets them back to back in rank order, and
 * len[r] (size of them) is rank r's n. */
int nmt_comm_gather_bytes(nmt_comm *c, const void *mine, size_t n, char **all, size_t *len);

/* Whether any rank says yes (a stop request): the same answer on all. */
int nmt_comm_any(nmt_comm *c, bool mine, bool *any);

#endif
