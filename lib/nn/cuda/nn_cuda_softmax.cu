// Masked row softmax (one warp per row: attention rows are short), the
// fused log-softmax + label-smoothed NLL and the decoder's log-softmax rows
// (one block per row: rows are the vocabulary) (lib/nn/softmax.c, xent.c).
#include "nn/cuda/nn_cuda_internal.cuh"

__global__ static void softmax_fwd_kernel(float *y, const float *x, const float *mask, int R, int C) {
  int r = nnc_warp_row(), lane = threadIdx.x % 32;
  if (r >= R) return; // the whole warp leaves together
  const float *xr = x + (size_t)r * C, *mr = mask ? mask + (size_t)r * C : NULL;
  float *yr = y + (size_t)r * C, mx = -INFINITY, s = 0;
  for (int c = lane; c < C; c += 32)
    if (!mr || mr[c] != 0) mx = fmaxf(mx, xr[c]);
  mx = nnc_warp_all(mx, nnc_max_op());
  for (int c = lane; c < C; c += 32) {
    yr[c] = (!mr || mr[c] != 0) ? expf(xr[c] - mx) : 0.0f;
    s += yr[c];
  }
  s = nnc_warp_all(s, nnc_sum_op());
  float inv = s > 0 ? 1.0f / s : 0.0f; // a fully masked row stays 0
  for (int c = lane; c < C; c += 32) yr[c] *= inv;
}

extern "C" void nnc_softmax_fwd(float *y, const float *x, const float *mask, int R, int C) {
  if (R <= 0) return;
  softmax_fwd_kernel<<<nnc_warp_grid(R), NNC_THREADS, 0, nnc_stream>>>(
      y, x, mask, R, C);
  nnc_launched("softmax_fwd");
}

// dx = y ⊙ (dy - Σ y·dy); masked entries have y = 0, so they get nothing.
__global__ static void softmax_bwd_kernel(float *dx, const float *y, const float *dy, int R, int C) {
  int r = nnc_warp_row(), lane = threadIdx.x % 32;
  if (r >= R) return;
  size_t row = (size_t)r * C;
  float dot = 0;
  for (int c = lane; c < C; c += 32) dot += y[row + c] * dy[row + c];
  dot = nnc_warp_all(dot, nnc_sum_op());
  for (int c = lane; c < C; c += 32) dx[row + c] += y[row + c] * (dy[row + c] - dot);
}

extern "C" void nnc_softmax_bwd(float *dx, const float *y, const float *dy, int R, int C) {
  if (R <= 0) return;
  softmax_bwd_kernel<<<nnc_warp_grid(R), NNC_THREADS, 0, nnc_stream>>>(
      dx, y, dy, R, C);
  nnc_launched("softmax_bwd");
}

// Per counted row: prob = softmax, loss += (1-ls)·(lse - x_y) + ls·(lse - mean(x)).
__global__ static void xent_fwd_kernel(float *prob, const float *logits, const int *targets, int V,
                                       int pad, float ls, nnc_totals *totals) {
  int y = targets[blockIdx.x];
  if (y == pad) return; // the whole block leaves together
  const float *x = logits + (size_t)blockIdx.x * V;
  float *p = prob + (size_t)blockIdx.x * V, mx = -INFINITY, s = 0;
  double sum_x = 0;
  for (int v = threadIdx.x; v < V; v += blockDim.x) mx = fmaxf(mx, x[v]);
  mx = nnc_block_all(mx, nnc_max_op());
  for (int v = threadIdx.x; v < V; v += blockDim.x) {
    p[v] = expf(x[v] - mx);
    s += p[v];
    sum_x += x[v];
  }
  s = nnc_block_all(s, nnc_sum_op());
  sum_x = nnc_block_all(sum_x, nnc_sum_op());
  float inv = 1.0f / s;
  for (int v = threadIdx.x; v < V; v += blockDim.x) p[v] *= inv;
  if (threadIdx.x == 0) {
    double lse = mx + log((double)s);
    atomicAdd(&totals->sum, (1 - ls) * (lse - x[y]) + ls * (lse - sum_x / V));
    atomicAdd(&totals->count, 1ull);
  }
}

extern "C" double nnc_xent_fwd(float *prob, const float *logits, const int *targets, int R, int V,
                               int pad, float ls, long *ntokens) {
  *ntokens = 0;
  nnc_totals *totals = nnc_totals_begin("xent_fwd");
  if (!totals || R <= 0) return 0;
  xent_fwd_kernel<<<R, NNC_THREADS, 0, nnc_stream>>>(prob, logits, targets, V, pad, ls, totals);
  nnc_launched("xent_fwd");
  nnc_totals t = nnc_totals_end("xent_fwd");
  *ntokens = (long)t.count;
  return t.sum;
}

extern "C" void nnc_xent_bwd(float *dlogits, const float *prob, const int *targets, int R, int V,
                             int pad, float ls, float dloss) {
  float off = ls / V;
  nnc_each("xent_bwd", (size_t)R * V, [=] __device__(size_t i) {
    int y = targets[i / V];
    if (y == pad) return;
    float d = dlogits[i] + dloss * (prob[i] - off);
    if ((int)(i % V) == y) d -= dloss * (1 - ls);
    dlogits[i] = d;
  });
}

// One block per row (rows are the vocabulary): lse = max + log Σ exp(x - max).
__global__ static void log_softmax_rows_kernel(float *out, const int *rows, const float *x, int W, int V) {
  const float *a = x + (size_t)blockIdx.x * W;
  float *o = out + (size_t)(rows ? rows[blockIdx.x] : blockIdx.x) * V, mx = -INFINITY, s = 0;
  for (int v = threadIdx.x; v < W; v += blockDim.x) mx = fmaxf(mx, a[v]);
  mx = nnc_block_all(mx, nnc_max_op());
  for (int v = threadIdx.x; v < W; v += blockDim.x) s += expf(a[v] - mx);
  float lz = mx + logf(nnc_block_all(s, nnc_sum_op()));
  for (int v = threadIdx.x; v < V; v += blockDim.x) o[v] = v < W ? a[v] - lz : -INFINITY;
}

extern "C" void nnc_log_softmax_rows(float *out, const int *rows, const float *x, int n, int W, int V) {
  if (n <= 0) return;
  log_softmax_rows_kernel<<<n, NNC_THREADS, 0, nnc_stream>>>(out, rows, x, W, V);
  nnc_launched("log_softmax_rows");
}
