// Bergamot's WebAssembly build in a Web Worker: loads the glue and the
// wasm from /bergamot/, the model, vocabularies and shortlist from the
// URLs given, then translates the sources one call each after a warm-up,
// and posts the timings and the translations. The module is driven as the
// kit's bergamot_translate.mjs drives it in Node (same configuration; the
// wasm's own fallback int8 kernels, as outside Firefox).
'use strict';

const GEMM_FALLBACK = {
  int8_prepare_a: 'int8PrepareAFallback',
  int8_prepare_b: 'int8PrepareBFallback',
  int8_prepare_b_from_transposed: 'int8PrepareBFromTransposedFallback',
  int8_prepare_b_from_quantized_transposed: 'int8PrepareBFromQuantizedTransposedFallback',
  int8_prepare_bias: 'int8PrepareBiasFallback',
  int8_multiply_and_add_bias: 'int8MultiplyAndAddBiasFallback',
  int8_select_columns_of_b: 'int8SelectColumnsOfBFallback',
};

async function bytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

function instantiate(wasmBytes) {
  return new Promise((resolve, reject) => {
    const M = {
      print: () => {},
      printErr: () => {},
      instantiateWasm: (info, accept) => {
        const wasmGemm = Object.fromEntries(Object.entries(GEMM_FALLBACK).map(
          ([key, name]) => [key, (...args) => M.asm[name](...args)]));
        WebAssembly.instantiate(wasmBytes, { ...info, wasm_gemm: wasmGemm })
          .then(({ instance }) => accept(instance)).catch(reject);
        return {};
      },
      onRuntimeInitialized: () => resolve(M),
      onAbort: (what) => reject(new Error(`Bergamot aborted: ${what}`)),
    };
    self.Module = M;
    importScripts('/bergamot/worker/bergamot-translator-worker.js');
  });
}

function aligned(Module, data, alignment) {
  const memory = new Module.AlignedMemory(data.byteLength, alignment);
  memory.getByteArrayView().set(data);
  return memory;
}

function translate(Module, service, model, texts) {
  const input = new Module.VectorString();
  const options = new Module.VectorResponseOptions();
  for (const text of texts) {
    input.push_back(text);
    options.push_back({ qualityScores: false, alignment: false, html: false });
  }
  const responses = service.translate(model, input, options);
  const out = [];
  for (let i = 0; i < texts.length; i++) out.push(responses.get(i).getTranslatedText());
  responses.delete(); input.delete(); options.delete();
  return out;
}

async function run(config) {
  const t0 = performance.now();
  const wasm = await bytes('/bergamot/worker/bergamot-translator-worker.wasm');
  const Module = await instantiate(wasm);
  const instantiateMs = performance.now() - t0;
  const t1 = performance.now();
  const [modelBytes, shortlistBytes, ...vocabBytes] = await Promise.all(
    [config.model, config.shortlist, ...config.vocabs].map(bytes));
  const yaml = Object.entries({
    'beam-size': 1, normalize: 1.0, 'word-penalty': 0, 'cpu-threads': 0, 'gemm-precision': config.gemm,
    'skip-cost': true, quiet: true, 'quiet-translation': true, 'max-length-break': 128,
    'mini-batch-words': 1024, workspace: 128, 'max-length-factor': 2.0, 'ssplit-mode': 'sentence',
    'check-bytearray': false,
  }).map(([k, v]) => `${k}: ${v}`).join('\n') + '\n';
  const vocabs = new Module.AlignedMemoryList();
  for (const v of vocabBytes) vocabs.push_back(aligned(Module, v, 64));
  const model = new Module.TranslationModel(yaml, aligned(Module, modelBytes, 256),
                                            aligned(Module, shortlistBytes, 64), vocabs, null);
  const modelMs = performance.now() - t1;
  const service = new Module.BlockingService({ cacheSize: 0 });
  const t2 = performance.now();
  translate(Module, service, model, [config.sources[0]]);
  const firstMs = performance.now() - t2;
  for (const text of config.sources.slice(0, config.warmup)) translate(Module, service, model, [text]);
  const t3 = performance.now();
  const outputs = config.sources.map((text) => translate(Module, service, model, [text])[0]);
  const translateMs = performance.now() - t3;
  return { instantiateMs, modelMs, firstMs, translateMs, outputs };
}

self.onmessage = ({ data }) => {
  run(data).then((result) => self.postMessage(result),
                 (error) => self.postMessage({ error: String(error && error.stack || error) }));
};
