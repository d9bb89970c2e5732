// Translates standard input line by line with the WebAssembly build in
// Node.js, one output line per input line, as edgemt-translate does; the
// wasm end-to-end test and benchmark compare it with the native CLI.
//
//   node web/tests/translate_lines.mjs --package build-wasm/web/package --model FILE
//        [--batch N] [--per-call M] [--beam N] [--no-relaxed-simd] [--timing FILE.json] < sources > translations
//
// --batch: the translator's maxBatchSize; --per-call: sources given to one
// translateBatch call (default: --batch), which sorts them by length and
// translates them in batches of --batch, as Bergamot batches one call.
//
// --no-relaxed-simd keeps XNNPACK's SIMD128 int8 kernels where the engine
// runs relaxed SIMD (Node.js 20: with --experimental-wasm-relaxed-simd).
//
// --timing writes {load_ms, translate_ms, sentences, output_tokens, kernels}: load is
// Translator.load (runtime, model, packing), translate the calls alone,
// after the first WARMUP sources were translated once untimed (V8 compiles
// WebAssembly with a baseline compiler first and optimizes hot functions
// as they run).
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { argument } from './arguments.mjs';

const packageDir = resolve(argument('--package'));
const modelPath = resolve(argument('--model'));
const batch = Number(argument('--batch', '16'));
const perCall = Number(argument('--per-call', String(batch)));
const beam = Number(argument('--beam', '0'));
const timing = argument('--timing', '');
const relaxedSimd = !process.argv.includes('--no-relaxed-simd');

const { Translator, kernels } = await import(pathToFileURL(`${packageDir}/edgemt.mjs`).href);
const sources = readFileSync(0, 'utf8').split('\n');
if (sources[sources.length - 1] === '') sources.pop();

const loadStart = performance.now();
const translator = await Translator.load(modelPath, { maxBatchSize: batch, relaxedSimd, ...(beam > 0 ? { maxBeamSize: beam } : {}) });
const loadMs = performance.now() - loadStart;
const options = beam > 0 ? { beamSize: beam } : {};

const WARMUP = 10;
if (timing) translator.translate(sources.slice(0, WARMUP), options);

const lines = [];
let outputTokens = 0;
const start = performance.now();
for (let i = 0; i < sources.length; i += perCall) {
  for (const result of translator.translateBatch(sources.slice(i, i + perCall), options)) {
    const best = result.hypotheses[0];
    lines.push(best ? best.text : '');
    outputTokens += best ? best.ids.length : 0;
  }
}
const translateMs = performance.now() - start;
translator.free();

process.stdout.write(lines.map((line) => `${line}\n`).join(''));
if (timing) {
  writeFileSync(timing, JSON.stringify({ load_ms: loadMs, translate_ms: translateMs, sentences: sources.length,
                                         output_tokens: outputTokens, kernels: kernels() }));
}
