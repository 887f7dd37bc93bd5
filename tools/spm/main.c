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

static int cmd_encode(int argc, char **argv) { return cmd_codec(argc, argv, false); }
static int cmd_decode(int argc, char **argv) { return cmd_codec(argc, argv, true); }

int main(int argc, char **argv) {
  tool_init(PROG);
  static const tool_cmd cmds[] = {{"train", NULL, cmd_train}, {"encode", NULL, cmd_encode}, {"decode", NULL, cmd_decode}};
  return tool_subcommand(PROG, cmds, 3, NULL, usage, argc, argv);
}
