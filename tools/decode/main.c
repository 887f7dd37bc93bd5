/* nmt-decode: translate BPE'd (or, with --raw, plain) text with a model from nmt-train. */
#include "base/cli.h"
#include "decode/ensemble.h"
#include "decode/stream.h"
#include "decode_tool.h"
#include "nn/device.h"
#include "nn/gemm_path.h"
#include "base/err.h"
#include "tool.h"
#include <cblas.h>
#include <errno.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

static const char *const SUMMARY =
    "Translate BPE'd text (or plain text with --raw), one output line per input line: empty in,\n"
    "empty out; a line with invalid UTF-8 gives a warning and an empty line. Unknown tokens\n"
    "become <unk>. The output is BPE-joined, then detokenized when the model records its\n"
    "tokenizer settings (nmt-train --src-lang/--tgt-lang); a model without them gives\n"
    "tokenized text. A model with SentencePiece vocabularies (nmt-train --vocabs X.model\n"
    "Y.model) reads pieces (nmt-spm encode), or raw text with --raw, and writes text\n"
    "decoded by its target's model. Exit 0 ok, 1 usage, 2 bad input or model, 3 I/O.";

/* Whether a row whose absence matters (--temperature, --seed: refused without
 * --output-sampling, so unset before the parse) was given; its default where not. */
static bool given(const nmt_cli *cli, const char *name, bool set) {
  const nmt_opt *o = nmt_cli_find(cli, name);
  if (!set) nmt_cli_set(o, o->dflt);
  return set;
}

static int parse_args(decode_args *a, int argc, char **argv) {
  *a = (decode_args){.input = "-", .output = "-"}; /* the others: the rows' defaults */
  const nmt_opt opts[] = {
#define OPTION(...) NMT_CLI_ROW(a, __VA_ARGS__)
#include "options.def"
#undef OPTION
      {0}};
  const nmt_cli cli = {PROG, "-m MODEL... [options] < in.bpe > out", SUMMARY,
                       "nmt-tokenize -l fr -a --no-escape < test.fr | nmt-bpe -c codes | " PROG " -m fr-en.bin -b 5 > test.en\n"
                       "  " PROG " -m fr-en.bin --raw < test.fr > test.en\n"
                       "  " PROG " -m a.bin b.bin --weights 0.6 0.4 < test.bpe.fr > test.en   (an ensemble: docs/decode.md)", opts,
                       false, nn_gemm_path_line};
  nmt_strlist pos = {0};
  int st = nmt_cli_defaults(&cli);
  a->temperature = 0, a->seed = -1; /* outside their bounds: not given */
  if (!st) st = nmt_cli_parse(&cli, argc, argv, &pos);
  bool temperature = given(&cli, "temperature", a->temperature > 0), seed = given(&cli, "seed", a->seed >= 0);
  if (!st && pos.n) st = nmt_fail(NMT_EUSAGE, "unexpected argument '%s' (see --help)", pos.v[0]);
  free(pos.v);
  if (!st && !a->models.n) st = nmt_fail(NMT_EUSAGE, "-m/--model FILE is required");
  if (!st && a->alignment) st = nmt_align_parse(a->alignment, &a->align_kind, &a->align_threshold);
  if (!st && a->shortlist.n) st = nmt_shortlist_parse(a->shortlist.v, a->shortlist.n, &a->shortlist_spec);
  if (!st) st = decode_sampling_parse(a, temperature, seed);
  if (!st && a->prefix && !strcmp(a->prefix, "-") && !strcmp(a->input, "-"))
    st = nmt_fail(NMT_EUSAGE, "--prefix - and the input are both stdin: give one of them as a file");
  if (!st && a->constraints && !strcmp(a->constraints, "-") && (!strcmp(a->input, "-") || (a->prefix && !strcmp(a->prefix, "-"))))
    st = nmt_fail(NMT_EUSAGE, "--constraints - and another input are both stdin: give one of them as a file");
  if (!st && a->constraints && a->sampling.kind != NMT_SAMPLE_NONE)
    st = nmt_fail(NMT_EUSAGE, "--constraints goes with beam search, not --output-sampling");
  if (!st && a->shard) st = decode_shard_parse(a);
  /* both number the lines from the stream's first: each shard's would restart at 0 */
  if (!st && a->shard && (a->n_best || a->attention_svg))
    st = nmt_fail(NMT_EUSAGE, "--shard with %s: its line numbers would restart in every shard; translate "
                  "the whole input in one process", a->n_best ? "--n-best" : "--attention-svg");
  if (!st && a->unk_dict && !a->replace_unk) st = nmt_fail(NMT_EUSAGE, "--unk-dict goes with --replace-unk");
  if (!st && strcmp(a->gemm_type, "float32") && strcmp(a->gemm_type, "int8"))
    st = nmt_fail(NMT_EUSAGE, "--gemm-type '%s': expected float32 or int8", a->gemm_type);
  return st;
}

/* The folder of --attention-svg, made when missing (not its parents). */
static int make_folder(const char *dir) {
  struct stat sb;
  if (mkdir(dir, 0777) && errno != EEXIST) return nmt_fail(NMT_EIO, "%s: cannot make the folder: %s", dir, strerror(errno));
  if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) return nmt_fail(NMT_EUSAGE, "%s: not a folder (--attention-svg)", dir);
  return NMT_OK;
}

enum { SHOWN_WARNINGS = 10 };

/* The first few warnings are shown, the rest counted. */
static void warn(void *ctx, const char *msg) {
  if ((*(long *)ctx)++ < SHOWN_WARNINGS) nmt_warn(PROG, "%s", msg);
}

/* a.input into a.output, committed only when every line is translated. */
static int translate(const nmt_ensemble *e, const nmt_unk_dict *dict, const nmt_lex *lex, const decode_args *a) {
  long warnings = 0;
  /* one host thread drives a GPU */
  int threads = e->on_device ? 1 : a->cpu_threads > 0 ? (int)a->cpu_threads : openblas_get_num_threads();
  nmt_decode_opts o = {.search = {(int)a->beam, (float)a->normalize, (float)a->max_length_factor, a->shortlist_spec.frequent},
                       .mini_batch = (int)a->mini_batch, .maxi_batch = (int)a->maxi_batch,
                       .max_length = (int)a->max_length, .threads = threads, .n_best = a->n_best,
                       .alignment = a->align_kind, .align_threshold = a->align_threshold, .replace_unk = a->replace_unk, .unk_dict = dict,
                       .attention_svg = a->attention_svg, .prefix_to_end = !a->shard_n, .seed = (uint64_t)a->seed,
                       .warn = warn, .warn_ctx = &warnings};
  o.search.sampling = a->sampling;
  o.search.lex = lex->ntgt ? lex : NULL;
  nmt_text *text = NULL;
  nmt_reader *r = NULL;
  nmt_writer *w = NULL;
  int st = nmt_text_new(&text, &e->model[0], a->models.v[0], a->raw, !a->no_postprocess);
  if (!st && a->prefix) st = nmt_reader_open(&o.prefix, a->prefix);
  bool *joins = NULL;
  if (!st && a->constraints) st = nmt_reader_open(&o.constraints, a->constraints);
  if (!st && a->constraints) st = nmt_terms_joins(e->model[0].tgt, &joins);
  o.search.joins = joins;
  if (!st) st = nmt_reader_open(&r, a->input);
  if (!st && a->shard_n) st = nmt_reader_shard(r, a->shard_k, a->shard_n);
  if (!st) st = nmt_writer_open(&w, a->output, a->zstd ? NMT_W_ZSTD : 0);
  if (!st) st = nmt_decode_stream(&e->dec, &e->model[0], text, &o, r, w);
  if (w) st = st ? (nmt_writer_abort(w), st) : nmt_writer_commit(w);
  if (!st && warnings > SHOWN_WARNINGS) nmt_warn(PROG, "%ld warnings in all, the first %d shown", warnings, SHOWN_WARNINGS);
  if (r) nmt_reader_close(r);
  if (o.prefix) nmt_reader_close(o.prefix);
  if (o.constraints) nmt_reader_close(o.constraints);
  free(joins);
  nmt_text_free(text);
  return st;
}

int main(int argc, char **argv) {
  tool_init(PROG);
  decode_args a;
  int st = parse_args(&a, argc, argv);
  if (st) nmt_die(PROG, st);
  char notice[256];
  const nn_backend *be;
  if ((st = nmt_device_use(a.device, &be, notice, sizeof notice))) nmt_die(PROG, st);
  if (be != &nn_cpu_backend && !strcmp(a.gemm_type, "int8"))
    nmt_die(PROG, nmt_fail(NMT_EUSAGE, "--gemm-type int8 runs on the CPU only; with --device %s use float32", a.device));
  if (be != &nn_cpu_backend && a.shortlist_spec.path)
    nmt_die(PROG, nmt_fail(NMT_EUSAGE, "--shortlist FILE runs on the CPU only (--device %s)", a.device));
  if (notice[0]) nmt_warn(PROG, "%s", notice);
  if (a.verbose && be == &nn_cpu_backend) fprintf(stderr, "%s: %s\n", PROG, nn_gemm_path_line());
  nmt_ensemble e;
  if ((st = nmt_ensemble_load(&e, a.models.v, a.models.n, a.weights.v, a.weights.n))) nmt_die(PROG, st);
  for (int i = 0; i < e.n && !st; i++) {
    if ((a.alignment || a.replace_unk || a.attention_svg) && e.model[i].net.cfg.no_attention)
      st = nmt_fail(NMT_EUSAGE, "%s: %s needs a model with attention", a.models.v[i],
                    a.alignment ? "--alignment" : a.replace_unk ? "--replace-unk" : "--attention-svg");
    if (!st && !strcmp(a.gemm_type, "int8")) st = nn_params_quantize(&e.model[i].params);
  }
  if (!st) st = nmt_ensemble_upload(&e, be);
  nmt_unk_dict *dict = NULL;
  if (!st && a.unk_dict) st = nmt_unk_dict_load(&dict, a.unk_dict);
  if (!st && a.attention_svg) st = make_folder(a.attention_svg);
  nmt_lex lex = {0};
  if (!st) st = nmt_shortlist_load(&a.shortlist_spec, e.model[0].src, e.model[0].tgt, &lex);
  if (!st) st = translate(&e, dict, &lex, &a);
  nmt_lex_free(&lex);
  nmt_unk_dict_free(dict);
  nmt_ensemble_free(&e);
  free(a.models.v), free(a.weights.v), free(a.output_sampling.v), free(a.shortlist.v);
  if (st) nmt_die(PROG, st);
  return 0;
}
