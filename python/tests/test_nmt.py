"""The Python package over libnmt.so (python/nmt), run by make test (tests/cli/lib.cases)
with the package and library `make install` put under $NMT_TEST_FIX/prefix, and the models
of tests/cli/lib.setup there. Alone: NMT_TEST_FIX=DIR PYTHONPATH=... /usr/bin/python3 -m
unittest discover -s python/tests."""
import ctypes
import os
import subprocess
import threading
import unittest

FIX = os.environ.get("NMT_TEST_FIX", "")
if os.environ.get("NMT_SANITIZED"):  # (make test's case exits 77 before it gets here)
    raise unittest.SkipTest("a sanitized libnmt.so cannot load into an unsanitized python3")

import nmt  # noqa: E402


def pipe(name):
    return os.path.join(FIX, "pipe", name)


def lines(name):
    with open(pipe(name), encoding="utf-8") as f:
        return f.read().splitlines()


def nmt_decode(model, *args, stdin):
    return subprocess.run(["nmt-decode", "-m", pipe(model)] + list(args), input=stdin, capture_output=True,
                          text=True, check=True).stdout.splitlines()


@unittest.skipUnless(FIX, "NMT_TEST_FIX is not set (tests/cli/lib.setup's fixtures)")
class TranslatorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.t = nmt.Translator(pipe("m.bin"), beam_size=5, raw=True)
        cls.weak = nmt.Translator(pipe("weak.bin"), raw=True)

    def test_version(self):
        self.assertRegex(nmt.version(), r"^\d+\.\d+\.\d+$")

    def test_translate_raw(self):
        self.assertEqual(self.t.translate(["Bonjour, le monde !"]), ["Hello, world!"])
        self.assertEqual(self.t.translate(lines("src.txt")), lines("ref.txt"))

    def test_same_as_nmt_decode(self):
        src = lines("src.txt") + lines("tok.fr") + [""]
        self.assertEqual(self.weak.translate(src), nmt_decode("weak.bin", "--raw", stdin="\n".join(src) + "\n"))

    def test_options_as_nmt_decode(self):
        src = lines("src.txt") + lines("tok.fr")
        text = "\n".join(src) + "\n"
        for opts, flags in (({"int8": True}, ["--gemm-type", "int8"]), ({"shortlist": 8}, ["--shortlist", "8"]),
                            ({"beam_size": 1, "threads": 2, "mini_batch": 2}, ["-b", "1", "--mini-batch", "2"])):
            with self.subTest(opts=opts):
                t = nmt.Translator(pipe("weak.bin"), raw=True, **opts)
                self.assertEqual(t.translate(src), nmt_decode("weak.bin", "--raw", *flags, stdin=text))
        ens = nmt.Translator([pipe("weak.bin"), pipe("m.bin")], raw=True)
        want = subprocess.run(["nmt-decode", "-m", pipe("weak.bin"), pipe("m.bin"), "--raw"], input=text,
                              capture_output=True, text=True, check=True).stdout.splitlines()
        self.assertEqual(ens.translate(src), want)

    def test_subwords_in(self):
        t = nmt.Translator(pipe("m.bin"), postprocess=False)
        self.assertEqual(t.translate(lines("bpe.fr")), lines("bpe.en"))

    def test_n_best(self):
        t = nmt.Translator(pipe("weak.bin"), raw=True, beam_size=3, n_best=True)
        hyps = t.translate(["Bonjour, le monde !"], with_scores=True)[0]
        self.assertEqual(len(hyps), 3)
        want = [l.split(" ||| ") for l in nmt_decode("weak.bin", "--raw", "-b", "3", "--n-best",
                                                         stdin="Bonjour, le monde !\n")]
        self.assertEqual([h[0] for h in hyps], [w[1] for w in want])
        self.assertEqual(["%.6f" % h[1] for h in hyps], [w[3] for w in want])

    def test_alignments_as_nmt_decode(self):
        src = lines("src.txt") + [""] + lines("tok.fr")
        text = "\n".join(src) + "\n"
        for kind in ("hard", "soft", "0.1"):
            with self.subTest(alignment=kind):
                t = nmt.Translator(pipe("weak.bin"), raw=True, beam_size=3, n_best=True, alignment=kind)
                got = ["%d ||| %s ||| %s ||| F0= %.6f ||| %.6f" % (i, h[0], h[2], h[1], h[1])
                       for i, hyps in enumerate(t.translate(src, with_alignment=True))
                       for h in (hyps or [("", 0.0, "")])]
                self.assertEqual(got, nmt_decode("weak.bin", "--raw", "-b", "3", "--n-best", "--alignment", kind,
                                                 stdin=text))
        best = nmt.Translator(pipe("weak.bin"), raw=True, alignment="hard")
        want = [l.split(" ||| ") for l in nmt_decode("weak.bin", "--raw", "--alignment", "hard", stdin=text)]
        self.assertEqual([h[0][::2] for h in best.translate(src, with_alignment=True) if h],
                         [tuple(w) for w in want if w[0]])
        with self.assertRaisesRegex(ValueError, "needs the option alignment"):
            self.weak.translate(src, with_alignment=True)

    def test_device(self):
        with self.assertRaises(nmt.Error) as e:
            nmt.Translator(pipe("m.bin"), device="cuda")
        self.assertEqual(e.exception.status, 4)
        self.assertRegex(str(e.exception), "^device 'cuda': ")
        with self.assertRaisesRegex(nmt.Error, "bad device 'gpu'"):
            nmt.Translator(pipe("m.bin"), device="gpu")
        self.assertEqual(nmt.Translator(pipe("m.bin"), device="cpu", raw=True).translate(lines("src.txt")),
                         lines("ref.txt"))

    def test_releases_the_gil(self):
        """ctypes lets go of the GIL around a foreign call unless the library was loaded as a
        PyDLL (FUNCFLAG_PYTHONAPI); two threads' throughput: bench/api.sh."""
        self.assertIsInstance(nmt._lib, ctypes.CDLL)
        self.assertNotIsInstance(nmt._lib, ctypes.PyDLL)
        self.assertFalse(nmt._lib._func_flags_ & ctypes._FUNCFLAG_PYTHONAPI)

    def test_score(self):
        got = nmt.Translator(pipe("m.bin")).score(lines("bpe.fr"), lines("bpe.en"))
        want = subprocess.run(["nmt-score", "-m", pipe("m.bin"), pipe("bpe.fr"), pipe("bpe.en")],
                              capture_output=True, text=True, check=True).stdout.split()
        self.assertEqual(["%.6f" % s for s in got], want)

    def test_threads(self):
        src = lines("src.txt") + lines("tok.fr")
        want = self.weak.translate(src)
        got = [None] * 4

        def run(k):
            got[k] = [self.weak.translate([s])[0] for s in src]
        ts = [threading.Thread(target=run, args=(k,)) for k in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(got, [want] * 4)

    def test_errors(self):
        with self.assertRaisesRegex(nmt.Error, "missing.bin: cannot open"):
            nmt.Translator(os.path.join(FIX, "missing.bin"))
        with self.assertRaisesRegex(nmt.Error, "beam_size must be between 1 and 1000"):
            nmt.Translator(pipe("m.bin"), beam_size=0)
        with self.assertRaisesRegex(nmt.Error, "newline"):
            self.t.translate(["a\nb"])
        with self.assertRaises(TypeError):
            nmt.Translator(pipe("m.bin"), beam=5)
        with self.assertRaisesRegex(ValueError, "2 sources and 1 targets"):
            self.t.score(["a", "b"], ["c"])
        with self.assertRaisesRegex(nmt.Error, "source 0 is empty"):
            self.t.score([""], ["c"])


@unittest.skipUnless(FIX, "NMT_TEST_FIX is not set (tests/cli/lib.setup's fixtures)")
class TextTest(unittest.TestCase):
    def test_tokenize(self):
        tok = nmt.Tokenizer("fr", aggressive=True, escape=False)
        self.assertEqual([tok.tokenize(l) for l in lines("src.txt")], lines("tok.fr"))
        en = nmt.Tokenizer("en", aggressive=True, escape=False)
        self.assertEqual([en.detokenize(l) for l in lines("tok.en")], lines("ref.txt"))

    def test_bpe(self):
        bpe = nmt.BPE(pipe("codes"))
        self.assertEqual([bpe.apply(l) for l in lines("tok.fr")], lines("bpe.fr"))
        with self.assertRaisesRegex(nmt.Error, "cannot open"):
            nmt.BPE(pipe("no-codes"))


if __name__ == "__main__":
    unittest.main()
