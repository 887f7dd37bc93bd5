#!/usr/bin/env bash
# The Debian packages a GPU machine's image may lack, downloaded here into .gpu-debs/ (ignored
# by git) so they travel with the working tree (the device tool's `carry`);
# bench/gpu/first-contact.sh unpacks the ones that machine has not got. They are .ci/deps's
# packages and those that own the shared libraries the built tools load (ldd), the C and C++
# runtimes left out: a machine always has its own.
#   make all && bash bench/gpu/bundle.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x bin/nmt-train ] || { echo "bundle.sh: build first (make all)" >&2; exit 1; }
deps=$(sed -n '/^pkgs=(/,/)/p' .ci/deps | sed 's/^pkgs=(//; s/)$//' | tr ' ' '\n' | grep -v -e '^$' -e '^build-essential$' -e '^time$')
libs=$(ldd bin/nmt-train bin/nmt-tests | awk '$3 ~ /^\// {print $3}' | sort -u | xargs -r readlink -f)
owners=$(for l in $libs; do dpkg -S "$l" 2>/dev/null | cut -d: -f1; done)
# the -dev package of the BLAS variant installed here (libopenblas-dev is a choice of three)
dev=$(dpkg-query -W -f '${Package} ${Status}\n' 'libopenblas*-dev' 2>/dev/null | awk '/ok installed/ {print $1}')
pkgs=$(printf '%s\n' $deps $owners $dev | grep -v -E '^(libc6|libgcc-s1|libstdc\+\+6|libgomp1)$' | sort -u)
mkdir -p .gpu-debs
(cd .gpu-debs && apt-get download $pkgs 2>/dev/null >/dev/null)
echo "$(ls .gpu-debs/*.deb | wc -l) packages, $(du -sh .gpu-debs | cut -f1), in .gpu-debs/: $(echo $pkgs)"
