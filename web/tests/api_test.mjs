// The JavaScript API (web/js/edgemt.mjs) in Node.js, on the example int8
// model of the repository: what it returns, and that every refusal is an
// EdgeMTError with the runtime's message that leaves the module usable.
//
//   EDGEMT_WEB_PACKAGE=build-wasm/web/package node --test web/tests/api_test.mjs
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = resolve(fileURLToPath(import.meta.url), '../../..');
const packageDir = resolve(process.env.EDGEMT_WEB_PACKAGE ?? `${repo}/build-wasm/web/package`);
const modelPath = `${repo}/models/multi30k-ende.int8.edgemt`;
const { Translator, EdgeMTError, loadRuntime, threaded } = await import(pathToFileURL(`${packageDir}/edgemt.mjs`).href);

let translator;
before(async () => { translator = await Translator.load(modelPath, { maxBeamSize: 4 }); });
after(() => translator.free());

test('info names the model and the limits', () => {
  const info = translator.info;
  assert.equal(info.sourceLanguage, 'en');
  assert.equal(info.targetLanguage, 'de');
  assert.equal(info.hasTokenizer, true);
  assert.equal(info.int8, true);
  assert.equal(info.maxBeamSize, 4);
  assert.equal(info.maxBatchSize, 16);
  assert.ok(info.fileBytes > 1e6);
});

test('translate gives one German line per source; a blank source gives ""', () => {
  const out = translator.translate(['A dog runs in the park.', '', 'Two men are playing football.']);
  assert.equal(out.length, 3);
  assert.match(out[0], /Hund/);
  assert.equal(out[1], '');
  assert.match(out[2], /Männer/);
});

test('the same source gives the same translation alone and in a batch', () => {
  const sources = ['A woman is reading a book.', 'A little girl climbs into a wooden playhouse.', 'A man sleeps.'];
  const together = translator.translate(sources);
  assert.deepEqual(sources.map((s) => translator.translate([s])[0]), together);
});

test('a paragraph gives every sentence, as translateDocument; a string is one text', () => {
  const paragraph = 'A dog runs through the snow. Two women are sitting on a bench.';
  const alone = translator.translate(['A dog runs through the snow.', 'Two women are sitting on a bench.']);
  const expected = `${alone[0]} ${alone[1]}`;
  assert.deepEqual(translator.translate([paragraph]), [expected]);
  assert.equal(translator.translate(paragraph), expected);
  assert.equal(translator.translateDocument(paragraph).text, expected);
  assert.equal(translator.translateBatch(paragraph).hypotheses[0].text, expected);
  assert.equal(translator.translateStreaming(paragraph, () => true), expected);
  const whole = translator.translate(paragraph, { splitSentences: false });
  assert.notEqual(whole, expected);
  const listed = translator.translateBatch(paragraph, { beamSize: 2, numHypotheses: 2 });
  assert.match(listed.warning, /holds 2 sentences, translated as one/);
});

test('n-best: numHypotheses hypotheses, best first, with ids and scores', () => {
  const [result] = translator.translateBatch(['A dog runs.'], { beamSize: 4, numHypotheses: 3 });
  assert.equal(result.hypotheses.length, 3);
  const scores = result.hypotheses.map((h) => h.score);
  assert.deepEqual([...scores].sort((a, b) => b - a), scores);
  assert.notEqual(result.hypotheses[0].text, result.hypotheses[1].text);
  for (const h of result.hypotheses) {
    assert.ok(h.ids.length > 0 && h.ids.every(Number.isInteger));
    assert.equal(h.tokenLogProbs.length, h.ids.length + (h.endedWithEos ? 1 : 0));
    assert.ok(h.confidence > 0 && h.confidence <= 1);
  }
});

test('greedy scores only when asked', () => {
  const [plain] = translator.translateBatch(['A dog runs.']);
  assert.equal(plain.hypotheses[0].tokenLogProbs, undefined);
  const [scored] = translator.translateBatch(['A dog runs.'], { returnScores: true });
  assert.ok(scored.hypotheses[0].tokenLogProbs.every((p) => p <= 0));
});

test('streaming: the pieces make the translation, and false stops it', () => {
  const pieces = [];
  const text = translator.translateStreaming('A woman is reading a book.', (piece) => { pieces.push(piece); });
  assert.ok(pieces.length > 2);
  assert.equal(pieces.join(''), text);
  assert.equal(text, translator.translate(['A woman is reading a book.'])[0]);
  let calls = 0;
  translator.translateStreaming('A woman is reading a book.', () => { calls += 1; return false; });
  assert.equal(calls, 1);
});

test('documents keep their lines; HTML keeps its markup', () => {
  const doc = translator.translateDocument('A dog runs.\n\nA cat sleeps. A man eats.\n');
  assert.equal(doc.sentences, 3);
  assert.equal(doc.failed, 0);
  assert.match(doc.text, /^[^\n]+\n\n[^\n]+\n$/);
  const pieces = [];
  const streamed = translator.translateDocument('A dog runs.\n\nA cat sleeps.', { onPiece: (p) => { pieces.push(p); } });
  assert.equal(pieces.join(''), streamed.text);
  const html = translator.translateHtml('<p>A <b>dog</b> runs.</p><script>var a = "A dog";</script>');
  assert.match(html.text, /^<p>.*<b>Hund<\/b>.*<\/p><script>var a = "A dog";<\/script>$/);
});

test('odd text: lone surrogates, control characters, long lines', () => {
  const odd = ['\uD800 A dog \u0000 runs.', '\u200B\u202E', 'dog '.repeat(2000)];
  const out = translator.translate(odd);
  assert.equal(out.length, 3);
  const [long] = translator.translateBatch([odd[2]]);
  assert.match(long.warning, /./);   // cut to the translator's limit, and said so
});

test('bad options and bad arguments are EdgeMTErrors', () => {
  assert.throws(() => translator.translate(['A dog.'], { beamSize: 5 }), (e) => e instanceof EdgeMTError && /beam/.test(e.message));
  // A string is one text (as in Python), never a sequence of characters; other non-arrays are refused.
  assert.equal(translator.translate('A dog.'), translator.translate(['A dog.'])[0]);
  assert.throws(() => translator.translate(5), EdgeMTError);
  assert.throws(() => translator.translate([1]), EdgeMTError);
  assert.throws(() => translator.translateStreaming('A dog.', null), EdgeMTError);
  assert.deepEqual(translator.translate(['A dog runs.']).length, 1);  // still usable
});

test('this single-threaded build says so, and refuses more threads clearly', async () => {
  assert.equal(threaded, false);
  assert.equal(translator.info.threads, 1);
  await assert.rejects(Translator.load(modelPath, { threads: 2 }),
                       (error) => error instanceof EdgeMTError && /single-threaded build/.test(error.message));
  await assert.rejects(Translator.load(modelPath, { threads: 0 }),
                       (error) => error instanceof EdgeMTError && /threads must be at least 1/.test(error.message));
});

test('bytes that are not a model, and a truncated model, are refused clearly', async () => {
  await assert.rejects(Translator.load(new Uint8Array(1000)), (e) => e instanceof EdgeMTError && /EDMT|model/.test(e.message));
  const { readFile } = await import('node:fs/promises');
  const bytes = await readFile(modelPath);
  await assert.rejects(Translator.load(bytes.subarray(0, bytes.length >> 1)), EdgeMTError);
  await assert.rejects(Translator.load(42), EdgeMTError);
  await assert.rejects(Translator.load(`${repo}/no-such-model.edgemt`), /ENOENT/);
});

test('a model larger than the WebAssembly memory is refused, and a later load works', async () => {
  const huge = new Uint8Array(2 ** 31 + 2 ** 20);   // beyond wasm32's 2 GB: never copied
  await assert.rejects(Translator.load(huge), (e) => e instanceof EdgeMTError && /does not fit/.test(e.message));
  const again = await Translator.load(modelPath);
  assert.match(again.translate(['A dog runs.'])[0], /Hund/);
  again.free();
});

test('after free(), every call is an EdgeMTError; free() twice is harmless', async () => {
  const t = await Translator.load(modelPath);
  t.free();
  t.free();
  for (const call of [() => t.translate(['A dog.']), () => t.translateBatch(['A dog.']),
                      () => t.translateStreaming('A dog.', () => {}), () => t.translateDocument('A dog.'),
                      () => t.translateHtml('<p>A dog.</p>')]) {
    assert.throws(call, (e) => e instanceof EdgeMTError && /freed/.test(e.message));
  }
});

test('the runtime loads once; many models load and free without growing the memory', async () => {
  const runtime = await loadRuntime();
  assert.equal(await loadRuntime(), runtime);
  const bytes = runtime.HEAPU8.length;
  for (let i = 0; i < 5; ++i) (await Translator.load(modelPath)).free();
  assert.equal(runtime.HEAPU8.length, bytes);
});
