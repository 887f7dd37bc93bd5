// The C shim over libsentencepiece's C++ API (text/spm.h). SentencePiece's
// Status objects and C++ exceptions stop here: every function returns an nmt
// status with a one-line message.
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>
extern "C" {
#include "text/spm.h"
#include "text/spm_check.h"
}

namespace spm = sentencepiece;

struct nmt_spm {
  nmt_segmenter seg; // first member: the segmenter's functions get the model back by a cast
  spm::SentencePieceProcessor *sp;
};

static int oom() { return nmt_fail(NMT_EIO, "out of memory"); }

// SentencePiece's message without the place in its sources and the failed
// check that its CHECKs put first ("./src/x.cc(660) [a == b] Vocabulary ..."),
// or with check, the check when nothing follows it.
static std::string why(const spm::util::Status &st, bool check) {
  std::string m = st.message();
  size_t open = m.find(" ["), at = m.rfind("] ");
  if (open == std::string::npos || at == std::string::npos || at < open) return m;
  if (at + 2 < m.size()) return m.substr(at + 2);
  return check ? "failed: " + m.substr(open + 2, at - open - 2) : "";
}

static int add(nmt_strbuf *out, const std::string &s) {
  return nmt_strbuf_add(out, s.data(), s.size()) ? oom() : NMT_OK;
}

// The space-separated words of toks[0..n), runs of spaces as one.
static std::vector<std::string> words(const char *toks, size_t n) {
  std::vector<std::string> w;
  for (size_t i = 0; i < n;) {
    while (i < n && toks[i] == ' ') i++;
    size_t j = i;
    while (j < n && toks[j] != ' ') j++;
    if (j > i) w.emplace_back(toks + i, j - i);
    i = j;
  }
  return w;
}

extern "C" int nmt_spm_encode(const nmt_spm *s, const char *line, size_t n, bool ids, nmt_strbuf *out) {
  try {
    std::string text;
    spm::util::Status st;
    if (ids) {
      std::vector<int> v;
      st = s->sp->Encode(absl::string_view(line, n), &v);
      for (size_t i = 0; i < v.size(); i++) text += (i ? " " : "") + std::to_string(v[i]);
    } else {
      std::vector<std::string> v;
      st = s->sp->Encode(absl::string_view(line, n), &v);
      for (size_t i = 0; i < v.size(); i++) text += (i ? " " : "") + v[i];
    }
    if (!st.ok()) return nmt_fail(NMT_EINPUT, "SentencePiece: %s", why(st, true).c_str());
    return add(out, text);
  } catch (const std::bad_alloc &) {
    return oom();
  }
}

// An id of the model's in decimal, or -1.
static int parse_id(const std::string &w, int size) {
  char *end;
  long id = strtol(w.c_str(), &end, 10);
  return *end || w[0] == '-' || w[0] == '+' || id >= size ? -1 : (int)id;
}

extern "C" int nmt_spm_decode(const nmt_spm *s, const char *toks, size_t n, bool ids, nmt_strbuf *out) {
  try {
    std::vector<std::string> w = words(toks, n);
    std::string text;
    spm::util::Status st;
    if (ids) {
      std::vector<int> v;
      for (const std::string &x : w) {
        int id = parse_id(x, s->sp->GetPieceSize());
        if (id < 0)
          return nmt_fail(NMT_EINPUT, "'%s' is not an id of the model (0 to %d)", x.c_str(),
                          s->sp->GetPieceSize() - 1);
        v.push_back(id);
      }
      st = s->sp->Decode(v, &text);
    } else {
      st = s->sp->Decode(w, &text);
    }
    if (!st.ok()) return nmt_fail(NMT_EINPUT, "SentencePiece: %s", why(st, true).c_str());
    return add(out, text);
  } catch (const std::bad_alloc &) {
    return oom();
  }
}

static int seg_split(const nmt_segmenter *g, const char *line, size_t n, nmt_strbuf *out) {
  return nmt_spm_encode(reinterpret_cast<const nmt_spm *>(g), line, n, false, out);
}

static int seg_join(const nmt_segmenter *g, const char *toks, size_t n, nmt_strbuf *out) {
  return nmt_spm_decode(reinterpret_cast<const nmt_spm *>(g), toks, n, false, out);
}

static void seg_free(nmt_segmenter *g) { nmt_spm_free(reinterpret_cast<nmt_spm *>(g)); }

extern "C" nmt_segmenter *nmt_spm_segmenter(nmt_spm *s) { return &s->seg; }

extern "C" int nmt_spm_load(nmt_spm **out, const void *bytes, size_t len, const char *name) {
  // the library trusts the file: a damaged one would crash it (text/spm_check.h)
  int checked = nmt_spm_check(bytes, len, name);
  if (checked) return checked;
  nmt_spm *s = new (std::nothrow) nmt_spm{{seg_split, seg_join, seg_free}, nullptr};
  if (!s || !(s->sp = new (std::nothrow) spm::SentencePieceProcessor)) {
    delete s;
    return oom();
  }
  try {
    spm::util::Status st = s->sp->LoadFromSerializedProto(absl::string_view((const char *)bytes, len));
    // a protobuf parses from many byte strings: a model has pieces
    if (st.ok() && s->sp->GetPieceSize() == 0) st = spm::util::Status(spm::util::StatusCode::kDataLoss, "no pieces");
    if (!st.ok()) {
      std::string m = why(st, false);
      nmt_spm_free(s);
      return nmt_fail(NMT_EINPUT, "%s: not a SentencePiece model%s%s%s", name, m.empty() ? "" : " (",
                      m.c_str(), m.empty() ? "" : ")");
    }
  } catch (const std::bad_alloc &) {
    nmt_spm_free(s);
    return oom();
  } catch (const std::exception &e) { // darts-clone's, building a trie of the pieces
    nmt_spm_free(s);
    return nmt_fail(NMT_EINPUT, "%s: not a SentencePiece model (%s)", name, e.what());
  }
  *out = s;
  return NMT_OK;
}

extern "C" void nmt_spm_free(nmt_spm *s) {
  if (!s) return;
  delete s->sp;
  delete s;
}

extern "C" int nmt_spm_size(const nmt_spm *s) { return s->sp->GetPieceSize(); }

extern "C" const char *nmt_spm_piece(const nmt_spm *s, int id, float *score, bool *special) {
  if (score) *score = s->sp->GetScore(id);
  if (special) *special = s->sp->IsUnknown(id) || s->sp->IsControl(id);
  return s->sp->IdToPiece(id).c_str();
}

// ---- training ----

// The caller's sentences as SentencePiece reads them; a reader's error ends
// them and is kept, so that its own message (file and line) reaches the user.
class sentences : public spm::SentenceIterator {
 public:
  explicit sentences(const nmt_spm_train_opts *o) : o_(o) { Next(); }
  bool done() const override { return k_ != 1; }
  void Next() override {
    const char *line;
    size_t n;
    k_ = o_->next(o_->ctx, &line, &n);
    if (k_ == 1) value_.assign(line, n);
  }
  const std::string &value() const override { return value_; }
  spm::util::Status status() const override {
    return k_ < 0 ? spm::util::Status(spm::util::StatusCode::kInternal, nmt_errmsg()) : spm::util::Status();
  }
  bool failed() const { return k_ < 0; }

 private:
  const nmt_spm_train_opts *o_;
  std::string value_;
  int k_ = 0;
};

extern "C" int nmt_spm_train(const nmt_spm_train_opts *o, char **bytes, size_t *len) {
  try {
    char coverage[32];
    snprintf(coverage, sizeof coverage, "%.17g", o->character_coverage);
    // No model_prefix: the model comes back in memory. minloglevel 1: the
    // trainer's progress lines stay off stderr.
    std::unordered_map<std::string, std::string> args = {
        {"vocab_size", std::to_string(o->vocab_size)}, {"model_type", o->model_type},
        {"character_coverage", coverage}, {"num_threads", std::to_string(o->threads)},
        {"minloglevel", "1"}};
    sentences in(o);
    std::string model;
    spm::util::Status st = spm::SentencePieceTrainer::Train(args, &in, &model);
    if (in.failed()) return nmt_errcode();
    if (!st.ok()) {
      bool usage = st.code() == spm::util::StatusCode::kInvalidArgument;
      return nmt_fail(usage ? NMT_EUSAGE : NMT_EINPUT, "SentencePiece: %s", why(st, true).c_str());
    }
    if (!(*bytes = (char *)malloc(model.size() ? model.size() : 1))) return oom();
    memcpy(*bytes, model.data(), model.size());
    *len = model.size();
    return NMT_OK;
  } catch (const std::bad_alloc &) {
    return oom();
  }
}
