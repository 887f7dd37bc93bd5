/* The workers' parts of a batch by work (lib/train/balance.c). */
#include "test.h"
#include "train/balance.h"

enum { N = 40 };

/* N pairs of 1..30 source and 1..20 target tokens (ids only count here). */
static void lengths_corpus(nmt_corpus *c) {
  static int ids[30 * N];
  static long src_off[N + 1], tgt_off[N + 1];
  uint32_t r = 12345;
  for (int i = 0; i < N; i++) {
    r = r * 1103515245u + 12345u;
    src_off[i + 1] = src_off[i] + 1 + (r >> 16) % 30;
    r = r * 1103515245u + 12345u;
    tgt_off[i + 1] = tgt_off[i] + 1 + (r >> 16) % 20;
  }
  *c = (nmt_corpus){.src = ids, .tgt = ids, .src_off = src_off, .tgt_off = tgt_off, .n = N};
}

/* balance.h's work of pairs[a..b). */
static long work(const nmt_corpus *c, const long *pairs, int a, int b) {
  long src = 0, tgt = 0, words = 0;
  for (int i = a; i < b; i++) {
    long s = c->src_off[pairs[i] + 1] - c->src_off[pairs[i]] + 1, t = c->tgt_off[pairs[i] + 1] - c->tgt_off[pairs[i]] + 1;
    src = s > src ? s : src, tgt = t > tgt ? t : tgt, words += t;
  }
  return (b - a) * (src + tgt) + words;
}

/* The least most-work of any cut of pairs[from..n) into `parts` non-empty parts. */
static long best(const nmt_corpus *c, const long *pairs, int from, int n, int parts) {
  if (parts == 1) return work(c, pairs, from, n);
  long least = -1;
  for (int end = from + 1; end <= n - parts + 1; end++) {
    long w = work(c, pairs, from, end), rest = best(c, pairs, end, n, parts - 1);
    if (rest > w) w = rest;
    if (least < 0 || w < least) least = w;
  }
  return least;
}

/* Contiguous non-empty parts whose most work is the least any cut has; in the order
 * of a sorted window and in a shuffled one. */
TEST(train_balance_cut_is_the_best_cut) {
  nmt_corpus c;
  lengths_corpus(&c);
  long pairs[N];
  for (int order = 0; order < 2; order++) {
    for (int i = 0; i < N; i++) pairs[i] = order ? (i * 17) % N : i;
    for (int parts = 1; parts <= 3; parts++)
      for (int n = parts; n <= N; n += 13) {
        int cut[4];
        nmt_balance_cut(&c, pairs, n, parts, cut);
        long most = 0;
        CHECK(cut[0] == 0 && cut[parts] == n);
        for (int j = 0; j < parts; j++) {
          CHECK(cut[j + 1] > cut[j]);
          long w = work(&c, pairs, cut[j], cut[j + 1]);
          most = w > most ? w : most;
        }
        CHECK_INT(most, best(&c, pairs, 0, n, parts));
      }
  }
}

/* Fewer pairs than parts: one pair to each of the first parts, the rest empty. */
TEST(train_balance_cut_few_pairs) {
  nmt_corpus c;
  lengths_corpus(&c);
  long pairs[2] = {3, 7};
  int cut[5];
  nmt_balance_cut(&c, pairs, 2, 4, cut);
  CHECK(cut[0] == 0 && cut[1] == 1 && cut[2] == 2 && cut[3] == 2 && cut[4] == 2);
  nmt_balance_cut(&c, pairs, 0, 1, cut);
  CHECK(cut[0] == 0 && cut[1] == 0);
}
