// The example page's translator. Translation is synchronous, so it runs in
// this worker and the page stays responsive. Messages (load, document,
// lines, bench): {id, type, ...} in;
// {id, type: 'result', value}, {id, type: 'error', name, message} and, for
// documents, {id, type: 'piece', piece} out.
let edgemt = null;      // the package's edgemt.mjs, imported from the URL the page sends
let translator = null;

// Threads: the page's ?threads=, else, in the threaded build on a
// cross-origin-isolated page, up to 4 of the cores (a sentence at a time
// gains little from more); else 1.
function threadsFor(asked) {
  if (asked != null) return asked;
  return edgemt.threaded && self.crossOriginIsolated ? Math.min(navigator.hardwareConcurrency || 1, 4) : 1;
}

async function load({ packageUrl, model, threads, relaxedSimd }) {
  if (edgemt == null) {
    const url = new URL('edgemt.mjs', packageUrl).href;
    try {
      edgemt = await import(url);
    } catch (error) {
      throw new Error(`cannot load the EdgeMT package from ${packageUrl} (?package=): ${error.message}`);
    }
  }
  // The old model goes first: two at once would need the memory (and, in
  // the threaded build, the workers) of both.
  translator?.free();
  translator = null;
  const start = performance.now();
  translator = await edgemt.Translator.load(model, { maxBatchSize: 16, threads: threadsFor(threads), relaxedSimd });
  const loadMs = performance.now() - start;
  return { ...translator.info, loadMs, kernels: edgemt.kernels() };
}

// Times translating lines `batch` at a time (the calls alone): {ms, tokens};
// after translating the first ten once untimed, as the browser optimizes
// the WebAssembly code that runs most only after it has run a while.
function bench({ lines, batch }) {
  loaded().translate(lines.slice(0, 10));
  let tokens = 0;
  const start = performance.now();
  for (let i = 0; i < lines.length; i += batch) {
    for (const result of loaded().translateBatch(lines.slice(i, i + batch))) tokens += result.hypotheses[0].ids.length;
  }
  return { ms: performance.now() - start, tokens };
}

function loaded() {
  if (translator == null) throw new Error('no model is loaded');
  return translator;
}

async function handle(message) {
  switch (message.type) {
    case 'load':
      return load(message);
    case 'document': {
      const onPiece = (piece) => { postMessage({ id: message.id, type: 'piece', piece }); };
      return loaded().translateDocument(message.text, { onPiece });
    }
    case 'lines':
      return loaded().translate(message.lines);
    case 'bench':
      return bench(message);
    default:
      throw new Error(`unknown request ${message.type}`);
  }
}

// One request at a time, in order: a translation must not start while a
// model is still loading (load awaits the runtime).
let queue = Promise.resolve();
addEventListener('message', ({ data }) => {
  queue = queue.then(async () => {
    try {
      postMessage({ id: data.id, type: 'result', value: await handle(data) });
    } catch (error) {
      postMessage({ id: data.id, type: 'error', name: error.name, message: error.message });
    }
  });
});
