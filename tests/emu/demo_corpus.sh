# Sourced by the emulated GPU's tool tests with their BIN argument: sets bin (its
# absolute path), makes a scratch folder (removed on exit) the current one and
# writes make demo's corpus there (examples/demo/numbers.c: train, valid and test
# .fr/.en, 600 training pairs).
bin=$(cd "${1:?usage: $0 BIN}" && pwd)
demo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../examples/demo" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"${CC:-cc}" -std=c11 -O2 -o numbers "$demo/numbers.c"
./numbers . 600 1
