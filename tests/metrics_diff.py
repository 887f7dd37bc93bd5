#!/usr/bin/python3
"""Two scrapes of nmt-serve's GET /metrics, read by Prometheus's own text-format parser
(Debian's python3-prometheus-client): what changed between them.

Usage: /usr/bin/python3 tests/metrics_diff.py BEFORE AFTER

Each file must parse, every family must have a type, and each histogram must be whole:
its buckets cumulative (never decreasing with "le"), a +Inf bucket equal to its _count.
Then one line per sample of AFTER: "NAME{LABELS} +DELTA" for a counter's or a histogram's
sample (BEFORE's value, 0 when absent, taken away), "NAME{LABELS} = VALUE" for a gauge,
sorted. Exit 1 on a parse error or a broken histogram (one line on stderr), 77 when
prometheus_client is missing (the CLI case is skipped).
"""
import math
import sys

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    print("python3-prometheus-client is missing (.ci/deps installs it): skipped", file=sys.stderr)
    sys.exit(77)


def key(sample):
    labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
    return sample.name + ("{" + labels + "}" if labels else "")


def check_histogram(family):
    """Buckets cumulative by le, +Inf equal to _count (per label set without le)."""
    buckets, counts = {}, {}
    for s in family.samples:
        rest = tuple(sorted((k, v) for k, v in s.labels.items() if k != "le"))
        if s.name.endswith("_bucket"):
            buckets.setdefault(rest, []).append((float(s.labels["le"]), s.value))
        elif s.name.endswith("_count"):
            counts[rest] = s.value
    for rest, bs in buckets.items():
        bs.sort()
        if any(b[1] < a[1] for a, b in zip(bs, bs[1:])):
            sys.exit(f"{family.name}: buckets not cumulative: {bs}")
        if not math.isinf(bs[-1][0]) or bs[-1][1] != counts.get(rest):
            sys.exit(f"{family.name}: +Inf bucket {bs[-1]} against _count {counts.get(rest)}")


def read(path):
    """{sample key: (family type, value)}."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    samples = {}
    try:
        for family in text_string_to_metric_families(text):
            if family.type not in ("counter", "gauge", "histogram"):
                sys.exit(f"{path}: {family.name}: type {family.type}")
            if family.type == "histogram":
                check_histogram(family)
            for s in family.samples:
                samples[key(s)] = (family.type, s.value)
    except ValueError as e:
        sys.exit(f"{path}: not Prometheus's text format: {e}")
    return samples


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[3])
    before, after = read(sys.argv[1]), read(sys.argv[2])
    for k in sorted(after):
        typ, v = after[k]
        if typ == "gauge":
            print(f"{k} = {v:g}")
        else:
            print(f"{k} +{v - before.get(k, (typ, 0))[1]:g}")


main()
