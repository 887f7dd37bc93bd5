/* nmt-spm: SentencePiece (spm_train, spm_encode, spm_decode) through Debian's
 * libsentencepiece. "nmt-spm SUBCOMMAND ...". */
#include "spm_tool.h"
#include "base/err.h"
#include "tool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
  fprintf(f,
          "Usage: " PROG " train|encode|decode [options] [FILE...]\n"
          "SentencePiece segmentation with the output of spm_train, spm_encode and spm_decode.\n\n"
          "  train   learn a model from raw text: PREFIX.model and PREFIX.vocab (spm_train)\n"
          "  encode  segment text into pieces or ids (spm_encode)\n"
          "  decode  join pieces or ids back into text (spm_decode)\n\n"
          "A model trained here is also nmt-train's vocabulary (--vocabs x.model y.model).\n"
          "'" PROG " SUBCOMMAND --help' tells more.\n\n"
          "Example:\n"
          "  " PROG " train --vocab-size 8000 --model-prefix fr train.fr\n"
          "  " PROG " encode -m fr.model < test.fr | " PROG " decode -m fr.model\n");
}

int spm_tool_inputs(nmt_strlist *inputs, const nmt_strlist *pos) {
  for (int i = 0; i < pos->n; i++) {
    const char **v = realloc(inputs->v, sizeof *v * (size_t)(inputs->n + 1));
    if (!v) return nmt_fail(NMT_EIO, "out of memory");
    inputs->v = v;
    inputs->v[inputs->n++] = pos->v[i];
  }
  return NMT_OK;
}

int main(int argc, char **argv) {
  tool_init(PROG);
  if (argc < 2) {
    usage(stderr);
    return 1;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "train")) return cmd_train(argc - 1, argv + 1);
  if (!strcmp(cmd, "encode")) return cmd_codec(argc - 1, argv + 1, false);
  if (!strcmp(cmd, "decode")) return cmd_codec(argc - 1, argv + 1, true);
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
    printf(PROG " %s\n", NMT_VERSION);
    return 0;
  }
  fprintf(stderr, PROG ": unknown subcommand '%s' (see --help)\n", cmd);
  return 1;
}
