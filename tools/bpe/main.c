/* nmt-bpe: subword-nmt compatible BPE. "nmt-bpe SUBCOMMAND ...", or
 * "nmt-bpe -c CODES" (apply_bpe.py's spelling) or "nmt-bpe -m MODEL" to apply. */
#include "bpe_tool.h"
#include "base/cli.h"
#include "tool.h"
#include <stdio.h>
#include <string.h>

static void usage(FILE *f) {
  fprintf(f,
          "Usage: " PROG " learn|learn-joint|apply|vocab [options] [FILE...]\n"
          "Byte-pair encoding with the output of subword-nmt.\n\n"
          "  learn        learn merge codes (learn_bpe.py)\n"
          "  learn-joint  learn codes on several files and write each one's vocabulary\n"
          "               (learn_joint_bpe_and_vocab.py)\n"
          "  apply        segment text with codes (apply_bpe.py), or write token ids\n"
          "               (--ids VOCAB); also " PROG " -c CODES or " PROG " -m MODEL\n"
          "  vocab        count the words of a text (get_vocab.py)\n"
          "subword-nmt's names work too: learn-bpe, learn-joint-bpe-and-vocab, apply-bpe,\n"
          "get-vocab, with its flags (-i/--input, -o/--output, -s/--symbols, --min-frequency,\n"
          "-c/--codes, --separator, --merges, --vocabulary, --glossaries, --write-vocabulary, ...).\n\n"
          "'" PROG " SUBCOMMAND --help' tells more.\n\n"
          "Example:\n"
          "  " PROG " learn -s 8000 -o codes train.tok.fr train.tok.en\n"
          "  " PROG " apply -c codes < test.tok.en > test.bpe.en\n");
}

/* Each subcommand, also under subword-nmt's name (`subword-nmt learn-bpe ...`), whose
 * main flags the subcommand takes. */
/* subword-nmt's names too */
static const tool_cmd cmds[] = {{"learn", "learn-bpe", cmd_learn},
                                {"learn-joint", "learn-joint-bpe-and-vocab", cmd_learn_joint},
                                {"apply", "apply-bpe", cmd_apply},
                                {"vocab", "get-vocab", cmd_vocab}};

int main(int argc, char **argv) {
  tool_init(PROG);
  /* options first: apply (nmt-bpe -c codes < in) */
  return tool_subcommand(PROG, cmds, 4, cmd_apply, usage, argc, argv);
}
