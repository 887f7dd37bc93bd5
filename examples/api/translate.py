#!/usr/bin/python3
"""Translate stdin's lines with a model, as nmt-decode -m MODEL [--raw] does, through the
installed Python package:  python3 translate.py m.bin --raw < test.fr > test.en"""
import sys

import nmt

raw = sys.argv[2:] == ["--raw"]
translator = nmt.Translator(sys.argv[1], raw=raw)
lines = sys.stdin.read().splitlines()
print("\n".join(translator.translate(lines)))
