/* The autodiff tape. Tensors are 2-D views (rows, cols) of arena memory:
 * batch×features, time-major sequences as (T*B, F) so step t is rows
 * [t*B, (t+1)*B) — a free view. Each op computes its forward at once and, when
 * training, records an entry (op, inputs, outputs, saved buffers, shapes);
 * nn_tape_backward replays the entries in reverse, each op's backward
 * accumulating (+=) into its inputs' gradients.
 *
 * Errors are sticky: an op given a bad shape or failing to allocate records
 * the message (nmt_fail), marks the graph failed and returns NULL; every later
 * op returns NULL at once. Check nn_graph.failed (or a NULL loss) at the end. */
#ifndef NMT_NN_TAPE_H
#define NMT_NN_TAPE_H
#include "nn/arena.h"
#include "nn/backend.h"
#include "nn/params.h"
#include <stdbool.h>
#include <stdint.h>

typedef struct {
  float *v, *g; /* values and gradients, (rows, cols) row-major; g NULL when not training */
  int rows, cols;
  const nn_qmat *q; /* a weight's int8 copy when inference uses one (nn_params_quantize) */
  const float *pk;  /* its packed copy when inference uses one (nn_params_pack) */
} nn_tensor;

typedef struct nn_entry nn_entry;

/* What the tape knows about an op: a name for messages and its backward,
 * which runs its kernels on the graph's backend. */
typedef struct {
  const char *name;
  void (*backward)(const nn_backend *be, const nn_entry *e);
} nn_opdef;

struct nn_entry {
  const nn_opdef *op;
  nn_tensor *in[4], *out[2];
  float *save[2];    /* op-specific buffers kept for backward */
  const float *mask; /* op-specific constant inputs */
  const int *ids;
  void *aux;         /* anything else an op keeps (arena memory) */
  int n[4];          /* op-specific sizes and flags */
  float f[2];        /* op-specific scalars */
};

typedef struct {
  const nn_backend *be; /* where tensors live and ops compute: NULL is the CPU */
  nn_arena arena;       /* the backend's memory: values, gradients, op buffers */
  nn_arena host;        /* host memory: tensor headers, pointer arrays, scratch */
  nn_entry *tape;
  int ntape, cap_tape;
  bool train;        /* record the tape and allocate gradients */
  uint64_t seed;     /* dropout: Philox key */
  uint64_t step;     /* dropout: the training step (mod 2³²), a counter word */
  uint32_t part;     /* dropout: the batch part (its index in the data-parallel split), a counter word */
  uint32_t ndropout; /* dropout ops so far this step, a counter word */
  bool failed;
} nn_graph;

/* Start a step: forget all tensors and the tape (memory is kept). */
int nn_graph_reset(nn_graph *g, bool train, uint64_t step);
void nn_graph_free(nn_graph *g);

/* A new (rows, cols) tensor: values uninitialised, gradient zeroed. */
nn_tensor *nn_new(nn_graph *g, int rows, int cols);
/* A new (rows, cols) tensor of zeros (e.g. an initial recurrent state). */
nn_tensor *nn_zeros(nn_graph *g, int rows, int cols);
/* A new tensor holding a copy of `data` (rows*cols floats, host memory). */
nn_tensor *nn_input(nn_graph *g, int rows, int cols, const float *data);
/* Copy t's values (rows*cols floats) out to host memory; false (g failed) on error. */
bool nn_to_host(nn_graph *g, const nn_tensor *t, float *dst);
/* Rows [r0, r0+n) of x as a tensor sharing x's values and gradient. */
nn_tensor *nn_rows(nn_graph *g, nn_tensor *x, int r0, int n);
/* The parameter view `index` of p (values p->w, gradients p->g). */
nn_tensor *nn_param(nn_graph *g, nn_params *p, int index);
/* Host scratch for this step, 64-byte aligned, uninitialised: headers,
 * arrays of tensors, arrays built before they go to nn_floats/nn_ints. */
void *nn_alloc(nn_graph *g, size_t bytes);
/* Arrays in the backend's memory for this step, what ops and kernels read
 * (masks, ids, lengths) and keep; copied in from host memory when `data` is
 * not NULL. Host code must not read or write them: build on the host, then copy. */
float *nn_floats(nn_graph *g, size_t n, const float *data);
int *nn_ints(nn_graph *g, size_t n, const int *data);

/* Fail the graph unless cond: records "op: message" and returns false. */
bool nn_require(nn_graph *g, bool cond, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A tape entry for op (NULL when not training or failed); the caller fills it. */
nn_entry *nn_record(nn_graph *g, const nn_opdef *op);

/* Backward from a (1,1) loss: its gradient is set to `seed` (e.g. 1/tokens),
 * then every entry's backward runs in reverse. NMT_OK or the graph's error. */
int nn_tape_backward(nn_graph *g, nn_tensor *loss, float seed);
/* Replay the tape in reverse once the caller has set the output gradients
 * itself (e.g. a projection of a non-scalar output in gradient checks). */
int nn_tape_replay(nn_graph *g);

#endif
