// The example page: loads a model (a file the user picks, or ?model=URL),
// hands it to the worker (worker.mjs) and translates the text as it is typed,
// showing the translation as it streams in. ?package=URL is the npm package
// folder (default ./edgemt/); ?text=... is translated as soon as the model
// is loaded. window.edgemtPage is the hook web/tests/browser_test.mjs uses.
const params = new URLSearchParams(location.search);
const packageUrl = new URL(params.get('package') ?? './edgemt/', location.href);
// ?threads=N: the translator's threads (the threaded build only; default: worker.mjs decides).
const threads = params.has('threads') ? Number(params.get('threads')) : undefined;
// ?relaxedSimd=0: XNNPACK's SIMD128 int8 kernels even where the browser runs relaxed SIMD.
const relaxedSimd = params.get('relaxedSimd') !== '0';
if (!packageUrl.pathname.endsWith('/')) packageUrl.pathname += '/';

const status = document.getElementById('status');
const source = document.getElementById('source');
const target = document.getElementById('target');
const picker = document.getElementById('model-file');

function showStatus(text, isError = false) {
  status.textContent = text;
  status.classList.toggle('error', isError);
}

// Requests to the worker, answered by id; a rejection carries the worker's
// error name (EdgeMTError for what the runtime refused) and message.
const worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
const calls = new Map();
let nextId = 0;

function call(message, transfer = [], onPiece = null) {
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    calls.set(id, { resolve, reject, onPiece });
    worker.postMessage({ ...message, id }, transfer);
  });
}

worker.addEventListener('message', ({ data }) => {
  const pending = calls.get(data.id);
  if (pending === undefined) return;
  if (data.type === 'piece') {
    pending.onPiece?.(data.piece);
    return;
  }
  calls.delete(data.id);
  if (data.type === 'result') pending.resolve(data.value);
  else pending.reject(Object.assign(new Error(data.message), { name: data.name }));
});

// A worker that could not start (worker.mjs not served) or threw: every
// waiting request fails, and the page says why.
worker.addEventListener('error', (event) => {
  event.preventDefault();
  const error = new Error(event.message || 'the translation worker (worker.mjs) could not start');
  for (const pending of calls.values()) pending.reject(error);
  calls.clear();
  showStatus(error.message, true);
});

// Translation as you type: one document translation in the worker at a
// time; text typed meanwhile marks it stale (its pieces are dropped) and is
// translated when it ends.
let modelLoaded = false;
let modelSummary = '';  // the status line while all is well
let busy = false;
let stale = false;
let firstTranslationMs = null;

async function translate() {
  if (!modelLoaded) return;
  if (busy) {
    stale = true;
    return;
  }
  busy = true;
  stale = false;
  let first = true;
  const onPiece = (piece) => {
    if (stale) return;
    if (first) target.textContent = '';
    first = false;
    target.append(piece);
  };
  try {
    const result = await call({ type: 'document', text: source.value }, [], onPiece);
    if (!stale) {
      target.textContent = result.text;
      if (result.failed > 0) {
        showStatus(`${result.failed} of ${result.sentences} sentences were left untranslated: ${result.firstFailure}`, true);
      } else {
        showStatus(modelSummary);
      }
      if (firstTranslationMs === null && result.text !== '') firstTranslationMs = performance.now();
    }
  } catch (error) {
    showStatus(`Translation failed: ${error.message}`, true);
  } finally {
    busy = false;
  }
  if (stale) translate();
}

let typingTimer;
source.addEventListener('input', () => {
  clearTimeout(typingTimer);
  typingTimer = setTimeout(translate, 250);
});

function describe(info, name) {
  const megabytes = (info.fileBytes / 1e6).toFixed(1);
  return `${name}: ${info.sourceLanguage} → ${info.targetLanguage}, ${megabytes} MB` +
         `${info.int8 ? ', int8' : ''}${info.threads > 1 ? `, ${info.threads} threads` : ''}. ` +
         'Translation runs offline, in this page.';
}

// Loads a model's bytes (a promise of an ArrayBuffer) into the worker; the
// outcome is shown in the page, and returned for edgemtPage.ready.
async function loadModel(bytes, name) {
  showStatus(`Loading ${name}…`);
  try {
    const buffer = await bytes;
    const info = await call({ type: 'load', packageUrl: packageUrl.href, model: buffer, threads, relaxedSimd }, [buffer]);
    modelLoaded = true;
    modelSummary = describe(info, name);
    showStatus(modelSummary);
    source.disabled = false;
    translate();
    return info;
  } catch (error) {
    showStatus(`Could not load ${name}: ${error.message}`, true);
    throw error;
  }
}

async function fetchModel(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot fetch ${url}: HTTP ${response.status}`);
  return response.arrayBuffer();
}

// ready settles with the first model load, from ?model= or the picker.
let settleReady;
const ready = new Promise((resolve, reject) => { settleReady = { resolve, reject }; });
// loadModel has shown a failure in the page already: an unawaited ready must
// not also be reported as an uncaught rejection.
ready.catch(() => {});

picker.addEventListener('change', () => {
  const file = picker.files[0];
  if (file) loadModel(file.arrayBuffer(), file.name).then(settleReady.resolve, settleReady.reject);
});

source.value = params.get('text') ?? '';
const modelUrl = params.get('model');
if (modelUrl !== null) {
  const url = new URL(modelUrl, location.href);
  const name = decodeURIComponent(url.pathname.split('/').pop());
  loadModel(fetchModel(url), name).then(settleReady.resolve, settleReady.reject);
}

window.edgemtPage = {
  ready,
  /** Each line translated with translator.translate in the worker, as one batch. */
  translateLines: (lines) => ready.then(() => call({ type: 'lines', lines })),
  /** ms from navigation start to the first translation shown (complete), or null. */
  get firstTranslationMs() { return firstTranslationMs; },
  /** For tests/bench/wasm_bench.py: lines translated `batch` at a time in the worker, {ms, tokens}. */
  benchmark: (lines, batch) => ready.then(() => call({ type: 'bench', lines, batch })),
};
