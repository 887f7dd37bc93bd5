// nmt-serve's page in a real browser: node tests/serve_page.js URL SENTENCE [SCREENSHOT.png]
// Starts Debian's headless chromium (CHROMIUM, else chromium), drives it over the DevTools
// protocol on a pipe (--remote-debugging-pipe: no port, no npm packages), types SENTENCE
// into the text box, clicks Translate, waits for the answer and prints two lines: the
// translation shown, and the heatmaps drawn as "heatmaps: N WxH" (their count, the first's
// size in pixels). Exit 0, or 1 with one line on stderr (a timeout is 20 s).
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [url, sentence, shot] = process.argv.slice(2);
if (!url || sentence === undefined) {
  console.error('usage: node tests/serve_page.js URL SENTENCE [SCREENSHOT.png]');
  process.exit(1);
}
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'serve-page-'));
const chrome = spawn(process.env.CHROMIUM || 'chromium',
  ['--headless=new', '--no-sandbox', '--disable-gpu', '--remote-debugging-pipe', `--user-data-dir=${profile}`,
   '--window-size=1000,900', 'about:blank'],
  { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });

function fail(msg) {
  console.error(`serve_page.js: ${msg}`);
  clearTimeout(deadline);
  chrome.kill();
  process.exitCode = 1;
}
const deadline = setTimeout(() => fail('no answer within 20 s'), 20000);
chrome.on('error', (e) => fail(`cannot start chromium: ${e.message}`));

// The protocol: JSON messages ended by a NUL byte, chromium reads fd 3 and writes fd 4.
let nextId = 1, buffered = '';
const pending = new Map(), waiters = [];
chrome.stdio[4].on('data', (chunk) => {
  buffered += chunk.toString('utf8');
  for (let end; (end = buffered.indexOf('\0')) >= 0;) {
    const msg = JSON.parse(buffered.slice(0, end));
    buffered = buffered.slice(end + 1);
    if (msg.id && pending.has(msg.id)) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      msg.error ? reject(new Error(msg.error.message)) : resolve(msg.result);
    } else {
      for (const w of waiters.splice(0)) w.method === msg.method ? w.resolve(msg.params) : waiters.push(w);
    }
  }
});
function send(method, params = {}, sessionId) {
  const id = nextId++;
  chrome.stdio[3].write(JSON.stringify({ id, method, params, sessionId }) + '\0');
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}
const event = (method) => new Promise((resolve) => waiters.push({ method, resolve }));

async function main() {
  const { targetInfos } = await send('Target.getTargets');
  const page = targetInfos.find((t) => t.type === 'page');
  const { sessionId } = await send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  const s = (method, params) => send(method, params, sessionId);
  const js = async (expr) => (await s('Runtime.evaluate', { expression: expr, awaitPromise: true, returnByValue: true })).result.value;
  await s('Page.enable');
  const loaded = event('Page.loadEventFired');
  await s('Page.navigate', { url });
  await loaded;
  // type as a user does: focus the box, insert the text; then a real mouse click on the button
  await js("document.getElementById('src').focus()");
  await s('Input.insertText', { text: sentence });
  const box = await js("(() => { const r = document.getElementById('go').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()");
  for (const type of ['mousePressed', 'mouseReleased'])
    await s('Input.dispatchMouseEvent', { type, x: box[0], y: box[1], button: 'left', clickCount: 1 });
  let shown;
  while ((shown = await js("document.getElementById('out').textContent")) === '...' || shown === '')
    await new Promise((r) => setTimeout(r, 50));
  // the heatmaps are images: wait until each is decoded
  const maps = await js(`Promise.all([...document.querySelectorAll('#att img')].map((i) => i.decode().then(() => [i.naturalWidth, i.naturalHeight])))`);
  console.log(shown);
  console.log(`heatmaps: ${maps.length}${maps.length ? ` ${maps[0][0]}x${maps[0][1]}` : ''}`);
  if (shot) {
    const { data } = await s('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
    fs.writeFileSync(shot, Buffer.from(data, 'base64'));
  }
  await send('Browser.close').catch(() => {});
}

// the profile goes once chromium has stopped writing to it; its helper processes may still
// write for a moment (ENOTEMPTY), and the test runner removes the case's folder anyway
chrome.on('exit', () => {
  try {
    fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  } catch (e) {}
});
main().then(() => clearTimeout(deadline), (e) => fail(e.message)).finally(() => chrome.kill());
