#!/usr/bin/env bash
# Command 1 of the README: installs what is missing, builds EdgeMT in
# Release, and translates a few English sentences to German.
#
#   examples/demo.sh                      the committed int8 example model
#   examples/demo.sh MODEL.edgemt         another model file
#   examples/demo.sh CHECKPOINT_DIR       a checkpoint (model.pt, config.json,
#                                         spm.model): converted to int8 first
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
model="${1:-$root/models/multi30k-ende.int8.edgemt}"

# Only what the demo needs: the packages that build the CLI, and the native
# libraries for this machine (the first configure builds them, a few
# minutes; the ARM ones wait for a cross build or tests/run.sh).
"$root/tools/install-deps.sh" build
[ ! -d "$model" ] || "$root/tools/install-deps.sh" convert
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DEDGEMT_BUILD_TESTS=OFF -DEDGEMT_PYTHON=OFF >/dev/null
cmake --build "$root/build" -j "$(nproc)" --target edgemt-translate >/dev/null

if [ -d "$model" ]; then
  converted="$root/build/$(basename "$model").int8.edgemt"
  echo "converting $model to $converted"
  /usr/bin/python3 "$root/converter/edgemt-convert" "$model" --out "$converted" --dtype int8
  model="$converted"
fi

sentences="A man is riding a bicycle down the street.
Two children are playing in the park.
A woman in a red dress is singing on stage.
A dog runs through the snow.
Several people are sitting at a table in a restaurant."

echo "model: $model"
start=$(date +%s.%N)
translations=$(printf '%s\n' "$sentences" | "$root/build/bin/edgemt-translate" --model "$model")
end=$(date +%s.%N)
paste -d '\n' <(printf '%s\n' "$sentences" | sed 's/^/en: /') <(printf '%s\n' "$translations" | sed 's/^/de: /')
awk -v s="$start" -v e="$end" 'BEGIN { printf "translated 5 sentences in %.0f ms (loading the model included)\n", (e - s) * 1000 }'
