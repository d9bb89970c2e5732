// A minimal Chrome DevTools protocol client over --remote-debugging-pipe:
// Chromium reads commands from its fd 3 and writes answers and events to its
// fd 4, each a JSON message ended by a NUL byte. No WebSocket, no npm.
//
//   const browser = launchChromium();
//   const sessionId = await browser.openPage();
//   browser.on('event', ({ method, params, sessionId }) => ...);
//   await browser.send('Page.navigate', { url }, sessionId);
//   await browser.close();
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM = '/usr/bin/chromium';

class ChromiumPipe extends EventEmitter {
  #child;
  #profile;
  #timeoutMs;
  #nextId = 0;
  #pending = new Map();  // id -> { method, resolve, reject, timer }
  #received = [];        // chunks of a message not yet ended by its NUL
  #stderr = '';          // Chromium's last words, for errors
  #ended = null;         // why Chromium is gone, once it is

  constructor(executable, timeoutMs) {
    super();
    this.#timeoutMs = timeoutMs;
    this.#profile = mkdtempSync(join(tmpdir(), 'edgemt-chromium-'));
    this.#child = spawn(executable, [
      '--headless=new', '--remote-debugging-pipe', '--no-sandbox', '--disable-gpu', '--no-first-run',
      '--no-default-browser-check', `--user-data-dir=${this.#profile}`,
      // Shared memory in the temp dir: a container or chroot may have no /dev/shm.
      '--disable-dev-shm-usage', 'about:blank',
    ], { stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'] });
    this.#child.stdout.resume();
    this.#child.stderr.on('data', (chunk) => { this.#stderr = (this.#stderr + chunk).slice(-4000); });
    this.#child.stdio[3].on('error', () => {});  // a dead Chromium: the 'exit' handler fails what waits
    this.#child.stdio[4].on('data', (chunk) => this.#receive(chunk));
    this.#child.on('error', (error) => this.#end(`cannot start ${executable}: ${error.message}`));
    this.#child.on('exit', (code, signal) => {
      const lastWords = this.#stderr.trim().split('\n').pop();
      this.#end(`chromium exited (${signal ?? code})${lastWords ? `: ${lastWords}` : ''}`);
    });
  }

  #end(reason) {
    this.#ended = reason;
    for (const { method, reject, timer } of this.#pending.values()) {
      clearTimeout(timer);
      reject(new Error(`${method}: ${reason}`));
    }
    this.#pending.clear();
  }

  #receive(chunk) {
    let start = 0;
    for (let end = chunk.indexOf(0); end >= 0; start = end + 1, end = chunk.indexOf(0, start)) {
      this.#received.push(chunk.subarray(start, end));
      const message = JSON.parse(Buffer.concat(this.#received).toString('utf8'));
      this.#received = [];
      this.#dispatch(message);
    }
    if (start < chunk.length) this.#received.push(chunk.subarray(start));
  }

  #dispatch(message) {
    if (message.id === undefined) {
      this.emit('event', message);
      return;
    }
    const pending = this.#pending.get(message.id);
    if (pending === undefined) return;  // answered after its timeout
    this.#pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error) pending.reject(new Error(`${pending.method}: ${message.error.message}`));
    else pending.resolve(message.result);
  }

  /** A command's result; rejects on a protocol error or after timeoutMs. */
  send(method, params = {}, sessionId = undefined, timeoutMs = this.#timeoutMs) {
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      if (this.#ended !== null) {
        reject(new Error(`${method}: ${this.#ended}`));
        return;
      }
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${method}: no answer in ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { method, resolve, reject, timer });
      this.#child.stdio[3].write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
    });
  }

  /** The params of the next `method` event of sessionId; call it before what causes the event. */
  waitForEvent(method, sessionId, timeoutMs = this.#timeoutMs) {
    return new Promise((resolve, reject) => {
      const listener = (message) => {
        if (message.method !== method || message.sessionId !== sessionId) return;
        clearTimeout(timer);
        this.off('event', listener);
        resolve(message.params);
      };
      const timer = setTimeout(() => {
        this.off('event', listener);
        reject(new Error(`${method}: no event in ${timeoutMs} ms`));
      }, timeoutMs);
      this.on('event', listener);
    });
  }

  /** A new tab at about:blank; returns its session id (flattened: commands carry it). */
  async openPage() {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    return sessionId;
  }

  /** Ends Chromium (Browser.close, else a kill) and removes its profile folder. */
  async close() {
    const child = this.#child;
    if (this.#ended === null) {
      // 'close': Chromium and the children holding its stderr are gone, so
      // nothing writes to the profile any more.
      const closed = new Promise((resolve) => child.once('close', resolve));
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
      this.send('Browser.close', {}, undefined, 5000).catch(() => child.kill('SIGKILL'));
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 15000).unref())]);
      clearTimeout(kill);
    }
    for (const stream of child.stdio) stream?.destroy();
    rmSync(this.#profile, { recursive: true, force: true, maxRetries: 5 });
  }
}

/** Starts headless Chromium; every command times out after timeoutMs unless given its own. */
export function launchChromium({ executable = CHROMIUM, timeoutMs = 60000 } = {}) {
  return new ChromiumPipe(executable, timeoutMs);
}
