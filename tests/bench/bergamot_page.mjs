// Bergamot's WebAssembly build in headless Chromium, for
// tests/bench/bergamot_bench.py: serves tests/bench/bergamot_page (the page
// and its worker), the kit's npm package and the model's folder on
// 127.0.0.1, opens the page over the DevTools protocol and has its worker
// translate the first --count sources one at a time (int8shiftAlphaAll,
// after --warmup untimed). Prints one JSON line: instantiateMs, modelMs,
// firstMs, translateMs, and writes the translations to --outputs.
//
//   node tests/bench/bergamot_page.mjs --package KIT/bergamot --model-dir DIR --model FILE
//        --vocab FILE [--shortlist FILE] --sources FILE --count N [--warmup 10] --outputs OUT
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM, launchChromium } from '../../web/tests/cdp_pipe.mjs';
import { serve } from '../../web/tests/static_server.mjs';
import { argument } from '../../web/tests/arguments.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const count = Number(argument('--count'));
const sources = readFileSync(argument('--sources'), 'utf8').split('\n').slice(0, count);
const config = {
  model: `/model/${argument('--model')}`,
  shortlist: `/model/${argument('--shortlist')}`,
  vocabs: [`/model/${argument('--vocab')}`],
  gemm: argument('--gemm', 'int8shiftAlphaAll'),
  warmup: Number(argument('--warmup', '10')),
  sources,
};
if (!existsSync(CHROMIUM)) {
  console.error(`SKIP: ${CHROMIUM} is missing (Debian's chromium package)`);
  process.exit(77);
}
const server = await serve({ '/': join(HERE, 'bergamot_page'), '/bergamot/': argument('--package'),
                             '/model/': argument('--model-dir') });
const browser = launchChromium({ timeoutMs: 600000 });
let failure = null;
try {
  const sessionId = await browser.openPage();
  await browser.send('Page.enable', {}, sessionId);
  await Promise.all([
    browser.send('Page.navigate', { url: `${server.url}/index.html` }, sessionId),
    browser.waitForEvent('Page.loadEventFired', sessionId),
  ]);
  const { result, exceptionDetails } = await browser.send(
    'Runtime.evaluate', { expression: `window.bergamotPage.run(${JSON.stringify(config)})`, awaitPromise: true,
                          returnByValue: true }, sessionId, 600000);
  if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
  const { outputs, ...timing } = result.value;
  writeFileSync(argument('--outputs'), outputs.map((line) => `${line}\n`).join(''));
  console.log(JSON.stringify({ ...timing, sentences: outputs.length }));
} catch (error) {
  failure = error;
} finally {
  await browser.close().catch(() => {});
  await server.close();
}
if (failure) {
  console.error(`bergamot_page: ${failure.message}`);
  process.exitCode = 1;
}
