/* nmt-train's options: Marian's names where Marian has the option. */
#include "err.h"
#include "train_tool.h"
#include <stdlib.h>

int train_parse_args(train_args *a, int argc, char **argv) {
  *a = (train_args){.attention = "general", .enc_type = "bidirectional", .dim_emb = 256, .dim_rnn = 512, .enc_depth = 1,
                    .dec_depth = 1, .window = 10, .mini_batch = 64, .maxi_batch = 100,
                    .max_length = 100, .valid_freq = 1000, .log_freq = 100, .early_stopping = 10,
                    .seed = 1234, .learn_rate = 1e-3, .lr_decay = 0.5, .clip_norm = 5};
  const nmt_opt opts[] = {
      {"train-sets", 't', NMT_OPT_LIST, &a->train, "SRC TGT", "parallel BPE'd training text (zstd allowed)"},
      {"valid-sets", 0, NMT_OPT_LIST, &a->valid, "SRC TGT", "validation text: perplexity and greedy BLEU"},
      {"model", 'm', NMT_OPT_STR, &a->model, "FILE", "best model; MODEL.ckpt holds the last state (required)"},
      {"vocabs", 'v', NMT_OPT_LIST, &a->vocabs, "SRC TGT", "vocabulary files (built from the training data)"},
      {"bpe-codes", 0, NMT_OPT_STR, &a->bpe_codes, "CODES", "BPE codes to embed in the model"},
      {"dim-emb", 0, NMT_OPT_INT, &a->dim_emb, "N", "embedding size (256)"},
      {"dim-rnn", 0, NMT_OPT_INT, &a->dim_rnn, "N", "LSTM size (512; a bidirectional layer: N/2 per direction)"},
      {"enc-type", 0, NMT_OPT_STR, &a->enc_type, "TYPE", "bidirectional (every layer; default), bi-unidirectional (the first) or unidirectional"},
      {"enc-depth", 0, NMT_OPT_INT, &a->enc_depth, "N", "encoder layers (1)"},
      {"dec-depth", 0, NMT_OPT_INT, &a->dec_depth, "N", "decoder layers (1); those beyond --enc-depth start at zero"},
      {"reverse-source", 0, NMT_OPT_FLAG, &a->reverse_source, NULL, "read each source sentence backwards"},
      {"attention", 0, NMT_OPT_STR, &a->attention, "TYPE", "dot, general, mlp or none (general; none: no input feeding)"},
      {"local-attention", 0, NMT_OPT_FLAG, &a->local, NULL, "local-p attention instead of global"},
      {"attention-window", 0, NMT_OPT_INT, &a->window, "D", "local-p half-width (10)"},
      {"no-input-feed", 0, NMT_OPT_FLAG, &a->no_input_feed, NULL, "do not feed h~ to the next step"},
      {"mini-batch", 0, NMT_OPT_INT, &a->mini_batch, "N", "sentences per batch (64)"},
      {"mini-batch-words", 0, NMT_OPT_INT, &a->mini_batch_words, "N", "padded target tokens per batch (no limit)"},
      {"maxi-batch", 0, NMT_OPT_INT, &a->maxi_batch, "N", "batches sorted by length together (100)"},
      {"max-length", 0, NMT_OPT_INT, &a->max_length, "N", "drop pairs with a side over N tokens (100; 0: none)"},
      {"after-epochs", 'e', NMT_OPT_INT, &a->after_epochs, "N", "stop after N epochs (0: no limit)"},
      {"after-batches", 0, NMT_OPT_INT, &a->after_batches, "N", "stop after N steps (0: no limit)"},
      {"valid-freq", 0, NMT_OPT_INT, &a->valid_freq, "N", "validate every N steps (1000)"},
      {"save-freq", 0, NMT_OPT_INT, &a->save_freq, "N", "checkpoint every N steps (--valid-freq)"},
      {"early-stopping", 0, NMT_OPT_INT, &a->early_stopping, "N", "stop after N validations without improvement (10)"},
      {"learn-rate", 'l', NMT_OPT_DOUBLE, &a->learn_rate, "LR", "Adam learning rate (0.001)"},
      {"lr-decay", 0, NMT_OPT_DOUBLE, &a->lr_decay, "F", "multiply the rate by F when validation stalls (0.5)"},
      {"clip-norm", 0, NMT_OPT_DOUBLE, &a->clip_norm, "N", "clip the gradient norm to N (5; 0: off)"},
      {"dropout", 0, NMT_OPT_DOUBLE, &a->dropout, "P", "dropout on embeddings, between layers, on h~ (0)"},
      {"label-smoothing", 0, NMT_OPT_DOUBLE, &a->label_smoothing, "E", "label smoothing (0)"},
      {"seed", 0, NMT_OPT_INT, &a->seed, "N", "seed of init, shuffling and dropout (1234)"},
      {"cpu-threads", 0, NMT_OPT_INT, &a->cpu_threads, "N", "BLAS threads (OpenBLAS's default)"},
      {"log-freq", 0, NMT_OPT_INT, &a->log_freq, "N", "log every N steps (100)"},
      {"metrics", 0, NMT_OPT_STR, &a->metrics, "FILE", "CSV: step,epoch,tokens,loss,ppl,lr,grad_norm,tokens_per_s,elapsed_s"},
      {"resume", 0, NMT_OPT_FLAG, &a->resume, NULL, "continue from MODEL.ckpt when it exists"},
      {0}};
  const nmt_cli cli = {
      PROG, "--train-sets SRC TGT -m MODEL [options]",
      "Train an LSTM attention model (Luong 2015) on BPE'd parallel text. Exit 0 done, 1 usage,\n"
      "2 bad input or divergence, 3 I/O; SIGINT/SIGTERM save MODEL.ckpt and exit 128+signal.",
      PROG " --train-sets train.bpe.fr train.bpe.en --valid-sets val.bpe.fr val.bpe.en -m fr-en.bin\n"
           "           --dim-emb 256 --dim-rnn 512 --enc-type bidirectional --dropout 0.3 --after-epochs 10\n"
           "           --valid-freq 500",
      opts, false};
  nmt_strlist pos = {0};
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (!st && pos.n) st = nmt_fail(NMT_EUSAGE, "unexpected argument '%s' (see --help)", pos.v[0]);
  free(pos.v);
  return st;
}
