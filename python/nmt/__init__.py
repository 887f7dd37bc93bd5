"""nmt: translate, score, tokenize and BPE with libnmt.so (include/nmt.h), through ctypes.

    import nmt
    t = nmt.Translator("m.bin", beam_size=5)
    t.translate(["Bonjour le monde !"])          # ['Hello world!']

Pure Python: no compiler at install. The library is the one installed beside this
package (make install), or $NMT_LIBRARY, or libnmt.so.0 on the loader's path.
ctypes releases the GIL during every call into the library, so several Python
threads may translate with one Translator at once (the library decodes each call
with its own state; the weights are shared). Errors are nmt.Error with the
library's one-line message. docs/api.md.
"""
import ctypes
import os

__all__ = ["Error", "Translator", "Tokenizer", "BPE", "version"]


class Error(Exception):
    """A failure of the library: its status (1 usage, 2 input, 3 I/O, 4 device) and message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def _library_path():
    if os.environ.get("NMT_LIBRARY"):
        return os.environ["NMT_LIBRARY"]
    try:
        from nmt._installed import LIBRARY  # written by make install
        return LIBRARY
    except ImportError:
        return "libnmt.so.0"


_lib = ctypes.CDLL(_library_path())
_P = ctypes.c_void_p
_S = ctypes.c_char_p
_I = ctypes.c_int


class _Options(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("threads", _I), ("beam_size", _I), ("normalize", ctypes.c_double),
                ("max_length_factor", ctypes.c_double), ("max_length", _I), ("mini_batch", _I), ("n_best", _I),
                ("int8", _I), ("shortlist", _I), ("raw", _I), ("postprocess", _I), ("alignment", _S),
                ("device", _S)]


def _sig(name, res, *args):
    f = getattr(_lib, name)
    f.restype, f.argtypes = res, list(args)
    return f


_sig("nmt_version", _S)
_sig("nmt_last_error", _S)
_sig("nmt_string_free", None, _P)
_sig("nmt_translator_options_init", None, ctypes.POINTER(_Options))
_sig("nmt_translator_new", _I, ctypes.POINTER(_P), ctypes.POINTER(_S), _I, ctypes.POINTER(_Options))
_sig("nmt_translator_free", None, _P)
_sig("nmt_translator_translate", _I, _P, ctypes.POINTER(_S), _I, ctypes.POINTER(_P))
_sig("nmt_translator_score", _I, _P, ctypes.POINTER(_S), ctypes.POINTER(_S), _I, ctypes.POINTER(ctypes.c_double))
_sig("nmt_result_size", _I, _P)
_sig("nmt_result_hypotheses", _I, _P, _I)
_sig("nmt_result_text", _S, _P, _I, _I)
_sig("nmt_result_score", ctypes.c_double, _P, _I, _I)
_sig("nmt_result_alignment", _S, _P, _I, _I)
_sig("nmt_result_free", None, _P)
for _kind in ("moses", "subword"):
    _sig("nmt_%s_free" % _kind, None, _P)
_sig("nmt_moses_new", _I, ctypes.POINTER(_P), _S, _I)
_sig("nmt_moses_tokenize", _I, _P, _S, ctypes.POINTER(_P))
_sig("nmt_moses_detokenize", _I, _P, _S, ctypes.POINTER(_P))
_sig("nmt_subword_new", _I, ctypes.POINTER(_P), _S)
_sig("nmt_subword_apply", _I, _P, _S, ctypes.POINTER(_P))


def version():
    """The library's version, "MAJOR.MINOR.PATCH"."""
    return _lib.nmt_version().decode()


def _check(status):
    if status:
        raise Error(status, _lib.nmt_last_error().decode("utf-8", "replace"))


def _strings(lines):
    lines = [lines] if isinstance(lines, str) else list(lines)
    return (_S * len(lines))(*[s.encode("utf-8") for s in lines]), len(lines)


def _owned_text(status, out):
    _check(status)
    try:
        return ctypes.string_at(out.value).decode("utf-8")
    finally:
        _lib.nmt_string_free(out)


def _option(key, value):
    if key in ("alignment", "device"):
        return None if value is None else str(value).encode()
    return float(value) if key in ("normalize", "max_length_factor") else int(value)


class Translator:
    """A model (a path) or an ensemble (a list of paths) loaded once.

    Options (the C API's nmt_translator_options): threads, beam_size, normalize,
    max_length_factor, max_length, mini_batch, n_best, int8, shortlist, raw,
    postprocess, alignment ("hard", "soft" or a threshold, as nmt-decode
    --alignment), device ("cpu", "cuda", "cuda:0": a GPU the library cannot use is
    nmt.Error with status 4, never the CPU). raw=True reads plain text as nmt-decode
    --raw does.
    """

    def __init__(self, models, **options):
        paths = [models] if isinstance(models, (str, os.PathLike)) else list(models)
        o = _Options()
        _lib.nmt_translator_options_init(ctypes.byref(o))
        for key, value in options.items():
            if key == "size" or key not in dict(_Options._fields_):
                raise TypeError("Translator: unknown option %r" % key)
            setattr(o, key, _option(key, value))
        arr, n = _strings([os.fspath(p) for p in paths])
        self._t = _P()
        self.n_best = bool(o.n_best)
        self.alignment = o.alignment is not None
        _check(_lib.nmt_translator_new(ctypes.byref(self._t), arr, n, ctypes.byref(o)))

    def translate(self, lines, with_scores=False, with_alignment=False):
        """Translations of lines (a list of str): a list of str, the text nmt-decode
        writes. With with_scores, a list of lists of (text, score), best first: every
        hypothesis of the beam with n_best, else the best. With with_alignment (the
        option alignment given), (text, score, alignment): the alignment as nmt-decode
        --alignment writes it after " ||| "."""
        if with_alignment and not self.alignment:
            raise ValueError("translate: with_alignment needs the option alignment")
        arr, n = _strings(lines)
        r = _P()
        _check(_lib.nmt_translator_translate(self._t, arr, n, ctypes.byref(r)))
        try:
            return [self._hypotheses(r, i, with_scores or with_alignment, with_alignment)
                    for i in range(_lib.nmt_result_size(r))]
        finally:
            _lib.nmt_result_free(r)

    @staticmethod
    def _hypotheses(r, i, scores, alignment):
        k = _lib.nmt_result_hypotheses(r, i)
        if not scores:
            return _lib.nmt_result_text(r, i, 0).decode("utf-8")
        hyps = []
        for h in range(k):
            hyp = (_lib.nmt_result_text(r, i, h).decode("utf-8"), _lib.nmt_result_score(r, i, h))
            hyps.append(hyp + (_lib.nmt_result_alignment(r, i, h).decode(),) if alignment else hyp)
        return hyps

    def score(self, sources, targets):
        """The log-probability of each target given its source (nmt-score's numbers)."""
        src, n = _strings(sources)
        tgt, m = _strings(targets)
        if n != m:
            raise ValueError("score: %d sources and %d targets" % (n, m))
        out = (ctypes.c_double * n)()
        _check(_lib.nmt_translator_score(self._t, src, tgt, n, out))
        return list(out)

    def close(self):
        if getattr(self, "_t", None):
            _lib.nmt_translator_free(self._t)
            self._t = None

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Tokenizer:
    """The Moses tokenizer of a language (nmt-tokenize -l LANG [-a] [--no-escape])."""

    def __init__(self, lang="en", aggressive=False, escape=True):
        self._m = _P()
        _check(_lib.nmt_moses_new(ctypes.byref(self._m), lang.encode(), (1 if aggressive else 0) | (2 if escape else 0)))

    def tokenize(self, line):
        out = _P()
        return _owned_text(_lib.nmt_moses_tokenize(self._m, line.encode("utf-8"), ctypes.byref(out)), out)

    def detokenize(self, line):
        out = _P()
        return _owned_text(_lib.nmt_moses_detokenize(self._m, line.encode("utf-8"), ctypes.byref(out)), out)

    def close(self):
        if getattr(self, "_m", None):
            _lib.nmt_moses_free(self._m)
            self._m = None

    __del__ = close


class BPE:
    """BPE codes from nmt-bpe learn, applied as nmt-bpe apply -c CODES does."""

    def __init__(self, codes):
        self._b = _P()
        _check(_lib.nmt_subword_new(ctypes.byref(self._b), os.fspath(codes).encode()))

    def apply(self, line):
        out = _P()
        return _owned_text(_lib.nmt_subword_apply(self._b, line.encode("utf-8"), ctypes.byref(out)), out)

    def close(self):
        if getattr(self, "_b", None):
            _lib.nmt_subword_free(self._b)
            self._b = None

    __del__ = close
