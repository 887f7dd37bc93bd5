/* A model family behind one interface. nmt-train calls `forward`; nmt-decode's
 * search, validation BLEU and --alignment call `encode` once per batch of
 * sentences and `step` once per target position, each through nmt_net_* below
 * (models/net_calls.c), which checks what the family is given. Each family lives
 * in its own lib/models/<family>.c, builds from models/parts.h and is a row of
 * models/families.def, the family table (docs/models.md).
 *
 * Conventions every family keeps:
 * - the output layer is the views "out.W" (O,Vt) and "out.b" (1,Vt): `step`
 *   returns its input (n,O) and the decoder applies it (a shortlist reads
 *   only some columns); with tied embeddings the target embedding (Vt,O)
 *   stands for out.W, transposed (models/parts.h: nmt_net_add_output, nmt_net_logits);
 * - the loss is the summed label-smoothed cross-entropy over target tokens
 *   (nn_xent), *ntokens the tokens counted; extra training-only losses (a
 *   reconstructor) are added into it;
 * - decoding is the inference twin of forward: the same ops on the same
 *   weights, so forced-decoding scores equal the training loss (the tests
 *   check this for every family). */
#ifndef NMT_MODELS_NET_H
#define NMT_MODELS_NET_H
#include "nn/cells/luong_attn.h"
#include "nn/params.h"
#include "models/batch.h"
#include "models/options.h"
#include "nn/tape.h"

enum { NMT_MAX_DIM = 65536, NMT_MAX_LAYERS = 8, NMT_NET_MAX_VIEWS = 256, NMT_NET_MAX_MEM = 8, NMT_NET_MAX_STATE = 40 };

/* Marian's --enc-type names. */
enum nmt_enc_type { NMT_ENC_UNI, NMT_ENC_BI, NMT_ENC_BI_UNI };
/* --enc-cell / --dec-cell. */
enum nmt_cell { NMT_CELL_LSTM, NMT_CELL_GRU, NMT_CELL_ATR, NMT_CELL_SRU, NMT_CELL_SRNMT, NMT_CELL_RHN };

typedef struct nmt_family nmt_family;

/* The whole configuration of a model: the options as created (`opt`, from the
 * table of models/options.def) and what the engine derives from them. Fields a
 * family does not use keep their defaults. */
typedef struct {
  nmt_model_opts opt;    /* the options; the flags below are read from here (opt.skip, ...) */
  const nmt_family *family;
  int src_vocab, tgt_vocab;
  int emb, hidden;
  int enc_layers, dec_layers;
  enum nmt_enc_type enc_type;
  bool no_attention;     /* the encoder-decoder baseline: attn and input_feed unused */
  nn_attn_cfg attn;
  int attn_size;         /* A: MLP and local-p hidden size */
  bool input_feed;
  float dropout;
  float label_smoothing;
  int pad;               /* padding id in both vocabularies: skipped in the loss */
  /* The families of docs/models.md beyond Luong's. */
  enum nmt_cell enc_cell, dec_cell;
  int enc_cell_depth, dec_cell_depth; /* transitions per step: RHN's recurrence depth L (0 counts as 1) */
} nmt_net_cfg;

/* A model's configuration and where its parameters live: indices of views in
 * the nn_params buffer (-1: unused). Luong's are named; other families index
 * `slot` with an enum of their own. */
typedef struct nmt_net {
  nmt_net_cfg cfg;
  union {
    struct nmt_luong_views {
      int src_emb, tgt_emb;                /* (V,E) */
      /* Encoder layer l, or its forward direction (sizes H/2 for H) when bidirectional. */
      int enc_wx[NMT_MAX_LAYERS];           /* (E or H, 4H) */
      int enc_wh[NMT_MAX_LAYERS];           /* (H,4H) */
      int enc_b[NMT_MAX_LAYERS];            /* (1,4H) */
      int enc_rwx[NMT_MAX_LAYERS];          /* backward direction: enc.l<k>r.* */
      int enc_rwh[NMT_MAX_LAYERS];
      int enc_rb[NMT_MAX_LAYERS];
      int dec_wx[NMT_MAX_LAYERS];           /* (E or H, 4H) */
      int dec_wh[NMT_MAX_LAYERS];           /* (H,4H); layer 0 with input feeding (2H,4H) */
      int dec_b[NMT_MAX_LAYERS];            /* (1,4H) */
      int attn_wa, attn_wq, attn_v, attn_wp, attn_vp, attn_wc; /* see nn_attn_w */
      int out_w, out_b;                    /* (H,Vt), (1,Vt) */
    } luong;
    int slot[NMT_NET_MAX_VIEWS];
  };
} nmt_net;

/* What `encode` gives the decoder for B sentences. */
typedef struct {
  int nmem;
  nn_tensor *mem[NMT_NET_MAX_MEM];     /* (S*B, F_i) time-major: annotations, attention keys */
  int nstate;
  nn_tensor *state[NMT_NET_MAX_STATE]; /* (B, D_i): the decoder's initial state, and anything
                                         else carried per hypothesis (input feed, a fixed
                                         context); reordered with the beam */
} nmt_enc_out;

/* The decoder's view of one step over R = sentences × beam rows. */
typedef struct {
  nn_tensor *const *mem; /* the encoder's memories repeated per row: (S*R, F_i), row s*R + r;
                            NMT_NET_MAX_MEM entries, NULL after those encode gave */
  /* mask, len and rows live in the backend's memory, as the ops take them */
  const float *mask;     /* (R, S): 1 real source position, 0 padding */
  const int *len;        /* (R) source lengths */
  int S, R;
  const int *rows;       /* the n rows (ascending) whose step is needed; NULL: all R. The
                            others' state is never read again (dead beam rows). */
  int n;
} nmt_dec_ctx;

struct nmt_family {
  const char *name; /* --type */
  /* Check m->cfg (an invalid combination fails with a one-line message naming
   * the conflicting flags) and declare the parameter views into p, recording
   * their indices in m. */
  int (*layout)(nmt_net *m, nn_params *p);
  /* The training loss of a batch (1,1), summed over target tokens; NULL with
   * the graph failed. */
  nn_tensor *(*forward)(nn_graph *g, const nmt_net *m, nn_params *p, const nmt_batch *b,
                        long *ntokens);
  /* Encode B sentences (src (S*B) time-major, src_len (B): host memory;
   * src_mask (S*B) 1/0: the backend's). A family's training forward gets its
   * batch in host memory (nmt_batch_upload copies it for the ops). */
  int (*encode)(nn_graph *g, const nmt_net *m, nn_params *p, const int *src, const int *src_len,
                int S, int B, const float *src_mask, nmt_enc_out *out);
  /* One decoder step for ctx->n rows: prev (n) the previous target ids (the backend's memory);
   * state[i] (n, D_i) in the order encode gave them, replaced by the new
   * states. Returns the output layer's input (n, O). *align, when not NULL,
   * gets the attention weights (n, S) (NULL without attention). */
  nn_tensor *(*step)(nn_graph *g, const nmt_net *m, nn_params *p, const int *prev,
                     nn_tensor **state, const nmt_dec_ctx *ctx, nn_tensor **align);
  /* --attention when none is given (NULL: general). */
  const char *default_attention;
  /* --enc-cell and --dec-cell when not given. */
  enum nmt_cell default_cell;
  /* Whether --input-feed means anything: the family has an attentional
   * vector h~ to feed to the next step (luong, rhn). */
  bool feeds_input;
};

/* The calls through m's family (models/net_calls.c). */
int nmt_net_layout(nmt_net *m, const nmt_net_cfg *cfg, nn_params *p);
nn_tensor *nmt_net_forward(nn_graph *g, const nmt_net *m, nn_params *p, const nmt_batch *b,
                          long *ntokens);
/* Inference: the family's encode and step (see nmt_family). */
int nmt_net_encode(nn_graph *g, const nmt_net *m, nn_params *p, const int *src, const int *src_len, int S,
                  int B, const float *src_mask, nmt_enc_out *out);
nn_tensor *nmt_net_step(nn_graph *g, const nmt_net *m, nn_params *p, const int *prev, nn_tensor **state,
                       const nmt_dec_ctx *ctx, nn_tensor **align);

/* The view `index` as a graph tensor, NULL for -1. */
nn_tensor *nmt_net_param(nn_graph *g, nn_params *p, int index);
/* Whether the output matrix is the target embedding (--tied-embeddings or -all). */
bool nmt_net_tied_output(const nmt_net_cfg *c);
/* The target embedding's view name ("dec.emb", or "emb" for --tied-embeddings-all):
 * the output matrix when tied. */
const char *nmt_net_tgt_emb_name(const nmt_net_cfg *c);
/* The output matrix's view for the decoder, -1 when none; *transposed when it
 * is the tied target embedding (Vt, O). */
int nmt_net_output_view(const nmt_net_cfg *c, const nn_params *p, bool *transposed);

#endif
