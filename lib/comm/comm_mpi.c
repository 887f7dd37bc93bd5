/* The communicator over Open MPI (MPI_COMM_WORLD), for runs started by
 * mpirun; see comm/comm.h. Built with Open MPI when the Makefile finds it
 * (NMT_MPI); without it, a run under mpirun is refused with one line. */
#include "comm/comm.h"
#include "base/err.h"
#include <limits.h>
#include <stdlib.h>
#include <time.h>

/* Whether mpirun started this process: the launcher's environment, read
 * before MPI_Init (a plain run never initialises MPI, whose singleton start
 * would fork a daemon and is slow or fails in containers). */
static bool under_mpirun(void) { return getenv("OMPI_COMM_WORLD_SIZE") != NULL; }

#ifdef NMT_MPI
#include "base/pool.h"
#include <mpi.h>
#include <stdatomic.h>

/* The communicator and its watchdog. */
typedef struct {
  nmt_comm c; /* first: the nmt_comm the callers see */
  double timeout;
  nmt_comm_stuck_fn stuck;
  _Atomic(const char *) op; /* the collective under way, or NULL */
  _Atomic long long since;  /* when it began (ns) */
  atomic_bool closing;
  nmt_pool pool;            /* the watchdog's thread */
  bool watching;
} mpi_comm;

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void enter(nmt_comm *c, const char *op) {
  mpi_comm *m = (mpi_comm *)c;
  atomic_store(&m->since, now_ns());
  atomic_store(&m->op, op);
}

/* Twice a second: is a collective older than the timeout? A tick far later
 * than asked means this process itself was stopped (SIGSTOP, a suspended
 * job): that time is not the others' fault, so the wait starts again. */
static void watch(void *ctx, int part, int parts) {
  (void)part, (void)parts;
  mpi_comm *m = ctx;
  struct timespec half = {0, 500000000L};
  long long last = now_ns();
  while (!atomic_load(&m->closing)) {
    nanosleep(&half, NULL);
    long long t = now_ns();
    if (t - last > 2000000000LL) atomic_store(&m->since, t);
    last = t;
    const char *op = atomic_load(&m->op);
    double waited = 1e-9 * (double)(t - atomic_load(&m->since));
    if (op && waited > m->timeout) m->stuck(&m->c, op, waited);
  }
}

static int mpi_fail(int rc, const char *what) {
  if (rc == MPI_SUCCESS) return NMT_OK;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return nmt_fail(NMT_EIO, "MPI %s failed: %.*s", what, len, text);
}

static int leave(nmt_comm *c, int rc, const char *what) {
  atomic_store(&((mpi_comm *)c)->op, NULL);
  return mpi_fail(rc, what);
}

/* MPI counts are ints: a large buffer goes in pieces of at most INT_MAX elements. */
enum { CHUNK = INT_MAX / 2 };

static int bcast(nmt_comm *c, void *buf, size_t n, int root) {
  int rc = MPI_SUCCESS;
  enter(c, "MPI_Bcast");
  for (size_t at = 0; at < n && rc == MPI_SUCCESS; at += CHUNK) {
    size_t k = n - at < CHUNK ? n - at : CHUNK;
    rc = MPI_Bcast((char *)buf + at, (int)k, MPI_BYTE, root, MPI_COMM_WORLD);
  }
  return leave(c, rc, "broadcast");
}

static int allgather(nmt_comm *c, const void *mine, void *all, size_t n) {
  if (n > CHUNK) return nmt_fail(NMT_EIO, "MPI allgather of %zu bytes: too many", n);
  enter(c, "MPI_Allgather");
  return leave(c, MPI_Allgather(mine, (int)n, MPI_BYTE, all, (int)n, MPI_BYTE, MPI_COMM_WORLD), "allgather");
}

/* counts and displacements as MPI's ints */
static int to_ints(const nmt_comm *c, const size_t *count, const size_t *displ, int *ic, int *id) {
  for (int r = 0; r < c->size; r++) {
    if (count[r] > INT_MAX || displ[r] > INT_MAX)
      return nmt_fail(NMT_EIO, "MPI exchange of %zu floats: over MPI's int counts", displ[r] + count[r]);
    ic[r] = (int)count[r], id[r] = (int)displ[r];
  }
  return NMT_OK;
}

static int alltoallv(nmt_comm *c, const float *send, const size_t *scount, const size_t *sdispl, float *recv,
                     const size_t *rcount, const size_t *rdispl) {
  int *v = malloc(4 * sizeof(int) * (size_t)c->size);
  if (!v) return nmt_fail(NMT_EIO, "out of memory");
  int *sc = v, *sd = v + c->size, *rc_ = v + 2 * c->size, *rd = v + 3 * c->size;
  int st = to_ints(c, scount, sdispl, sc, sd);
  if (!st) st = to_ints(c, rcount, rdispl, rc_, rd);
  if (!st) {
    enter(c, "MPI_Alltoallv");
    st = leave(c, MPI_Alltoallv(send, sc, sd, MPI_FLOAT, recv, rc_, rd, MPI_FLOAT, MPI_COMM_WORLD), "alltoallv");
  }
  free(v);
  return st;
}

static int allgatherv(nmt_comm *c, float *buf, const size_t *count, const size_t *displ) {
  int *v = malloc(2 * sizeof(int) * (size_t)c->size);
  if (!v) return nmt_fail(NMT_EIO, "out of memory");
  int st = to_ints(c, count, displ, v, v + c->size);
  if (!st) {
    enter(c, "MPI_Allgatherv");
    st = leave(c, MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, v, v + c->size, MPI_FLOAT, MPI_COMM_WORLD),
               "allgatherv");
  }
  free(v);
  return st;
}

static _Noreturn void abort_all(nmt_comm *c, int status) {
  (void)c;
  MPI_Abort(MPI_COMM_WORLD, status);
  exit(status); /* MPI_Abort does not return; the compiler cannot know */
}

static void close_mpi(nmt_comm *c) {
  mpi_comm *m = (mpi_comm *)c;
  atomic_store(&m->closing, true);
  if (m->watching) nmt_pool_join(&m->pool);
  MPI_Finalize();
  free(c->send), free(c->recv), free(c->got);
  free(c);
}

static const nmt_comm_ops mpi_ops = {"Open MPI", bcast, allgather, alltoallv, allgatherv, abort_all, close_mpi};

int nmt_comm_open(nmt_comm **c, double timeout, nmt_comm_stuck_fn stuck) {
  *c = nmt_comm_local();
  if (!under_mpirun()) return NMT_OK;
  mpi_comm *m = calloc(1, sizeof *m);
  if (!m) return nmt_fail(NMT_EIO, "out of memory");
  int rc = MPI_Init(NULL, NULL);
  if (rc != MPI_SUCCESS) {
    free(m);
    return mpi_fail(rc, "initialisation");
  }
  /* errors come back as codes: the caller aborts the job with its message */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &m->c.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m->c.size);
  m->c.ops = &mpi_ops;
  m->timeout = timeout, m->stuck = stuck;
  if (timeout > 0 && stuck && nmt_pool_start(&m->pool, 0, 1, watch, m) != 1) {
    MPI_Finalize();
    free(m);
    return nmt_fail(NMT_EIO, "cannot start the --comm-timeout watchdog's thread");
  }
  m->watching = timeout > 0 && stuck;
  *c = &m->c;
  return NMT_OK;
}

#else

int nmt_comm_open(nmt_comm **c, double timeout, nmt_comm_stuck_fn stuck) {
  (void)timeout, (void)stuck;
  *c = nmt_comm_local();
  return under_mpirun() ? nmt_fail(NMT_EUSAGE, "started by mpirun, but built without Open MPI: install "
                                   "libopenmpi-dev (make deps) and rebuild")
                        : NMT_OK;
}

#endif
