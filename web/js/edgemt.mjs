// EdgeMT for JavaScript: offline translation with an .edgemt model, in a
// web page, a worker or Node.js. The WebAssembly module (edgemt.wasm) is
// fetched or read once per page or process; each Translator holds one model
// and its packed weights until free(). Types: edgemt.d.ts; use: README.md.
import { threaded } from './edgemt-build.mjs';
import createEdgeMTModule from './edgemt-glue.mjs';

export { threaded };

const isNode = typeof process !== 'undefined' && process.versions != null && process.versions.node != null;

/** What the runtime or this API refused: a bad model, bad options, a call after free(). */
export class EdgeMTError extends Error {
  constructor(message) {
    super(message);
    this.name = 'EdgeMTError';
  }
}

let modulePromise = null;

async function readBytes(source) {
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  if (typeof source === 'string' || source instanceof URL) {
    const url = source instanceof URL ? source : new URL(source, isNode ? `file://${process.cwd()}/` : globalThis.location?.href);
    if (url.protocol === 'file:' && isNode) {
      const { readFile } = await import('node:fs/promises');
      return new Uint8Array(await readFile(url));
    }
    const response = await fetch(url);
    if (!response.ok) throw new EdgeMTError(`cannot fetch ${url}: HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  }
  throw new EdgeMTError('a model or module is an ArrayBuffer, a typed array, a URL or a path');
}

let kernelsInUse = null;

/**
 * Gives the runtime the relaxed SIMD int8 kernels (edgemt-relaxed-simd.wasm,
 * a module of their own: an engine without relaxed SIMD refuses any module
 * holding one of its instructions) when this engine validates them; the
 * runtime packs every int8 layer for them from then on. Returns the kernels
 * the runtime uses.
 */
async function useRelaxedSimd(module, options) {
  let bytes;
  try {
    bytes = await readBytes(options.kernels ?? new URL('./edgemt-relaxed-simd.wasm', import.meta.url));
  } catch {
    return 'simd128';  // not served beside edgemt.wasm: XNNPACK's kernels run
  }
  if (!WebAssembly.validate(bytes)) return 'simd128';
  // The runtime's memory and table, found by kind: Emscripten shortens their export names.
  const exported = Object.values(module.asm);
  const memory = exported.find((value) => value instanceof WebAssembly.Memory);
  const table = exported.find((value) => value instanceof WebAssembly.Table);
  const { instance } = await WebAssembly.instantiate(bytes, { env: { memory } });
  // Into the runtime's table, where its function pointers call them as its own functions.
  const first = table.grow(2);
  table.set(first, instance.exports.rows4);
  table.set(first + 1, instance.exports.row1);
  module._edgemt_use_relaxed_simd(first, first + 1);
  return 'relaxed-simd';
}

/** The int8 kernels the loaded runtime runs: 'relaxed-simd' or 'simd128' (null before loadRuntime). */
export function kernels() {
  return kernelsInUse;
}

/**
 * Loads the WebAssembly runtime (once; later calls return the same promise).
 * options.wasm: the edgemt.wasm bytes or where to get them (default: beside this file).
 * options.kernels: the same for edgemt-relaxed-simd.wasm; options.relaxedSimd: false
 * keeps XNNPACK's SIMD128 int8 kernels even where the engine runs relaxed SIMD.
 */
export function loadRuntime(options = {}) {
  if (modulePromise == null) {
    modulePromise = (async () => {
      if (threaded && isNode) {
        throw new EdgeMTError('this is the threaded build of EdgeMT, for web pages only: Node.js takes the ' +
                              'single-threaded build (toolchains/wasm32-emscripten.cmake)');
      }
      if (threaded && globalThis.crossOriginIsolated !== true) {
        throw new EdgeMTError('the threaded build of EdgeMT needs a cross-origin-isolated page (served with ' +
                              'Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: ' +
                              'require-corp); serve the single-threaded build otherwise');
      }
      // The loader draws random bytes from the global Web Crypto, which
      // Node.js has as a global only from version 19.
      if (isNode && globalThis.crypto === undefined) globalThis.crypto = (await import('node:crypto')).webcrypto;
      const wasmBinary = await readBytes(options.wasm ?? new URL('./edgemt.wasm', import.meta.url));
      const module = await createEdgeMTModule({ wasmBinary, print: () => {}, printErr: () => {} });
      kernelsInUse = threaded || options.relaxedSimd === false ? 'simd128' : await useRelaxedSimd(module, options);
      return module;
    })();
    modulePromise.catch(() => { modulePromise = null; });
  }
  return modulePromise;
}

function checked(value) {
  if (value.error !== undefined) throw new EdgeMTError(value.error);
  return value;
}

function textsOf(texts) {
  if (!Array.isArray(texts)) throw new EdgeMTError('texts must be an array of strings');
  texts.forEach((text, i) => {
    if (typeof text !== 'string') throw new EdgeMTError(`texts[${i}] is ${typeof text}, not a string`);
  });
  return texts;
}

export class Translator {
  #session;
  #info;

  constructor(session) {
    this.#session = session;
    this.#info = checked(session.info());
  }

  /**
   * Loads a model: an ArrayBuffer or typed array of the .edgemt file, a URL
   * or (Node) a path. options: maxBatchSize (16), maxBeamSize (the model's
   * beam size), maxSourceLength, maxTargetLength (0: the model's positions),
   * cacheBytes (0: no translation cache), threads (1; more only in the
   * threaded build, at most the page's navigator.hardwareConcurrency),
   * wasm (see loadRuntime).
   */
  static async load(model, options = {}) {
    const module = await loadRuntime(options);
    const bytes = await readBytes(model);
    const session = new module.Session();
    try {
      const address = session.reserve(bytes.byteLength);
      if (address === 0) {
        throw new EdgeMTError(`the model (${bytes.byteLength} bytes) does not fit in the WebAssembly memory ` +
                              '(at most 2 GB for the model, its working memory and the runtime)');
      }
      module.HEAPU8.set(bytes, address);
      checked(session.open(options));
      return new Translator(session);
    } catch (error) {
      session.close();
      session.delete();
      throw error;
    }
  }

  /** The model's languages, sizes and the translator's limits. */
  get info() { return { ...this.#info }; }

  #live() {
    if (this.#session == null) throw new EdgeMTError('this translator was freed');
    return this.#session;
  }

  /**
   * The best translation of each text (string[]); of a single string, its
   * translation (a string). Each text is a paragraph, its sentences
   * translated and joined with its own whitespace, unless
   * options.splitSentences is false.
   */
  translate(texts, options = {}) {
    if (typeof texts === 'string') return this.translate([texts], options)[0];
    return this.translateBatch(texts, options).map((result) => result.hypotheses[0]?.text ?? '');
  }

  /**
   * Per text, numHypotheses hypotheses best first ({text, score, ids, ...}),
   * and a warning when the source was cut (or, with numHypotheses > 1, holds
   * more than one sentence); a single string gives its one result. A source
   * that failed throws, naming it.
   */
  translateBatch(texts, options = {}) {
    if (typeof texts === 'string') return this.translateBatch([texts], options)[0];
    const { results } = checked(this.#live().translate(textsOf(texts), options));
    results.forEach((result, i) => {
      if (result.error !== undefined) throw new EdgeMTError(`source ${i}: ${result.error}`);
    });
    return results;
  }

  /** Translates one text, calling onPiece(piece) as the output grows; returns the whole translation. */
  translateStreaming(text, onPiece, options = {}) {
    if (typeof text !== 'string') throw new EdgeMTError('text must be a string');
    if (typeof onPiece !== 'function') throw new EdgeMTError('onPiece must be a function');
    const { result } = checked(this.#live().translateStreaming(text, options, (piece) => onPiece(piece) !== false));
    if (result.error !== undefined) throw new EdgeMTError(result.error);
    return result.hypotheses[0]?.text ?? '';
  }

  /**
   * A document: lines split into sentences, translated, put back with the
   * document's own whitespace. With options.onPiece, the translation also
   * comes out piece by piece. Returns {text, sentences, failed, firstFailure}.
   */
  translateDocument(text, options = {}) {
    if (typeof text !== 'string') throw new EdgeMTError('text must be a string');
    const onPiece = options.onPiece == null ? undefined : (piece) => options.onPiece(piece) !== false;
    return checked(this.#live().translateDocument(text, options, false, onPiece));
  }

  /** An HTML page or snippet: the text of each block translated, markup kept. Returns as translateDocument. */
  translateHtml(html, options = {}) {
    if (typeof html !== 'string') throw new EdgeMTError('html must be a string');
    return checked(this.#live().translateDocument(html, options, true, undefined));
  }

  /** Releases the model and its memory; later calls throw. Calling it twice is harmless. */
  free() {
    if (this.#session == null) return;
    this.#session.close();
    this.#session.delete();
    this.#session = null;
  }
}

/**
 * A model set: several models, each with its language pair, translating
 * from any of their languages to any other, directly or through the pivot
 * language (English by default), as edgemt/catalog.h does natively.
 */
export class Catalog {
  #session;
  #module;

  constructor(module, session) {
    this.#module = module;
    this.#session = session;
  }

  /**
   * models: an array of model files (each an ArrayBuffer, typed array, URL
   * or Node path), or of {name, model} to name them in results. options:
   * pivotLanguage ('en'), maxBatchSize (16), wasm (see loadRuntime).
   */
  static async load(models, options = {}) {
    if (!Array.isArray(models) || models.length === 0) throw new EdgeMTError('models must be a non-empty array');
    const module = await loadRuntime(options);
    const session = new module.CatalogSession();
    try {
      for (let i = 0; i < models.length; ++i) {
        const entry = models[i];
        const source = entry != null && entry.model !== undefined ? entry.model : entry;
        const name = entry != null && entry.name !== undefined ? String(entry.name)
          : typeof source === 'string' || source instanceof URL ? String(source) : `model ${i}`;
        const bytes = await readBytes(source);
        const address = session.reserve(bytes.byteLength);
        if (address === 0) throw new EdgeMTError(`${name} (${bytes.byteLength} bytes) does not fit in the WebAssembly memory`);
        module.HEAPU8.set(bytes, address);
        checked(session.add(name));
      }
      checked(session.finish(options));
      return new Catalog(module, session);
    } catch (error) {
      session.close();
      session.delete();
      throw error;
    }
  }

  #live() {
    if (this.#session == null) throw new EdgeMTError('this catalog was freed');
    return this.#session;
  }

  /** Every language some model reads or writes, sorted. */
  get languages() { return this.#live().languages(); }

  /** The languages `from` translates to, directly or through the pivot. */
  targets(from) { return this.#live().targets(String(from)); }

  /** The names of the models from -> to goes through; throws when there are none. */
  route(from, to) { return checked(this.#live().route(String(from), String(to))); }

  /**
   * Per text {text, alternatives, sourceLanguage, languageConfidence, models,
   * warning}: from a language (or 'auto': each text's detected) to another.
   * options.format: 'text' (a paragraph; default), 'document' or 'html';
   * options.alternatives: up to 3 other translations. A text that fails throws, naming it.
   */
  translateBatch(texts, from, to, options = {}) {
    if (typeof texts === 'string') return this.translateBatch([texts], from, to, options)[0];
    const { results } = checked(this.#live().translate(textsOf(texts), String(from), String(to),
                                                       options.format ?? 'text', options.alternatives ?? 0));
    results.forEach((result, i) => {
      if (result.error !== undefined) throw new EdgeMTError(`text ${i}: ${result.error}`);
    });
    return results;
  }

  /** The translation of each text (string[]), or of one string (a string). */
  translate(texts, from, to, options = {}) {
    if (typeof texts === 'string') return this.translateBatch([texts], from, to, options)[0].text;
    return this.translateBatch(texts, from, to, options).map((result) => result.text);
  }

  /** The text's likely languages, best first: [{language, confidence (0-100)}]; [] when it cannot tell. */
  detectLanguage(text) {
    if (typeof text !== 'string') throw new EdgeMTError('text must be a string');
    return checked(this.#module.detectLanguage(text));
  }

  /** Releases the models and their memory; later calls throw. Calling it twice is harmless. */
  free() {
    if (this.#session == null) return;
    this.#session.close();
    this.#session.delete();
    this.#session = null;
  }
}
