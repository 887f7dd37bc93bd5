/* The recurrent highway network (Zilly et al. 2017) as used by paper 003. A
 * time step runs L micro-steps on the state s (s_0 = the previous step's s_L):
 *   h_l = tanh(z_l^H), t_l = σ(z_l^T), c_l = σ(z_l^C) or 1 - t_l (coupled),
 *   s_l = h_l⊙t_l + s_{l-1}⊙c_l,
 *   z_l = [l=1]·x·W + r_l·R_l + b_l   (gates in the order H, T, C)
 * where r_1 is s_0 (or [feed; s_0] with input feeding) and r_l = s_{l-1}.
 * Only micro-step 1 reads the input, so its projection for all time steps is
 * one GEMM with b_1 in it; each R_l's gradient is one GEMM over all steps
 * (nn_recur); the micro-step is one fused kernel. */
#ifndef NMT_NN_CELLS_RHN_H
#define NMT_NN_CELLS_RHN_H
#include "nn/recur.h"

enum { NN_RHN_MAX_DEPTH = 5 };

/* Gate columns per unit: H, T, C; coupled: H, T. */
static inline int nn_rhn_gates(bool coupled) { return coupled ? 2 : 3; }

/* The micro-step as a tape op: writes s_out (B,H), which the caller
 * allocates (e.g. a row view of a sequence tensor). z2, bias and mask may be NULL. */
void nn_rhn_cell(nn_graph *g, nn_tensor *z, nn_tensor *z2, nn_tensor *bias, nn_tensor *s_prev,
                 const float *mask, bool coupled, nn_tensor *s_out);

/* One RHN layer's weights: W (In,G·H) and b[0] feed micro-step 1 (nn_linear),
 * R[l] (Rec,G·H) and b[l] micro-step l+1; R[0] reads r_1 (Rec = H, or more
 * with input feeding), the others s (Rec = H). */
typedef struct {
  nn_tensor *W, *R[NN_RHN_MAX_DEPTH], *b[NN_RHN_MAX_DEPTH];
  int depth;
  bool coupled;
} nn_rhn_w;

/* The recurrent products of every micro-step over a sequence of T steps of B
 * rows (training: weight gradients as one GEMM each), each added into a
 * (T*B,G·H) sequence: rec[0]'s may hold micro-step 1's input projection. */
typedef struct {
  nn_recur rec[NN_RHN_MAX_DEPTH];
} nn_rhn_recur;

/* Begin the products for T steps; Z1 (T*B,G·H) is micro-step 1's input
 * projection (with b[0]) for all steps, or NULL (zeros: the projection comes
 * per step). */
bool nn_rhn_recur_begin(nn_graph *g, nn_rhn_recur *r, const nn_rhn_w *w, nn_tensor *Z1, int T,
                        int B);

/* One time step: r1 the recurrent input of micro-step 1, s0 (B,H) the
 * previous state, mask (B) or NULL; z1 (B,G·H) micro-step 1's input
 * projection with b[0], or NULL when rec's first sequence holds it. With rec
 * (a sequence: training) the products go through rec at step t; without,
 * through a sequence of one step. Writes s_L into s_out (B,H) when given, else
 * into a new tensor; returns it. */
nn_tensor *nn_rhn_step(nn_graph *g, const nn_rhn_w *w, nn_tensor *z1, nn_tensor *r1, nn_tensor *s0,
                       const float *mask, nn_rhn_recur *rec, int t, nn_tensor *s_out);

/* A layer over X (T*B,In) time-major, mask (T*B) or NULL, initial state s0
 * (B,H) or NULL (zeros); r_1 = s_0. Returns the states s_L (T*B,H); through
 * padding the state is carried, so the rows of step T-1 hold each sentence's
 * final state. */
nn_tensor *nn_rhn_layer(nn_graph *g, const nn_rhn_w *w, nn_tensor *X, const float *mask, int T,
                        nn_tensor *s0);

#endif
