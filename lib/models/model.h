/* A translation model as the tools see it: the configuration, both
 * vocabularies, optional BPE codes or SentencePiece models and the
 * parameters, saved to and loaded from one model file (io/model_file.h,
 * docs/formats.md). */
#ifndef NMT_MODELS_MODEL_H
#define NMT_MODELS_MODEL_H
#include "io/model_file.h"
#include "models/net.h"
#include "base/strbuf.h"
#include "text/segment.h"
#include "text/vocab.h"


/* The Moses tokenizer settings the training text was prepared with
 * (nmt-train --src-lang ...): nmt-decode --raw tokenizes the source with them
 * and detokenizes its output with tgt_lang. None when src_lang is empty. */
typedef struct {
  char src_lang[16], tgt_lang[16];
  bool aggressive; /* -a */
  bool escape;     /* XML escaping (tokenizer.perl's default; --no-escape clears it) */
  bool normalize;  /* punctuation normalised before tokenizing */
} nmt_tok_settings;

typedef struct {
  nmt_model_opts opts; /* as created (names normalised to the option rows' lists) */
  nmt_net net;      /* layout and config */
  nn_params params;
  nmt_vocab *src, *tgt;
  char *bpe_codes;   /* NULL when none */
  size_t bpe_len;
  nmt_tok_settings tok;
  /* How it was trained (NULL: not recorded): "origin" (version=, commit=, command=
   * lines) and "traincfg" (nmt-train's options as YAML, for nmt-train -c). */
  char *origin, *train_config;
  /* The source's [0] and target's [1] SentencePiece models (nmt-train --vocabs
   * X.model Y.model), the bytes of their .model files: NULL for a model
   * without. The vocabularies are their pieces. */
  char *spm[2];
  size_t spm_len[2];
  /* They, opened by nmt_model_open_spm; freed with the model. */
  nmt_segmenter *seg[2];
} nmt_model;

/* A fresh model (weights initialised from seed) over the two vocabularies,
 * which it takes over. NMT_OK or NMT_EUSAGE naming the bad option. */
int nmt_model_create(nmt_model *m, const nmt_model_opts *o, nmt_vocab *src, nmt_vocab *tgt,
                     uint64_t seed);
void nmt_model_free(nmt_model *m);
/* Fill t from nmt-train's flags: both languages or neither (no settings);
 * the tokenizer flags need them. NMT_OK or NMT_EUSAGE. */
int nmt_tok_settings_set(nmt_tok_settings *t, const char *src_lang, const char *tgt_lang,
                         bool aggressive, bool escape, bool normalize);

/* Open the model's SentencePiece models as m->seg (none: nothing to do);
 * `path` names the model in messages. In models/model_spm.c, apart, so that
 * only the programs that call it link SentencePiece. */
int nmt_model_open_spm(nmt_model *m, const char *path);

/* Add the model's sections (config, vocabularies, codes, tensor table,
 * weights) to f; `scratch` holds the text sections until f is written. */
int nmt_model_sections(const nmt_model *m, nmt_model_file *f, nmt_strbuf scratch[3]);
/* Append "key=WANT (checkpoint: HAVE)" to out, comma separated, for each
 * option whose value differs between have and want and for which given(ctx,
 * row) says the caller set it (a flag on the command line). */
int nmt_model_opts_conflicts(const nmt_model_opts *have, const nmt_model_opts *want,
                             bool (*given)(const void *ctx, const nmt_option *r), const void *ctx,
                             nmt_strbuf *out);
/* Save the model alone, atomically. */
int nmt_model_save(const nmt_model *m, const char *path);
/* Build a model from a read file (a model or a checkpoint); `path` names it
 * in messages. training: with the gradient and Adam buffers, else the weights
 * alone (params.g/m/v NULL). */
int nmt_model_from_file(nmt_model *m, const nmt_model_file *f, const char *path, bool training);
/* Read a model for inference (decoding, scoring, averaging): the weights alone. */
int nmt_model_load(nmt_model *m, const char *path);
/* Fill dst, a buffer laid out as m->params (weights or an Adam moment), from
 * section `tag` of f through its tensor table. */
int nmt_model_load_buffer(nmt_model *m, float *dst, const nmt_model_file *f, const char *tag,
                          const char *path);

#endif
