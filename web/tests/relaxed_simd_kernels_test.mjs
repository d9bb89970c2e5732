// The relaxed SIMD int8 kernels (edgemt-relaxed-simd.wasm, from
// runtime/src/ops/relaxed_simd_kernels.wat) against their contract
// (ops/relaxed_simd_product.h), computed here in JavaScript: random shapes,
// weights over the whole int8 range, activations over 0..127 with both ends
// forced in, row strides wider than a row, and the bytes around each output
// untouched. Node.js 20 runs relaxed SIMD behind a flag:
//
//   node --experimental-wasm-relaxed-simd web/tests/relaxed_simd_kernels_test.mjs --package build-wasm/web/package
//
// Exit status 0: passed; 1: failed; 77: this engine has no relaxed SIMD (skipped).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { argument } from './arguments.mjs';

const bytes = readFileSync(join(argument('--package'), 'edgemt-relaxed-simd.wasm'));
if (!WebAssembly.validate(bytes)) {
  console.error('SKIP: this engine has no relaxed SIMD (Node.js 20: --experimental-wasm-relaxed-simd)');
  process.exit(77);
}
const memory = new WebAssembly.Memory({ initial: 64 });
const { instance } = await WebAssembly.instantiate(bytes, { env: { memory } });
const { rows4, row1 } = instance.exports;
const heap = memory.buffer;

let seed = 12345;
function random(n) {  // a deterministic LCG: the failures repeat
  seed = (seed * 1103515245 + 12345) >>> 0;
  return seed % n;
}

const TILE = 8, BLOCK = 4, SENTINEL = 0x5a5a5a5a;
let failures = 0, checked = 0;

function check(rows, kQuads, tiles, xStride, yStride) {
  const k = kQuads * BLOCK, columns = tiles * TILE;
  const w = new Int8Array(heap, 0, columns * k);
  for (let i = 0; i < w.length; i++) w[i] = random(256) - 128;
  const xAt = 1 << 20, yAt = 2 << 20;
  const x = new Uint8Array(heap, xAt, rows * xStride);
  for (let i = 0; i < x.length; i++) x[i] = random(128);
  x[0] = 127; x[k - 1] = 0;
  const y = new Int32Array(heap, yAt, (rows * yStride) / 4 + 16);
  y.fill(SENTINEL);
  if (rows === 4) rows4(0, xAt, xStride, yAt, yStride, kQuads, tiles);
  else row1(0, xAt, yAt, kQuads, tiles);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) {
      // The tile layout: tile, block of 4 inputs, column in the tile, input in the block.
      const tile = Math.floor(c / TILE), inTile = c % TILE;
      let sum = 0;
      for (let q = 0; q < kQuads; q++) {
        for (let j = 0; j < BLOCK; j++) sum += w[((tile * kQuads + q) * TILE + inTile) * BLOCK + j] * x[r * xStride + q * BLOCK + j];
      }
      const got = y[(r * yStride) / 4 + c];
      checked++;
      if (got !== sum && failures++ < 10) console.error(`rows ${rows}, k ${k}, ${columns} columns: y[${r}][${c}] = ${got}, not ${sum}`);
    }
    for (let c = columns; c < yStride / 4; c++) {
      if (y[(r * yStride) / 4 + c] !== SENTINEL && failures++ < 10) console.error(`rows ${rows}: wrote past column ${columns} of row ${r}`);
    }
  }
}

for (let trial = 0; trial < 40; trial++) {
  const kQuads = 1 + random(160), tiles = 1 + random(12);
  const k = kQuads * BLOCK, columns = tiles * TILE;
  check(1, kQuads, tiles, k, columns * 4 + 32);
  check(4, kQuads, tiles, k + 4 * random(3), columns * 4 + 4 * random(9));
}
// Extremes: every weight -128 or 127, every activation 127 (pairs of 16 bits must not saturate).
for (const value of [-128, 127]) {
  const kQuads = 512, tiles = 2, k = kQuads * BLOCK;
  new Int8Array(heap, 0, tiles * TILE * k).fill(value);
  const x = new Uint8Array(heap, 1 << 20, 4 * k).fill(127);
  const y = new Int32Array(heap, 2 << 20, 4 * tiles * TILE);
  rows4(0, 1 << 20, k, 2 << 20, tiles * TILE * 4, kQuads, tiles);
  for (let i = 0; i < y.length; i++) {
    checked++;
    if (y[i] !== value * 127 * k && failures++ < 10) console.error(`extreme ${value}: ${y[i]}, not ${value * 127 * k}`);
  }
  void x;
}
if (failures > 0) {
  console.error(`${failures} of ${checked} sums wrong`);
  process.exit(1);
}
console.log(`${checked} sums equal to the contract's`);
