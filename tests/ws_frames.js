// A raw websocket client that sends the frames it is told, well-formed or not:
//   node tests/ws_frames.js ws://HOST:PORT/translate FRAME...
// A FRAME is space-separated key=value, data= last (the rest of the argument):
//   op=N (1), fin=0|1 (1), rsv=N (0: the three reserved bits), mask=0|1 (1),
//   len=N (the length declared, any 64-bit value; the payload's own), repeat=N (the
//   payload N times), file=PATH (the payload), data=TEXT (escapes: \n, \xHH a byte).
// Or sleep=S (seconds), or end (close the socket now and exit: a client that goes).
// After the last frame it reads until the server ends the connection (10 s at most),
// printing each frame: "text PAYLOAD", "pong PAYLOAD", "close CODE REASON"; then
// "reset" when the connection was reset, "eof without a close" when it ended without one.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const net = require('net');

const url = new URL(process.argv[2]);
const key = crypto.randomBytes(16).toString('base64');

function parse(arg) {
  const at = arg.indexOf('data=');
  const f = { op: 1, fin: 1, rsv: 0, mask: 1, repeat: 1, data: at < 0 ? '' : arg.slice(at + 5) };
  for (const kv of (at < 0 ? arg : arg.slice(0, at)).trim().split(/\s+/).filter(Boolean)) {
    const [k, v] = kv.split('=');
    f[k] = k === 'len' ? BigInt(v) : k === 'file' ? v : Number(v);
  }
  return f;
}

function bytes(s) { // the escapes \n and \xHH
  const parts = [];
  let last = 0;
  s.replace(/\\n|\\x([0-9a-fA-F]{2})/g, (m, hex, at) => {
    parts.push(Buffer.from(s.slice(last, at)), Buffer.from([hex ? parseInt(hex, 16) : 10]));
    last = at + m.length;
  });
  return Buffer.concat([...parts, Buffer.from(s.slice(last))]);
}

function frame(f) {
  const one = f.file ? fs.readFileSync(f.file) : bytes(f.data);
  const body = Buffer.concat(Array(f.repeat).fill(one));
  const n = f.len === undefined ? BigInt(body.length) : f.len;
  let head = Buffer.from([(f.fin ? 0x80 : 0) | (f.rsv << 4) | f.op, (f.mask ? 0x80 : 0)]);
  if (n < 126n) head[1] |= Number(n);
  else if (n < 65536n) head[1] |= 126, head = Buffer.concat([head, Buffer.from([Number(n >> 8n), Number(n & 255n)])]);
  else {
    const e = Buffer.alloc(8);
    e.writeBigUInt64BE(n);
    head[1] |= 127, head = Buffer.concat([head, e]);
  }
  if (!f.mask) return Buffer.concat([head, body]);
  const mask = crypto.randomBytes(4);
  for (let i = 0; i < body.length; i++) body[i] ^= mask[i % 4];
  return Buffer.concat([head, mask, body]);
}

const sleep = (s) => new Promise((done) => setTimeout(done, s * 1000));
let buf = Buffer.alloc(0), closed = false, upgraded;
const ready = new Promise((done) => { upgraded = done; });

function show() { // the server's frames: unmasked
  while (buf.length >= 2) {
    let n = buf[1] & 127, at = 2;
    if (n === 126) n = buf.length >= 4 ? buf.readUInt16BE(2) : Infinity, at = 4;
    else if (n === 127) n = buf.length >= 10 ? Number(buf.readBigUInt64BE(2)) : Infinity, at = 10;
    if (buf.length < at + n) return;
    const op = buf[0] & 15, p = buf.slice(at, at + n);
    buf = buf.slice(at + n);
    if (op === 8) closed = true, console.log(`close ${p.length >= 2 ? p.readUInt16BE(0) : ''} ${p.slice(2)}`);
    else console.log(`${op === 1 ? 'text' : op === 10 ? 'pong' : 'op ' + op} ${p}`);
  }
}

const sock = net.connect(Number(url.port), url.hostname, () => {
  sock.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
             `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
});
sock.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  const end = buf.indexOf('\r\n\r\n');
  if (upgraded && end >= 0) {
    const status = buf.slice(0, end).toString().split('\r\n')[0];
    if (!/^HTTP\/1\.1 101/.test(status)) return process.exitCode = 1, finish(`no websocket: ${status}`);
    buf = buf.slice(end + 4), upgraded(), upgraded = null;
  }
  if (!upgraded) show();
});
const timer = setTimeout(() => { console.log('no end of the connection within 10 s'); process.exit(1); }, 10000);
function finish(line) { // no process.exit: it may drop what stdout has not written yet
  if (line) console.log(line);
  clearTimeout(timer), sock.destroy();
}
sock.on('error', (e) => finish(e.code === 'ECONNRESET' ? 'reset' : `error ${e.code}`));
sock.on('end', () => finish(closed ? '' : 'eof without a close'));

(async () => {
  await ready;
  for (const arg of process.argv.slice(3)) {
    if (sock.destroyed) return;
    if (arg === 'end') return sock.write('', () => finish()); // once the kernel has every byte
    if (arg.startsWith('sleep=')) await sleep(Number(arg.slice(6)));
    else sock.write(frame(parse(arg)));
  }
})();
