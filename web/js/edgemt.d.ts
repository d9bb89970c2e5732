// Types of edgemt.mjs, EdgeMT's JavaScript API.

/** What the runtime or the API refused: a bad model, bad options, a call after free(). */
export class EdgeMTError extends Error {}

/** Where the WebAssembly module comes from (default: edgemt.wasm beside edgemt.mjs). */
export interface RuntimeOptions {
  wasm?: ArrayBuffer | ArrayBufferView | URL | string;
  /** edgemt-relaxed-simd.wasm, the int8 kernels for engines with relaxed SIMD (default: beside edgemt.mjs). */
  kernels?: ArrayBuffer | ArrayBufferView | URL | string;
  /** false: XNNPACK's SIMD128 int8 kernels even where the engine runs relaxed SIMD (default true). */
  relaxedSimd?: boolean;
}

export interface TranslatorOptions extends RuntimeOptions {
  /** Sources translated together (default 16). */
  maxBatchSize?: number;
  /** The widest beam a call may ask (default: the model's own beam size). */
  maxBeamSize?: number;
  /** Source ids with </s>; 0 (default): the model's positions. */
  maxSourceLength?: number;
  /** Output ids; 0 (default): the model's positions. */
  maxTargetLength?: number;
  /** A cache of translated sentences, in bytes (default 0: none). */
  cacheBytes?: number;
  /**
   * Threads for the kernels (default 1). More than 1 only in the threaded
   * build (`threaded`), at most navigator.hardwareConcurrency per page.
   */
  threads?: number;
}

/** Decoding; what a call leaves out comes from the model's defaults, as in the CLI. */
export interface DecodeOptions {
  beamSize?: number;
  numHypotheses?: number;
  lengthPenalty?: number;
  maxLength?: number;
  minLength?: number;
  samplingTopk?: number;
  samplingTopp?: number;
  samplingTemperature?: number;
  samplingSeed?: number;
  repetitionPenalty?: number;
  noRepeatNgramSize?: number;
  disableUnk?: boolean;
  /** Restrict the output layer to the model's vocabulary shortlist (default true when it has one). */
  useShortlist?: boolean;
  /** Scores (token log-probabilities, confidence) for greedy decoding too. */
  returnScores?: boolean;
  returnAlignments?: boolean;
  /** A text is a paragraph, translated sentence by sentence (default true); false: one sentence as it is. */
  splitSentences?: boolean;
}

export interface Hypothesis {
  text: string;
  score: number;
  ids: number[];
  endedWithEos: boolean;
  tokenLogProbs?: number[];
  /** exp of the mean token log-probability, 0..1 (with scores). */
  confidence?: number;
  /** (source word, target word) pairs (with returnAlignments). */
  wordAlignments?: [number, number][];
}

export interface TranslationResult {
  /** numHypotheses hypotheses, best first. */
  hypotheses: Hypothesis[];
  /** e.g. the source was longer than the translator's limit and was cut. */
  warning?: string;
}

export interface DocumentResult {
  text: string;
  sentences: number;
  /** Sentences whose source stands in for their translation. */
  failed: number;
  firstFailure?: string;
}

export interface ModelInfo {
  sourceLanguage: string;
  targetLanguage: string;
  fileBytes: number;
  int8: boolean;
  hasShortlist: boolean;
  hasTokenizer: boolean;
  maxBatchSize: number;
  maxBeamSize: number;
  sourceVocabSize: number;
  targetVocabSize: number;
  maxPositions: number;
  /** The translator's threads. */
  threads: number;
}

/**
 * true in the threaded build (Web Workers over shared memory; only in
 * cross-origin-isolated pages, not in Node.js), false in the single-threaded one.
 */
export const threaded: boolean;

/** Loads the WebAssembly runtime once; Translator.load calls it. */
export function loadRuntime(options?: RuntimeOptions): Promise<unknown>;

/** The int8 kernels the loaded runtime runs (null before loadRuntime). */
export function kernels(): 'relaxed-simd' | 'simd128' | null;

export class Translator {
  /** Loads a model: the .edgemt file's bytes, a URL, or (Node.js) a path. */
  static load(model: ArrayBuffer | ArrayBufferView | URL | string, options?: TranslatorOptions): Promise<Translator>;
  readonly info: ModelInfo;
  translate(texts: string, options?: DecodeOptions): string;
  translate(texts: string[], options?: DecodeOptions): string[];
  translateBatch(texts: string, options?: DecodeOptions): TranslationResult;
  translateBatch(texts: string[], options?: DecodeOptions): TranslationResult[];
  /** onPiece gets the output as it grows; returning false stops the translation. */
  translateStreaming(text: string, onPiece: (piece: string) => boolean | void, options?: DecodeOptions): string;
  translateDocument(text: string, options?: DecodeOptions & { onPiece?: (piece: string) => boolean | void }): DocumentResult;
  translateHtml(html: string, options?: DecodeOptions): DocumentResult;
  /** Releases the model and its memory; later calls throw EdgeMTError. */
  free(): void;
}

export type ModelSource = ArrayBuffer | ArrayBufferView | URL | string;

export interface CatalogOptions extends RuntimeOptions {
  /** The language a pair no model holds goes through ('en'). */
  pivotLanguage?: string;
  /** Sentences translated together (16). */
  maxBatchSize?: number;
}

export interface CatalogResult {
  text: string;
  alternatives: string[];
  /** The language given, or the one detected with 'auto'. */
  sourceLanguage: string;
  /** 0-100; 100 when given. */
  languageConfidence: number;
  /** The names of the models it went through, in order. */
  models: string[];
  warning?: string;
}

export interface CatalogTranslateOptions {
  format?: 'text' | 'document' | 'html';
  alternatives?: number;
}

/** A model set: each model a language pair; pairs no model holds go through the pivot. */
export class Catalog {
  static load(models: Array<ModelSource | { name: string; model: ModelSource }>, options?: CatalogOptions): Promise<Catalog>;
  readonly languages: string[];
  targets(from: string): string[];
  route(from: string, to: string): string[];
  translate(texts: string, from: string, to: string, options?: CatalogTranslateOptions): string;
  translate(texts: string[], from: string, to: string, options?: CatalogTranslateOptions): string[];
  translateBatch(texts: string, from: string, to: string, options?: CatalogTranslateOptions): CatalogResult;
  translateBatch(texts: string[], from: string, to: string, options?: CatalogTranslateOptions): CatalogResult[];
  detectLanguage(text: string): Array<{ language: string; confidence: number }>;
  free(): void;
}
