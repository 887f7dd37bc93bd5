/* nmt-score: the model's log-probability of each target sentence given its source
 * (forced decoding, as marian-scorer), one line per pair, or a corpus summary. */
#include "base/cli.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "base/utf8.h"
#include "decode/score.h"
#include "io/io.h"
#include "io/tsv.h"
#include "models/model.h"
#include "score_tool.h"
#include "text/tstream_ids.h"
#include "tool.h"
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the pairs come from: two line-aligned files (BPE'd text or id streams,
 * `nmt-bpe apply --ids`), or a TSV of two fields. */
typedef struct {
  nmt_id_reader *src, *tgt;
  nmt_tsv *tsv;
} pair_input;

/* A pair's ids, the buffers reused batch after batch. */
typedef struct {
  int *src, *tgt;
  int src_n, tgt_n, src_cap, tgt_cap;
} pair_ids;

static const char *const summaries[] = {"ce-sum", "ce-mean", "ce-mean-words", "perplexity"};

static int parse_args(score_args *a, int argc, char **argv) {
  *a = (score_args){.output = "-", .mini_batch = 64, .feature = "Score"};
  const nmt_opt opts[] = {
      {"model", 'm', NMT_OPT_LIST, &a->models, "FILE", "model or checkpoint from nmt-train (required); several: an ensemble (SRC TGT then before -m or after --)",
       .once = true},
      {"weights", 0, NMT_OPT_LIST, &a->weights, "W", "an ensemble's weights, one per model, relative (equal)", .once = true},
      {"tsv", 0, NMT_OPT_STR, &a->tsv, "FILE", "pairs as SRC<TAB>TGT lines (- for stdin) instead of SRC TGT files"},
      {"output", 'o', NMT_OPT_STR, &a->output, "FILE", "scores (stdout)"},
      {"zstd", 'z', NMT_OPT_FLAG, &a->zstd, NULL, "zstd-compress the output"},
      {"normalize", 'n', NMT_OPT_FLAG, &a->normalize, NULL, "divide each score by its target length (</s> counted)"},
      {"word-scores", 0, NMT_OPT_FLAG, &a->word_scores, NULL, "after each score, \" ||| \" and every target token's"},
      {"alignment", 0, NMT_OPT_STR, &a->alignment, "hard|soft|T",
       "then \" ||| \" and the pair's alignment from the attention, as nmt-decode --alignment's (nmt-lex "
       "counts them into a lexical shortlist)", .implicit = "hard"},
      {"summary", 0, NMT_OPT_STR, &a->summary, "TYPE", "one line for the corpus: ce-sum, ce-mean (per pair), ce-mean-words or perplexity"},
      {"n-best", 0, NMT_OPT_STR, &a->nbest, "FILE", "rescore this n-best list of SRC (nmt-decode --n-best --no-postprocess): the model's score added as a feature"},
      {"n-best-feature", 0, NMT_OPT_STR, &a->feature, "NAME", "the added feature's name (Score)"},
      {"mini-batch", 0, NMT_OPT_INT, &a->mini_batch, "N", "pairs scored together (64; up to 10000)", .min = 1, .max = 10000},
      {"cpu-threads", 0, NMT_OPT_INT, &a->cpu_threads, "N", "BLAS threads (the cores)", .min = 1, .max = 256},
      {0}};
  const nmt_cli cli = {PROG, "-m MODEL... SRC TGT [options]   or   -m MODEL... --tsv PAIRS   or   -m MODEL... SRC --n-best NBEST",
                       "Score each target sentence given its source with a model (BPE'd text, or id streams from\n"
                       "nmt-bpe apply --ids, as nmt-train reads them):\n"
                       "the log-probability, </s> included, one line per pair in order. Several models score as an\n"
                       "ensemble, as nmt-decode's. Exit 0 ok, 1 usage, 2 bad input or model, 3 I/O.",
                       PROG " -m fr-en.bin test.bpe.fr test.bpe.en > scores\n"
                       "  paste src.bpe tgt.bpe | " PROG " -m fr-en.bin --tsv - --summary perplexity\n"
                       "  " PROG " -m a.bin b.bin --weights 2 1 test.bpe.fr test.bpe.en",
                       opts, false};
  int st = nmt_cli_parse(&cli, argc, argv, &a->files);
  if (!st && !a->models.n) st = nmt_fail(NMT_EUSAGE, "-m/--model FILE is required");
  /* -m takes every argument up to the next option. With input files to read and
   * none given apart (before -m, or after --), its first is the model and the
   * others the files, the one-model form -m MODEL SRC TGT; an ensemble's files
   * go apart: -m a.bin b.bin -- SRC TGT. */
  if (!st && !a->files.n && !a->tsv && a->models.n > 1) {
    const char **v = realloc(a->files.v, sizeof *v * (size_t)(a->models.n - 1));
    if (!v) return nmt_fail(NMT_EIO, "out of memory");
    a->files.v = v;
    for (int i = 1; i < a->models.n; i++) v[a->files.n++] = a->models.v[i];
    a->models.n = 1;
  }
  if (!st && a->tsv && a->nbest) st = nmt_fail(NMT_EUSAGE, "--tsv and --n-best: one input at a time");
  if (!st && (a->tsv ? a->files.n != 0 : a->nbest ? a->files.n != 1 : a->files.n != 2))
    st = nmt_fail(NMT_EUSAGE, a->tsv    ? "--tsv takes the pairs: no SRC TGT files beside it"
                              : a->nbest ? "--n-best rescores the hypotheses of one SRC file"
                                         : "give SRC and TGT files, or --tsv PAIRS");
  if (!st && a->nbest && (a->summary || a->word_scores || a->normalize))
    st = nmt_fail(NMT_EUSAGE, "--n-best writes the n-best list: no --summary, --word-scores or --normalize");
  if (!st && (!a->feature[0] || strpbrk(a->feature, " |=")))
    st = nmt_fail(NMT_EUSAGE, "--n-best-feature '%s': a name without spaces, '|' or '='", a->feature);
  int k = 0;
  while (!st && a->summary && k < 4 && strcmp(a->summary, summaries[k])) k++;
  if (!st && a->summary && k == 4)
    st = nmt_fail(NMT_EUSAGE, "--summary must be ce-sum, ce-mean, ce-mean-words or perplexity (got '%s')", a->summary);
  if (!st && a->summary && (a->word_scores || a->normalize || a->alignment))
    st = nmt_fail(NMT_EUSAGE, "--summary prints one line: no --word-scores, --normalize or --alignment");
  if (!st && a->nbest && a->alignment) st = nmt_fail(NMT_EUSAGE, "--n-best writes the n-best list: no --alignment");
  if (!st && a->alignment) st = nmt_align_parse(a->alignment, &a->align_kind, &a->align_threshold);
  return st;
}

/* The ids of one side of a pair; the text must be UTF-8. */
static int encode(const nmt_vocab *v, const char *text, size_t len, const char *name, long lineno, int **ids,
                  int *n, int *cap) {
  if (nmt_utf8_check_line(text, len, name, lineno)) return NMT_EINPUT;
  *n = 0; /* nmt_vocab_encode appends */
  return nmt_vocab_encode(v, text, len, ids, n, cap);
}

/* ids[0..n) into *to (the reader's buffer lasts until its next call). */
static int keep(const int *ids, int n, int **to, int *to_n, int *cap) {
  if (n > *cap) {
    int *p = realloc(*to, sizeof *p * (size_t)n);
    if (!p) return nmt_fail(NMT_EIO, "out of memory");
    *to = p, *cap = n;
  }
  if (n) memcpy(*to, ids, sizeof *ids * (size_t)n);
  *to_n = n;
  return NMT_OK;
}

/* The next pair into p: 1, 0 at the end of both sides, or -1 with the error set. */
static int next_pair(pair_input *in, const nmt_model *m, pair_ids *p) {
  if (in->tsv) {
    nmt_tsv_row row;
    int r = nmt_tsv_next(in->tsv, &row);
    if (r <= 0) return r;
    const char *name = nmt_tsv_name(in->tsv);
    if (row.invalid_utf8) return nmt_fail(NMT_EINPUT, "%s:%ld: invalid UTF-8", name, row.line), -1;
    if (row.n != 2) return nmt_fail(NMT_EINPUT, "%s:%ld: %d fields, expected SRC<TAB>TGT", name, row.line, row.n), -1;
    if (encode(m->src, row.field[0], row.len[0], name, row.line, &p->src, &p->src_n, &p->src_cap) ||
        encode(m->tgt, row.field[1], row.len[1], name, row.line, &p->tgt, &p->tgt_n, &p->tgt_cap))
      return -1;
    return 1;
  }
  const int *s, *t;
  int sn, tn;
  int rs = nmt_id_reader_next(in->src, &s, &sn);
  if (rs < 0 || (rs && keep(s, sn, &p->src, &p->src_n, &p->src_cap))) return -1;
  int rt = nmt_id_reader_next(in->tgt, &t, &tn);
  if (rt < 0) return -1;
  if (rs != rt) {
    nmt_id_reader *longer = rs ? in->src : in->tgt, *shorter = rs ? in->tgt : in->src;
    return nmt_fail(NMT_EINPUT, "%s has more lines than %s (%ld)", nmt_id_reader_name(longer),
                    nmt_id_reader_name(shorter), nmt_id_reader_count(shorter)), -1;
  }
  if (rt && keep(t, tn, &p->tgt, &p->tgt_n, &p->tgt_cap)) return -1;
  return rs;
}

/* One output line: the score (normalised when asked), then the word scores, then the
 * alignment of att (n target tokens, src_n source tokens). */
static int write_score(nmt_writer *w, const score_args *a, double lp, int n, const float *word, int src_n,
                       const float *att, nmt_strbuf *line) {
  char num[48];
  line->len = 0;
  int st = nmt_strbuf_add(line, num, (size_t)snprintf(num, sizeof num, "%.6f", a->normalize ? lp / (n + 1) : lp));
  for (int t = 0; !st && a->word_scores && t <= n; t++)
    st = nmt_strbuf_add(line, num, (size_t)snprintf(num, sizeof num, "%s%.6f", t ? " " : " ||| ", word[t]));
  if (!st && att) st = nmt_strbuf_addf(line, " ||| ");
  if (!st && att) st = nmt_attention_text(line, att, n, src_n, a->align_kind, a->align_threshold);
  return st ? st : nmt_writer_line(w, line->s, line->len);
}

/* Room for a pair's scores per token and attention, as asked. */
static int pair_room(const score_args *a, int src_n, int tgt_n, float **word, float **att) {
  free(*word), free(*att);
  *word = a->word_scores ? malloc(sizeof(float) * (size_t)(tgt_n + 1)) : NULL;
  *att = a->alignment ? malloc(sizeof(float) * ((size_t)tgt_n * (src_n + 1) + 1)) : NULL;
  return (a->word_scores && !*word) || (a->alignment && !*att) ? nmt_fail(NMT_EIO, "out of memory") : NMT_OK;
}

static int score_all(const nmt_ensemble *e, const score_args *a, pair_input *in, nmt_writer *w) {
  const nmt_model *m = &e->model[0]; /* its vocabularies read the text */
  int B = (int)a->mini_batch, st = NMT_OK, n = 0;
  pair_ids *pairs = calloc((size_t)B, sizeof *pairs);
  const int **src = malloc(sizeof *src * (size_t)B), **tgt = malloc(sizeof *tgt * (size_t)B);
  int *src_n = malloc(sizeof *src_n * (size_t)B), *tgt_n = malloc(sizeof *tgt_n * (size_t)B);
  double *lp = malloc(sizeof *lp * (size_t)B), ce = 0;
  float **word = calloc((size_t)B, sizeof *word), **att = calloc((size_t)B, sizeof *att);
  long npairs = 0, words = 0;
  nmt_dec d = {0};
  nmt_strbuf line = {0};
  if (!pairs || !src || !tgt || !src_n || !tgt_n || !lp || !word || !att) st = nmt_fail(NMT_EIO, "out of memory");
  for (bool end = false; !st && !end;) {
    for (n = 0; n < B; n++) {
      int r = next_pair(in, m, &pairs[n]);
      if (r < 0) st = nmt_errcode();
      if (r <= 0) {
        end = true;
        break;
      }
      src[n] = pairs[n].src, src_n[n] = pairs[n].src_n, tgt[n] = pairs[n].tgt, tgt_n[n] = pairs[n].tgt_n;
      st = pair_room(a, src_n[n], tgt_n[n], &word[n], &att[n]);
    }
    if (st || !n) break;
    st = nmt_score_aligned(&d, &e->dec, src, src_n, tgt, tgt_n, n, lp, a->word_scores ? word : NULL,
                           a->alignment ? att : NULL);
    for (int i = 0; i < n && !st; i++) {
      ce -= lp[i], words += tgt_n[i] + 1, npairs++;
      if (!a->summary) st = write_score(w, a, lp[i], tgt_n[i], word[i], src_n[i], att[i], &line);
    }
  }
  if (!st && a->summary) {
    double v = !strcmp(a->summary, "ce-sum") ? ce : !strcmp(a->summary, "ce-mean") ? ce / (npairs ? npairs : 1)
             : !strcmp(a->summary, "ce-mean-words") ? ce / (words ? words : 1) : exp(ce / (words ? words : 1));
    char num[48];
    st = nmt_writer_line(w, num, (size_t)snprintf(num, sizeof num, "%.6f", v));
  }
  for (int i = 0; pairs && i < B; i++)
    free(pairs[i].src), free(pairs[i].tgt), free(word ? word[i] : NULL), free(att ? att[i] : NULL);
  free(pairs), free(src), free(tgt), free(src_n), free(tgt_n), free(lp), free(word), free(att), free(line.s);
  nmt_dec_free(&d);
  return st;
}

int main(int argc, char **argv) {
  tool_init(PROG);
  score_args a;
  int st = parse_args(&a, argc, argv);
  if (st) nmt_die(PROG, st);
  if (a.cpu_threads) openblas_set_num_threads((int)a.cpu_threads);
  nmt_ensemble m;
  if ((st = nmt_ensemble_load(&m, a.models.v, a.models.n, a.weights.v, a.weights.n))) nmt_die(PROG, st);
  pair_input in = {0};
  nmt_writer *w = NULL;
  nmt_reader *nb_src = NULL, *nb = NULL; /* --n-best: the sources and the list, text */
  if (a.tsv) st = nmt_tsv_open(&in.tsv, a.tsv, NMT_TSV);
  else if (a.nbest) st = nmt_reader_open(&nb_src, a.files.v[0]), st = st ? st : nmt_reader_open(&nb, a.nbest);
  else if (!(st = nmt_id_reader_open(&in.src, a.files.v[0], m.model[0].src)))
    st = nmt_id_reader_open(&in.tgt, a.files.v[1], m.model[0].tgt);
  if (!st) st = nmt_writer_open(&w, a.output, a.zstd ? NMT_W_ZSTD : 0);
  if (!st) st = a.nbest ? score_nbest(&m, &a, nb_src, nb, w) : score_all(&m, &a, &in, w);
  if (w) st = st ? (nmt_writer_abort(w), st) : nmt_writer_commit(w);
  nmt_id_reader_close(in.src), nmt_id_reader_close(in.tgt);
  if (nb_src) nmt_reader_close(nb_src);
  if (nb) nmt_reader_close(nb);
  if (in.tsv) nmt_tsv_close(in.tsv);
  nmt_ensemble_free(&m);
  free(a.files.v), free(a.models.v), free(a.weights.v);
  if (st) nmt_die(PROG, st);
  return 0;
}
