/* A SentencePiece model checked before the library sees it; see text/spm_check.h.
 * The protobuf wire format is walked with every length bounded by its message,
 * and each precompiled_charsmap is searched the way the normalizer will: a
 * little-endian uint32 trie size, the Darts-clone double array (uint32 units),
 * then the blob of NUL-terminated strings that the trie's values point into. */
#include "text/spm_check.h"
#include "base/err.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const uint8_t *file; /* offsets in messages count from its first byte */
  const char *name;
} check;

static int bad(const check *c, const uint8_t *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(const check *c, const uint8_t *at, const char *fmt, ...) {
  char why[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return nmt_fail(NMT_EINPUT, "%s: not a SentencePiece model (byte %zu: %s)", c->name, (size_t)(at - c->file), why);
}

/* ---- the protobuf wire format ---- */

typedef struct {
  const uint8_t *p, *end;
} pb_msg;

typedef struct {
  uint64_t num;
  int type;             /* wire type: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32 */
  const uint8_t *at;    /* where its tag starts */
  pb_msg bytes;         /* wire type 2: its bytes */
} pb_field;

static bool pb_varint(pb_msg *m, uint64_t *v) {
  *v = 0;
  for (int shift = 0; shift < 64 && m->p < m->end; shift += 7) {
    uint8_t b = *m->p++;
    *v |= (uint64_t)(b & 0x7f) << shift;
    if (b < 0x80) return true;
  }
  return false;
}

/* Skip n bytes of m; false when fewer are left. */
static bool pb_skip(pb_msg *m, uint64_t n) {
  if (n > (uint64_t)(m->end - m->p)) return false;
  m->p += n;
  return true;
}

/* m's next field: 1, 0 at its end, -1 when it is malformed (message set). */
static int pb_next(const check *c, pb_msg *m, pb_field *f) {
  if (m->p == m->end) return 0;
  uint64_t tag, n, value;
  f->at = m->p;
  if (!pb_varint(m, &tag)) return bad(c, f->at, "a field's tag runs past its message"), -1;
  f->num = tag >> 3, f->type = (int)(tag & 7);
  if (!f->num || f->num > 0x1fffffff) return bad(c, f->at, "a field numbered %llu", (unsigned long long)f->num), -1;
  bool ok;
  switch (f->type) {
  case 0: ok = pb_varint(m, &value); break;
  case 1: ok = pb_skip(m, 8); break;
  case 5: ok = pb_skip(m, 4); break;
  case 2:
    ok = pb_varint(m, &n);
    f->bytes.p = m->p;
    ok = ok && pb_skip(m, n);
    f->bytes.end = m->p;
    break;
  default: return bad(c, f->at, "field %llu has wire type %d", (unsigned long long)f->num, f->type), -1;
  }
  return ok ? 1 : (bad(c, f->at, "field %llu runs past its message", (unsigned long long)f->num), -1);
}

/* The status a walk of fields ends with: k is pb_next's last answer. */
static int pb_end(int k) { return k < 0 ? NMT_EINPUT : NMT_OK; }

/* Every field of m well framed. */
static int pb_walk(const check *c, pb_msg m) {
  pb_field f;
  int k;
  while ((k = pb_next(c, &m, &f)) == 1) {}
  return pb_end(k);
}

/* ---- the normalizer's Darts-clone trie (third_party/darts_clone/darts.h) ---- */

static uint32_t le32(const uint8_t *p) { return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static bool unit_has_leaf(uint32_t u) { return u >> 8 & 1; }
static uint32_t unit_value(uint32_t u) { return u & 0x7fffffff; }
/* A leaf's (value) unit has the top bit: it never equals a byte. */
static uint32_t unit_label(uint32_t u) { return u & (0x80000000u | 0xff); }
/* The extension bit (9) scales the offset by 256. */
static uint32_t unit_offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

/* A search state: the index a prefix search XORs its next byte into. */
typedef struct {
  uint32_t base, next; /* the state; its next child to follow (in kids) */
  uint8_t leaf, most;  /* whether the edge into it matched; the most matches below it yet */
} trie_frame;

typedef struct {
  const check *c;
  const char *spec;         /* "normalizer" or "denormalizer", for messages */
  const uint8_t *trie, *at; /* the units; the charsmap, whose place the messages give */
  uint32_t units;
  size_t strings, nul_end;  /* the blob's size; one past its last NUL (0: none) */
  uint32_t *first, *kids;   /* the children of state b: the units kids[first[b]..first[b + 1]) */
  uint8_t *state, *most;    /* per state: 0 unseen, 1 being searched, 2 done; done: its most matches */
  trie_frame *stack;
  uint32_t depth;
} trie_walk;

static uint32_t unit_at(const trie_walk *w, uint32_t i) { return le32(w->trie + 4 * (size_t)i); }

/* The state that reaches unit i, with the byte of its label (none: units). */
static uint32_t trie_parent(const trie_walk *w, uint32_t i) {
  uint32_t label = unit_label(unit_at(w, i));
  return label <= 0xff && (i ^ label) < w->units ? i ^ label : w->units;
}

/* Which units each state reaches: so a state's children are found without
 * trying its 256 bytes. */
static void trie_index(trie_walk *w) {
  for (uint32_t i = 0; i < w->units; i++) w->first[trie_parent(w, i) + 1]++;
  for (uint32_t b = 0; b < w->units; b++) w->first[b + 1] += w->first[b];
  for (uint32_t i = 0; i < w->units; i++)
    if (trie_parent(w, i) < w->units) w->kids[w->first[trie_parent(w, i)]++] = i;
  for (uint32_t b = w->units; b > 0; b--) w->first[b] = w->first[b - 1];
  w->first[0] = 0;
}

static int too_many(const trie_walk *w) {
  return bad(w->c, w->at, "the %s's trie has more than %d matches on one path", w->spec, NMT_SPM_MAX_MATCHES);
}

/* Enter a state: the search reads the units of its 256 bytes, all in the trie. */
static int trie_enter(trie_walk *w, uint32_t base, bool leaf) {
  if ((base | 0xff) >= w->units)
    return bad(w->c, w->at, "the %s's trie points at unit %u of its %u", w->spec, base | 0xff, w->units);
  if (w->state[base] == 1) return bad(w->c, w->at, "the %s's trie has a cycle through unit %u", w->spec, base);
  w->state[base] = 1;
  w->stack[w->depth++] = (trie_frame){base, w->first[base], leaf, 0};
  return NMT_OK;
}

/* Leave the top state; its matches count in its parent's. */
static int trie_leave(trie_walk *w) {
  trie_frame *f = &w->stack[--w->depth];
  w->state[f->base] = 2, w->most[f->base] = f->most;
  if (!w->depth) return NMT_OK;
  trie_frame *up = &w->stack[w->depth - 1];
  if (f->leaf + f->most > NMT_SPM_MAX_MATCHES) return too_many(w);
  if (f->leaf + f->most > up->most) up->most = (uint8_t)(f->leaf + f->most);
  return NMT_OK;
}

/* The edge from the top state, f, to its child unit i, as commonPrefixSearch
 * follows it: the next state, and with has_leaf the value unit there, a string
 * of the blob. */
static int trie_edge(trie_walk *w, trie_frame *f, uint32_t i) {
  uint32_t u = unit_at(w, i), child = i ^ unit_offset(u);
  bool leaf = unit_has_leaf(u);
  if (child >= w->units)
    return bad(w->c, w->at, "the %s's trie points at unit %u of its %u", w->spec, child, w->units);
  if (leaf && unit_value(unit_at(w, child)) >= w->nul_end)
    return bad(w->c, w->at, "the %s's trie points at byte %u of its %zu-byte strings, past their last NUL", w->spec,
               unit_value(unit_at(w, child)), w->strings);
  if (w->state[child] != 2) return trie_enter(w, child, leaf);
  if (leaf + w->most[child] > NMT_SPM_MAX_MATCHES) return too_many(w);
  if (leaf + w->most[child] > f->most) f->most = (uint8_t)(leaf + w->most[child]);
  return NMT_OK;
}

/* Every state a prefix search can reach, depth first from the root's. */
static int trie_search(trie_walk *w) {
  trie_index(w);
  int st = trie_enter(w, unit_offset(unit_at(w, 0)), false);
  while (!st && w->depth) {
    trie_frame *f = &w->stack[w->depth - 1];
    st = f->next == w->first[f->base + 1] ? trie_leave(w) : trie_edge(w, f, w->kids[f->next++]);
  }
  return st;
}

/* A precompiled_charsmap (normalizer.cc's DecodePrecompiledCharsMap, then the
 * searches of NormalizePrefix). Empty: no normalization. */
static int check_charsmap(const check *c, const char *spec, pb_msg m) {
  size_t len = (size_t)(m.end - m.p);
  if (!len) return NMT_OK;
  if (len <= 4) return bad(c, m.p, "the %s's charsmap has %zu bytes", spec, len);
  size_t size = le32(m.p);
  if (size > len - 4 || size % 4 || size < 4)
    return bad(c, m.p, "the %s's trie has %zu bytes in a %zu-byte charsmap", spec, size, len);
  trie_walk w = {.c = c, .spec = spec, .trie = m.p + 4, .at = m.p, .units = (uint32_t)(size / 4), .strings = len - 4 - size};
  const uint8_t *strings = w.trie + size;
  for (size_t i = w.strings; i > 0 && !w.nul_end; i--)
    if (!strings[i - 1]) w.nul_end = i;
  w.first = calloc((size_t)w.units + 2, sizeof *w.first);
  w.kids = malloc((size_t)w.units * sizeof *w.kids);
  w.state = calloc(w.units, 2);
  w.stack = malloc((size_t)w.units * sizeof *w.stack);
  int st = w.first && w.kids && w.state && w.stack ? NMT_OK : nmt_fail(NMT_EIO, "out of memory");
  w.most = w.state + w.units;
  if (!st) st = trie_search(&w);
  free(w.first), free(w.kids), free(w.state), free(w.stack);
  return st;
}

/* ---- the model ---- */

/* A NormalizerSpec (normalizer_spec or denormalizer_spec): its charsmap, field 2. */
static int check_normalizer(const check *c, const char *spec, pb_msg m) {
  pb_field f;
  int k = 0, st = NMT_OK;
  while (!st && (k = pb_next(c, &m, &f)) == 1)
    if (f.num == 2 && f.type == 2) st = check_charsmap(c, spec, f.bytes);
  return st ? st : pb_end(k);
}

/* A SentencePiece: its piece (field 1) becomes a NUL-terminated key of the
 * library's tries, so a NUL in it cuts it short (an empty key aborts). */
static int check_piece(const check *c, pb_msg m) {
  pb_field f;
  int k;
  while ((k = pb_next(c, &m, &f)) == 1)
    if (f.num == 1 && f.type == 2 && memchr(f.bytes.p, 0, (size_t)(f.bytes.end - f.bytes.p)))
      return bad(c, f.at, "a piece has a NUL byte");
  return pb_end(k);
}

int nmt_spm_check(const void *bytes, size_t len, const char *name) {
  check c = {bytes, name};
  pb_msg m = {bytes, (const uint8_t *)bytes + len};
  pb_field f;
  int k = 0, st = NMT_OK;
  /* ModelProto: pieces 1, trainer_spec 2, normalizer_spec 3, self_test_data 4, denormalizer_spec 5 */
  while (!st && (k = pb_next(&c, &m, &f)) == 1) {
    if (f.type != 2 || f.num > 5) continue;
    st = f.num == 1 ? check_piece(&c, f.bytes)
         : f.num == 3               ? check_normalizer(&c, "normalizer", f.bytes)
         : f.num == 5               ? check_normalizer(&c, "denormalizer", f.bytes)
                                    : pb_walk(&c, f.bytes);
  }
  return st ? st : pb_end(k);
}
