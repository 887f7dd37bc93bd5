/* The demo's parallel corpus: the numbers 0-9999 written in French words and in
 * English words ("quatre-vingt-dix-sept" / "ninety-seven"). The numbers are
 * shuffled with a seed and split into test, valid and train, so the test
 * numbers are never seen in training: the model has to learn the composition.
 *
 *   numbers DIR [TRAIN [SEED]]  writes DIR/{train,valid,test}.{fr,en}
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NUMBERS = 10000, HELD_OUT = 200 };

static const char *fr_small[20] = {"zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept",
                                   "huit", "neuf", "dix", "onze", "douze", "treize", "quatorze",
                                   "quinze", "seize", "dix-sept", "dix-huit", "dix-neuf"};
static const char *fr_tens[10] = {"", "", "vingt", "trente", "quarante", "cinquante", "soixante",
                                  "soixante", "quatre-vingt", "quatre-vingt"};
static const char *en_small[20] = {"zero", "one", "two", "three", "four", "five", "six",
                                   "seven", "eight", "nine", "ten", "eleven", "twelve",
                                   "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                                   "eighteen", "nineteen"};
static const char *en_tens[10] = {"", "", "twenty", "thirty", "forty", "fifty", "sixty",
                                  "seventy", "eighty", "ninety"};

/* 1-99 in French: 70-79 and 90-99 count on from 60 and 80 (soixante-douze);
 * "et" before un and onze except after quatre-vingt; quatre-vingts alone. */
static void fr_below100(char *out, int n) {
  if (n < 20) {
    strcat(out, fr_small[n]);
    return;
  }
  int t = n / 10, rest = t == 7 || t == 9 ? n % 10 + 10 : n % 10;
  strcat(out, fr_tens[t]);
  if (rest == 0) strcat(out, t == 8 ? "s" : "");
  else {
    strcat(out, (rest == 1 || rest == 11) && t < 8 ? " et " : "-");
    strcat(out, fr_small[rest]);
  }
}

/* French: "mille", "deux mille", "cent", "deux cents" but "deux cent un". */
static void fr_words(char *out, int n) {
  *out = 0;
  if (n == 0) {
    strcat(out, fr_small[0]);
    return;
  }
  int k = n / 1000, h = n / 100 % 10, r = n % 100;
  if (k) {
    if (k > 1) strcat(out, fr_small[k]), strcat(out, " ");
    strcat(out, "mille");
  }
  if (h) {
    if (*out) strcat(out, " ");
    if (h > 1) strcat(out, fr_small[h]), strcat(out, " ");
    strcat(out, h > 1 && !r ? "cents" : "cent");
  }
  if (r) {
    if (*out) strcat(out, " ");
    fr_below100(out, r);
  }
}

/* American English without "and": "four thousand three hundred twenty-seven". */
static void en_words(char *out, int n) {
  *out = 0;
  if (n == 0) {
    strcat(out, en_small[0]);
    return;
  }
  int k = n / 1000, h = n / 100 % 10, r = n % 100;
  if (k) strcat(out, en_small[k]), strcat(out, " thousand");
  if (h) {
    if (*out) strcat(out, " ");
    strcat(out, en_small[h]), strcat(out, " hundred");
  }
  if (r) {
    if (*out) strcat(out, " ");
    if (r < 20) strcat(out, en_small[r]);
    else {
      strcat(out, en_tens[r / 10]);
      if (r % 10) strcat(out, "-"), strcat(out, en_small[r % 10]);
    }
  }
}

/* splitmix64: a few lines, and the same stream on every machine. */
static uint64_t next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static int write_split(const char *dir, const char *name, const int *numbers, int n) {
  char fr_path[4096], en_path[4096], fr[256], en[256];
  snprintf(fr_path, sizeof fr_path, "%s/%s.fr", dir, name);
  snprintf(en_path, sizeof en_path, "%s/%s.en", dir, name);
  FILE *f = fopen(fr_path, "w"), *e = fopen(en_path, "w");
  if (!f || !e) {
    fprintf(stderr, "numbers: cannot create %s\n", f ? en_path : fr_path);
    return 3;
  }
  for (int i = 0; i < n; i++) {
    fr_words(fr, numbers[i]), en_words(en, numbers[i]);
    fprintf(f, "%s\n", fr), fprintf(e, "%s\n", en);
  }
  int bad = ferror(f) | ferror(e);
  bad |= fclose(f) | fclose(e);
  if (bad) fprintf(stderr, "numbers: cannot write %s/%s.*\n", dir, name);
  return bad ? 3 : 0;
}

int main(int argc, char **argv) {
  int train = argc > 2 ? atoi(argv[2]) : NUMBERS - 2 * HELD_OUT;
  uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
  if (argc < 2 || argc > 4 || train < 1 || train > NUMBERS - 2 * HELD_OUT) {
    fprintf(stderr, "usage: numbers DIR [TRAIN (1-%d)] [SEED]\n"
                    "example: numbers build/demo 6000 1\n", NUMBERS - 2 * HELD_OUT);
    return 1;
  }
  static int numbers[NUMBERS];
  for (int i = 0; i < NUMBERS; i++) numbers[i] = i;
  for (int i = NUMBERS - 1; i > 0; i--) { /* Fisher-Yates */
    int j = (int)(next(&seed) % (uint64_t)(i + 1)), t = numbers[i];
    numbers[i] = numbers[j], numbers[j] = t;
  }
  int st = write_split(argv[1], "test", numbers, HELD_OUT);
  if (!st) st = write_split(argv[1], "valid", numbers + HELD_OUT, HELD_OUT);
  if (!st) st = write_split(argv[1], "train", numbers + 2 * HELD_OUT, train);
  return st;
}
