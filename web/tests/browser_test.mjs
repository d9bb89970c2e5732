// The example page (examples/web) in headless Chromium, driven over the
// DevTools protocol (cdp_pipe.mjs). The page loads --model with ?text= set
// to the first source, then translates the first --count sources in its
// worker; at least 98% must be the native CLI's translations (--expected),
// with no console error or failed request, and nothing fetched once the
// model is loaded. A second page gets a file that is not a model: the load
// must fail with the runtime's EdgeMTError, shown in the page, and nothing
// in the console.
//
// With --threads N (the threaded build): the pages are served cross-origin
// isolated and load the model with ?threads=N, which the loaded translator
// must report; one thread more than the workers the module started must be
// refused clearly; and the same page served without isolation must refuse
// to start, saying why, in the page.
//
//   node web/tests/browser_test.mjs --package build-wasm/web/package --page-dir examples/web
//        --model FILE --sources FILE --expected FILE [--count 50] --screenshot OUT.png
//        [--json OUT.json] [--outputs OUT.txt] [--threads N] [--no-relaxed-simd]
//
// --no-relaxed-simd loads the page with ?relaxedSimd=0 (XNNPACK's SIMD128
// int8 kernels); the summary's kernels says which the page ran.
//
// With --bench N instead of --expected (tests/bench/wasm_bench.py): the page
// loads the model and translates the first N sources one at a time (or
// --bench-batch at a time); the
// summary has bench {ms, tokens}, loadMs (Translator.load in the worker)
// and firstTranslationMs, and console errors still fail it.
//
// Prints a one-line JSON summary. Exit status 0: passed; 1: failed; 77: no
// Chromium (skipped).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { CHROMIUM, launchChromium } from './cdp_pipe.mjs';
import { serve } from './static_server.mjs';
import { argument } from './arguments.mjs';

const STEP_MS = 120000;  // a page, a model load, a screenshot; translating adds a second a line
const MIN_SHARE = 0.98;

function firstLines(path, count) {
  const lines = readFileSync(path, 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length < count) throw new Error(`${path} has ${lines.length} lines, fewer than --count ${count}`);
  return lines.slice(0, count);
}

// Opens url in a new tab and collects what its console would show as errors,
// from the page and from its workers: console.error and console.assert,
// uncaught exceptions, error log entries, failed requests and HTTP errors.
async function openPage(browser, url) {
  const sessionId = await browser.openPage();
  const sessions = new Set([sessionId]);
  const errors = [];
  const requestUrls = new Map();
  const watch = async (session, isWorker) => {
    await Promise.all(['Runtime.enable', 'Log.enable', 'Network.enable'].map((m) => browser.send(m, {}, session)));
    if (isWorker) {
      await browser.send('Runtime.runIfWaitingForDebugger', {}, session);
    } else {
      // Workers wait for the debugger, so their first messages are not missed.
      await browser.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true },
                         session);
    }
  };
  browser.on('event', ({ method, params, sessionId: from }) => {
    if (!sessions.has(from)) return;
    if (method === 'Target.attachedToTarget') {
      sessions.add(params.sessionId);
      watch(params.sessionId, true).catch((error) => {
        if (!closing) errors.push(`watching a worker: ${error.message}`);
      });
    } else if (method === 'Runtime.consoleAPICalled' && (params.type === 'error' || params.type === 'assert')) {
      errors.push(`console.${params.type}: ${params.args.map((a) => a.value ?? a.description).join(' ')}`);
    } else if (method === 'Runtime.exceptionThrown') {
      errors.push(`uncaught: ${params.exceptionDetails.exception?.description ?? params.exceptionDetails.text}`);
    } else if (method === 'Log.entryAdded' && params.entry.level === 'error') {
      errors.push(`${params.entry.source}: ${params.entry.text} ${params.entry.url ?? ''}`.trim());
    } else if (method === 'Network.requestWillBeSent') {
      requestUrls.set(params.requestId, params.request.url);
    } else if (method === 'Network.responseReceived' && params.response.status >= 400) {
      errors.push(`HTTP ${params.response.status}: ${params.response.url}`);
    } else if (method === 'Network.loadingFailed') {
      errors.push(`request failed (${params.errorText}): ${requestUrls.get(params.requestId)}`);
    }
  });
  await watch(sessionId, false);
  await browser.send('Page.enable', {}, sessionId);
  const [{ errorText }] = await Promise.all([
    browser.send('Page.navigate', { url }, sessionId),
    browser.waitForEvent('Page.loadEventFired', sessionId),
  ]);
  if (errorText) throw new Error(`cannot open ${url}: ${errorText}`);
  return { sessionId, errors };
}

// The value of a page expression (promises awaited); throws what it throws.
async function evaluate(browser, sessionId, expression, timeoutMs = STEP_MS) {
  const { result, exceptionDetails } = await browser.send(
    'Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId, timeoutMs);
  if (exceptionDetails) {
    throw new Error(`the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  }
  return result.value;
}

const benchCount = Number(argument('--bench', '0'));
const count = benchCount || Number(argument('--count', '50'));
const packageDir = argument('--package');
const pageDir = argument('--page-dir');
const model = argument('--model');
const sources = firstLines(argument('--sources'), count);
const expected = benchCount ? null : firstLines(argument('--expected'), count);
const screenshot = argument('--screenshot');
const jsonPath = argument('--json', '');
const outputsPath = argument('--outputs', '');
const benchBatch = Number(argument('--bench-batch', '1'));
const threads = Number(argument('--threads', '0'));  // 0: the build's default (the single-threaded build)
const relaxedSimd = !process.argv.includes('--no-relaxed-simd');

// The page's query for the model: ?threads= only when asked (--threads, or pageThreads).
function modelQuery(pageThreads = threads) {
  const query = { model: `/models/${basename(model)}`, package: '/edgemt/', text: sources[0],
                  ...(relaxedSimd ? {} : { relaxedSimd: '0' }) };
  return new URLSearchParams(pageThreads ? { ...query, threads: String(pageThreads) } : query);
}

if (!existsSync(CHROMIUM)) {
  console.error(`SKIP: ${CHROMIUM} is missing (Debian's chromium package)`);
  process.exit(77);
}

const summary = { identical: 0, count, share: 0, firstTranslationMs: null, translateMs: null, consoleErrors: [] };
const failures = [];
const pages = [];  // [label, page]: whose console errors count
let closing = false;  // Chromium is being closed: a worker it was attaching to is gone, not an error

// The model's translations, the first one shown, the screenshot, offline.
async function checkTranslations(browser, server) {
  const page = await openPage(browser, `${server.url}/index.html?${modelQuery()}`);
  pages.push(['', page]);
  const info = await evaluate(browser, page.sessionId, 'window.edgemtPage.ready');
  summary.threads = info.threads;
  summary.kernels = info.kernels;
  if (threads && info.threads !== threads) failures.push(`the translator has ${info.threads} threads, not ${threads}`);
  const requestsWhenLoaded = server.requests.length;

  const { lines, ms } = await evaluate(browser, page.sessionId, `(async () => {
    const start = performance.now();
    const lines = await window.edgemtPage.translateLines(${JSON.stringify(sources)});
    return { lines, ms: performance.now() - start };
  })()`, STEP_MS + 1000 * count);
  if (outputsPath) writeFileSync(outputsPath, lines.map((line) => `${line}\n`).join(''));
  summary.identical = lines.filter((line, i) => line === expected[i]).length;
  summary.share = summary.identical / count;
  summary.translateMs = Math.round(ms);
  if (lines.length !== count) failures.push(`translateLines gave ${lines.length} lines for ${count}`);
  if (summary.share < MIN_SHARE) {
    failures.push(`${summary.identical} of ${count} translations are the native CLI's; at least ${MIN_SHARE * 100}% must be`);
  }

  // The ?text= translation was asked before translateLines, in the same worker: it is shown by now.
  const firstMs = await evaluate(browser, page.sessionId, 'window.edgemtPage.firstTranslationMs');
  if (typeof firstMs !== 'number') failures.push('the page showed no translation of ?text=');
  else summary.firstTranslationMs = Math.round(firstMs);

  const { data } = await browser.send('Page.captureScreenshot', { format: 'png' }, page.sessionId);
  writeFileSync(screenshot, Buffer.from(data, 'base64'));

  const shownError = await evaluate(browser, page.sessionId, "document.querySelector('#status.error')?.textContent");
  if (shownError !== undefined) failures.push(`the page shows an error: ${shownError}`);

  const later = server.requests.slice(requestsWhenLoaded);
  if (later.length > 0) failures.push(`the page fetched ${later.join(', ')} after the model was loaded`);
}

// Opens url, whose model load must fail: ready rejects with an EdgeMTError
// whose message matches `expected`, and the page shows that message. The
// message goes to summary[summaryKey]; a failure is named by `what`, and
// `ifLoaded` says what loading would have meant.
async function expectRefusal(browser, url, { what, summaryKey, expected, ifLoaded }) {
  const page = await openPage(browser, url);
  pages.push([`(${what}) `, page]);
  const outcome = await evaluate(browser, page.sessionId, `window.edgemtPage.ready.then(
    () => ({ loaded: true }),
    (error) => ({ name: error.name, message: error.message, shown: document.getElementById('status').textContent }))`);
  summary[summaryKey] = outcome.message;
  if (outcome.loaded) {
    failures.push(ifLoaded);
  } else if (outcome.name !== 'EdgeMTError' || !outcome.message || !expected.test(outcome.message)) {
    failures.push(`${what}: ready rejected with ${outcome.name} "${outcome.message}", not the EdgeMTError expected`);
  } else if (!outcome.shown.includes(outcome.message)) {
    failures.push(`${what}: the page shows "${outcome.shown}", not the error "${outcome.message}"`);
  }
}

// A file that is not a model: refused with the runtime's message.
async function checkBadModel(browser, server) {
  await expectRefusal(browser, `${server.url}/index.html?model=/bad/garbage.edgemt&package=/edgemt/`, {
    what: 'not a model', summaryKey: 'badModelError', expected: /./, ifLoaded: '1000 zero bytes loaded as a model',
  });
}

// The threaded build on a page that is not cross-origin isolated: refused, saying so.
async function checkNotIsolated(browser, plainServer) {
  await expectRefusal(browser, `${plainServer.url}/index.html?${modelQuery()}`, {
    what: 'not isolated', summaryKey: 'notIsolatedError', expected: /cross-origin-isolated/,
    ifLoaded: 'the threaded build loaded on a page that is not cross-origin isolated',
  });
}

// The threaded build asked for one thread more than it started workers for
// (one per core, at most 16): the load is refused with the runtime's
// message, and nothing hangs or crashes.
async function checkTooManyThreads(browser, server) {
  const probe = await openPage(browser, `${server.url}/index.html`);
  pages.push(['(probe) ', probe]);
  const cores = await evaluate(browser, probe.sessionId, 'navigator.hardwareConcurrency');
  const tooMany = Math.min(cores || 2, 16) + 1;
  await expectRefusal(browser, `${server.url}/index.html?${modelQuery(tooMany)}`, {
    what: `${tooMany} threads`, summaryKey: 'tooManyThreadsError', expected: /pool of \d+ threads/,
    ifLoaded: `${tooMany} threads loaded with ${cores} workers started`,
  });
}

// Speed: the model loaded by ?model= (and its ?text= shown), then the sources one at a time.
async function benchmark(browser, server) {
  const page = await openPage(browser, `${server.url}/index.html?${modelQuery()}`);
  pages.push(['', page]);
  const info = await evaluate(browser, page.sessionId, 'window.edgemtPage.ready');
  summary.loadMs = info.loadMs;
  summary.threads = info.threads;
  summary.kernels = info.kernels;
  summary.bench = await evaluate(browser, page.sessionId,
                                 `window.edgemtPage.benchmark(${JSON.stringify(sources)}, ${benchBatch})`, STEP_MS + 1000 * count);
  summary.firstTranslationMs = await evaluate(browser, page.sessionId, 'window.edgemtPage.firstTranslationMs');
  if (typeof summary.firstTranslationMs !== 'number') failures.push('the page showed no translation of ?text=');
  const { data } = await browser.send('Page.captureScreenshot', { format: 'png' }, page.sessionId);
  writeFileSync(screenshot, Buffer.from(data, 'base64'));
}

const garbage = mkdtempSync(join(tmpdir(), 'edgemt-not-a-model-'));
writeFileSync(join(garbage, 'garbage.edgemt'), Buffer.alloc(1000));
const routes = { '/': pageDir, '/edgemt/': packageDir, '/models/': dirname(model), '/bad/': garbage };
const server = await serve(routes, { isolated: threads > 0 });
const plainServer = threads > 0 && !benchCount ? await serve(routes) : null;
const browser = launchChromium({ timeoutMs: STEP_MS });
try {
  if (benchCount) {
    await benchmark(browser, server);
  } else {
    await checkTranslations(browser, server);
    await checkBadModel(browser, server);
    if (plainServer) {
      await checkTooManyThreads(browser, server);
      await checkNotIsolated(browser, plainServer);
    }
  }
} catch (error) {
  failures.push(error.message);
} finally {
  closing = true;
  await browser.close().catch((error) => failures.push(`closing Chromium: ${error.message}`));
  await server.close();
  await plainServer?.close();
  rmSync(garbage, { recursive: true, force: true });
}

summary.consoleErrors = pages.flatMap(([label, page]) => page.errors.map((error) => label + error));
if (summary.consoleErrors.length > 0) failures.push(`${summary.consoleErrors.length} console errors`);
summary.failures = failures;
const line = JSON.stringify(summary);
console.log(line);
if (jsonPath) writeFileSync(jsonPath, `${line}\n`);
for (const failure of failures) console.error(`FAIL: ${failure}`);
process.exitCode = failures.length > 0 ? 1 : 0;
