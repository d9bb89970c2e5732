// The npm package as a user gets it: `npm pack` of the package folder, the
// tarball installed (offline) into an empty project, and `import 'edgemt'`
// there translating with the example model. Catches a file missing from
// package.json's "files", or an "exports" map that does not resolve.
//
//   EDGEMT_WEB_PACKAGE=build-wasm/web/package node web/tests/npm_package_test.mjs
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(import.meta.url), '../../..');
const packageDir = resolve(process.env.EDGEMT_WEB_PACKAGE ?? `${repo}/build-wasm/web/package`);
const work = mkdtempSync(join(tmpdir(), 'edgemt-npm-'));
const npm = (args, cwd) => execFileSync('npm', [...args, '--offline', '--no-audit', '--no-fund', '--loglevel=error'],
                                        { cwd, encoding: 'utf8' });
try {
  const tarball = npm(['pack', packageDir, '--pack-destination', work], work).trim().split('\n').pop();
  const project = join(work, 'project');
  execFileSync('mkdir', [project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module' }));
  npm(['install', join(work, tarball)], project);
  writeFileSync(join(project, 'main.mjs'), `
    import { Translator, EdgeMTError } from 'edgemt';
    const translator = await Translator.load(process.argv[2]);
    console.log(translator.translate(['A dog runs in the park.'])[0]);
    translator.free();
    console.log(typeof EdgeMTError);
  `);
  const out = execFileSync('node', ['main.mjs', `${repo}/models/multi30k-ende.int8.edgemt`], { cwd: project, encoding: 'utf8' });
  const [translation, errorType] = out.trim().split('\n');
  assert.match(translation, /Hund/);
  assert.equal(errorType, 'function');
  console.log(`npm package ${tarball}: installed and translated "${translation}"`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
