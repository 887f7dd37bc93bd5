/* nmt-serve: an HTTP/JSON translation server; the model (or an ensemble) is
 * loaded once, and the sentences of concurrent requests are decoded together
 * (batcher.c). */
#include "base/cli.h"
#include "base/err.h"
#include "decode/stream.h"
#include "nn/backend.h"
#include "text/bpe.h"
#include "serve_tool.h"
#include "tool.h"
#include <arpa/inet.h>
#include <cblas.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The exit status of a SIGTERM whose drain --drain-timeout cut short. */
enum { SERVE_EXIT_DRAIN_CUT = 4 };

static const char *const SUMMARY =
    "Serve translations over HTTP: POST /translate {\"text\": \"a sentence\"} or {\"text\": [\"a\", \"b\"]}\n"
    "(optional \"beam_size\", \"n_best\", \"alignment\": true, \"soft\" or \"svg\"; \"prefix\" in the shape of\n"
    "\"text\"; \"sampling\": \"full\" or \"topk K\", with \"temperature\" and \"seed\") answers {\"translation\": ...}\n"
    "in the same shape; plain text is tokenized and BPE'd as nmt-decode --raw does. GET /health answers 200,\n"
    "GET /ready 200 while the queue takes more (503 when full), GET /metrics Prometheus's text;\n"
    "GET / is a page to try the model in a browser; ws://.../translate is marian-server's\n"
    "websocket protocol (a message of lines in, their translations out).\n"
    "A bad request gets a 4xx and {\"error\": \"...\"} (docs/serve.md lists every limit). SIGTERM\n"
    "finishes the requests in flight and exits 0; those still in flight after --drain-timeout\n"
    "get 503, and the exit status is 4. SIGHUP reopens --access-log's file and reads --api-keys' again.\n"
    "LibreTranslate's clients: POST /translate {\"q\", \"source\", \"target\"} answers {\"translatedText\"};\n"
    "GET /languages; GET /openapi.json describes every route. --cache-bytes keeps answers for reuse.\n"
    "Exit 1 usage, 2 bad model, 3 I/O.";

static int parse_args(serve_args *a, int argc, char **argv) {
  *a = (serve_args){.bpe_cache_bytes = NMT_BPE_CACHE_BYTES}; /* the others: the rows' defaults */
  const nmt_opt opts[] = {
#define OPTION(...) NMT_CLI_ROW(a, __VA_ARGS__)
#include "options.def"
#undef OPTION
      {0}};
  const nmt_cli cli = {PROG, "-m MODEL [options]", SUMMARY,
                       PROG " -m fr-en.bin --port 8080 &\n"
                       "  curl -s localhost:8080/translate -d '{\"text\": \"Bonjour le monde !\"}'\n"
                       "  " PROG " -m a.bin b.bin --weights 0.6 0.4   (an ensemble, as nmt-decode's)",
                       opts, false, NULL, "4 a drain cut short: SIGTERM's --drain-timeout ended requests still translating"};
  nmt_strlist pos = {0};
  int st = nmt_cli_defaults(&cli);
  if (!st) st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (!st && pos.n) st = nmt_fail(NMT_EUSAGE, "unexpected argument '%s' (see --help)", pos.v[0]);
  free(pos.v);
  if (!st && !a->models.n) st = nmt_fail(NMT_EUSAGE, "-m/--model FILE is required");
  if (!st && a->beam > a->max_beam) st = nmt_fail(NMT_EUSAGE, "--beam-size %ld is over --max-beam-size %ld", a->beam, a->max_beam);
  struct in_addr ip;
  if (!st && inet_pton(AF_INET, a->host, &ip) != 1)
    st = nmt_fail(NMT_EUSAGE, "--host '%s': expected an IPv4 address such as 127.0.0.1", a->host);
  if (!st && strcmp(a->gemm_type, "float32") && strcmp(a->gemm_type, "int8"))
    st = nmt_fail(NMT_EUSAGE, "--gemm-type '%s': expected float32 or int8", a->gemm_type);
  if (!st && a->rate_limit && (!a->api_keys || serve_keys_rate(a->rate_limit) < 0))
    st = nmt_fail(NMT_EUSAGE, a->api_keys ? "--rate-limit '%s': expected N/min, N > 0, such as 60/min"
                                          : "--rate-limit '%s' is each API key's: it needs --api-keys", a->rate_limit);
  return st;
}

/* SIGTERM and SIGINT write 'T' here, SIGHUP 'H'; main waits on it. A pipe, because the
 * signal may land in any thread (OpenBLAS starts its own before main). */
static int signal_pipe[2];

static void on_signal(int sig) {
  int saved = errno;
  (void)!write(signal_pipe[1], sig == SIGHUP ? "H" : "T", 1);
  errno = saved;
}

/* Until SIGTERM or SIGINT; each SIGHUP meanwhile reopens the access log (log rotation)
 * and reads the API keys again. poll, which a signal always interrupts, then read: a read
 * restarted (SA_RESTART) would hold off a handler that a sanitizer runs when the call returns. */
static void wait_for_stop(serve_access_log *log, serve_keys *keys) {
  char c = 0;
  while (c != 'T') {
    struct pollfd p = {.fd = signal_pipe[0], .events = POLLIN};
    if (poll(&p, 1, -1) < 1 || read(signal_pipe[0], &c, 1) < 1) c = 0; /* EINTR */
    if (c == 'H' && log && serve_access_log_reopen(log)) nmt_warn(PROG, "SIGHUP: %s", nmt_errmsg());
    if (c == 'H' && keys && serve_keys_reload(keys)) nmt_warn(PROG, "SIGHUP: %s (the old keys stay)", nmt_errmsg());
  }
}

/* The languages of GET /languages and LibreTranslate's "source" and "target": the model's
 * (its tokenizer's settings), else --src-lang and --tgt-lang; both given must agree. */
static int languages(serve_args *a, const nmt_model *m) {
  const char *rec[2] = {m->tok.src_lang, m->tok.tgt_lang}, **opt[2] = {&a->src_lang, &a->tgt_lang};
  static const char *const name[2] = {"--src-lang", "--tgt-lang"};
  for (int i = 0; i < 2; i++) {
    if (*opt[i] && rec[i][0] && strcmp(*opt[i], rec[i]))
      return nmt_fail(NMT_EUSAGE, "%s %s: the model records %s", name[i], *opt[i], rec[i]);
    if (!*opt[i] && rec[i][0]) *opt[i] = rec[i];
  }
  return NMT_OK;
}

int main(int argc, char **argv) {
  tool_init(PROG);
  serve_args a;
  int st = parse_args(&a, argc, argv);
  if (st) nmt_die(PROG, st);
  if (!a.threads) a.threads = openblas_get_num_threads() < NMT_MAX_DECODE_THREADS ? openblas_get_num_threads()
                                                                                 : NMT_MAX_DECODE_THREADS;
  if (pipe2(signal_pipe, O_CLOEXEC)) nmt_die(PROG, nmt_fail_errno(NMT_EIO, "pipe"));
  struct sigaction sa = {.sa_handler = on_signal}, hup = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
  sigemptyset(&sa.sa_mask), sigemptyset(&hup.sa_mask);
  sigaction(SIGTERM, &sa, NULL), sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &hup, NULL); /* routine (log rotation): the calls it lands in go on */
  signal(SIGPIPE, SIG_IGN); /* a client that hangs up is that connection's problem only */
  nmt_ensemble e;
  if ((st = nmt_ensemble_load(&e, a.models.v, a.models.n, a.weights.v, a.weights.n))) nmt_die(PROG, st);
  const nmt_model *m = &e.model[0]; /* it reads the requests' text */
  if ((st = languages(&a, m))) nmt_die(PROG, st);
  if (!a.bpe_input && (!m->tok.src_lang[0] || !m->bpe_codes))
    nmt_die(PROG, nmt_fail(NMT_EUSAGE, "%s: plain-text requests need a model with tokenizer settings and BPE codes "
                                       "(nmt-train --src-lang, --tgt-lang, --bpe-codes); BPE'd requests: --bpe-input",
                           a.models.v[0]));
  for (int i = 0; i < e.n && !strcmp(a.gemm_type, "int8"); i++)
    if ((st = nn_params_quantize(&e.model[i].params))) nmt_die(PROG, st);
  if ((st = nmt_ensemble_upload(&e, &nn_cpu_backend))) nmt_die(PROG, st);
  if (a.shortlist.n && ((st = nmt_shortlist_parse(a.shortlist.v, a.shortlist.n, &a.shortlist_spec)) ||
                        (st = nmt_shortlist_load(&a.shortlist_spec, m->src, m->tgt, &a.lex))))
    nmt_die(PROG, st);
  serve_metrics *metrics;
  serve_access_log *log = NULL;
  serve_keys *keys = NULL;
  serve_cache *cache = NULL;
  serve_batcher *b;
  serve_http *h;
  int port;
  if ((st = serve_metrics_new(&metrics)) || (a.access_log && (st = serve_access_log_open(&log, a.access_log))) ||
      (a.api_keys && (st = serve_keys_open(&keys, a.api_keys, a.rate_limit ? serve_keys_rate(a.rate_limit) : 0))))
    nmt_die(PROG, st);
  if ((a.cache_bytes && (st = serve_cache_new(&cache, (size_t)a.cache_bytes))) ||
      (st = serve_batcher_start(&b, &e, &a, metrics, cache)))
    nmt_die(PROG, st);
  if ((st = serve_http_start(&h, b, &e, &a, metrics, log, keys, &port))) nmt_die(PROG, st);
  fprintf(stderr, "%s: listening on http://%s:%d (%ld decoding threads)\n", PROG, a.host, port, a.threads);
  wait_for_stop(log, keys);
  fprintf(stderr, "%s: stopping: finishing the requests in flight\n", PROG);
  bool cut = serve_http_stop(h);
  if (cut) nmt_warn(PROG, "requests still in flight after --drain-timeout %g s were answered 503", a.drain_timeout);
  serve_batcher_stop(b);
  serve_access_log_close(log), serve_metrics_free(metrics), serve_keys_free(keys), serve_cache_free(cache);
  nmt_ensemble_free(&e);
  nmt_lex_free(&a.lex);
  free(a.models.v), free(a.weights.v), free(a.shortlist.v);
  return cut ? SERVE_EXIT_DRAIN_CUT : 0;
}
