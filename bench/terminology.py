#!/usr/bin/python3
"""A terminology test set made from a test set's references, as Dinu et al. (2019) made theirs
without a dictionary: per sentence, the reference words that the unconstrained translation
lacks, the rarest in the training data first, as one-word terms (nmt-decode --constraints:
one line per sentence, terms separated by tabs, an empty line: none).

  bench/terminology.py --train train.en --ref test.en --hyp test.hyp.en [--terms 1] [--seed 1] > terms.txt

A word is a run of letters (Unicode, no digits or punctuation) of two or more; its count is
that of the same form in the training target text (raw or tokenized; BPE's '@@ ' joined).
Ties in rarity are broken by a random order from --seed, so the set is the same run after
run. Prints to stderr how many sentences got a term."""
import argparse
import collections
import random
import re
import sys

WORD = re.compile(r"[^\W\d_]{2,}")


def words(line):
    return WORD.findall(line.replace("@@ ", ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", required=True, help="the training data's target side")
    ap.add_argument("--ref", required=True, help="the test set's references, one a line")
    ap.add_argument("--hyp", required=True, help="the unconstrained translations (beam 5), one a line")
    ap.add_argument("--terms", type=int, default=1, help="terms per sentence, at most (1)")
    ap.add_argument("--seed", type=int, default=1, help="the order of ties (1)")
    a = ap.parse_args()
    count = collections.Counter()
    with open(a.train, encoding="utf-8") as f:
        for line in f:
            count.update(words(line))
    with open(a.ref, encoding="utf-8") as f:
        refs = f.read().splitlines()
    with open(a.hyp, encoding="utf-8") as f:
        hyps = f.read().splitlines()
    if len(refs) != len(hyps):
        sys.exit("terminology.py: %d references, %d translations" % (len(refs), len(hyps)))
    rng = random.Random(a.seed)
    made = 0
    for ref, hyp in zip(refs, hyps):
        have = set(words(hyp))
        lack = sorted(set(w for w in words(ref) if w not in have))
        rng.shuffle(lack)
        lack.sort(key=lambda w: count[w])  # stable: ties keep the seed's order
        print("\t".join(lack[: a.terms]))
        made += bool(lack)
    print("terminology.py: %d of %d sentences have a term" % (made, len(refs)), file=sys.stderr)


if __name__ == "__main__":
    main()
