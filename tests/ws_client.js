// A marian-server client in a few lines: node tests/ws_client.js ws://HOST:PORT/translate [N]
// Sends stdin as one websocket text message, N times over one connection (1), and prints
// each answer followed by a line break; a close from the server prints "close CODE REASON"
// and exits 1. Plain Node (RFC 6455 over net: Node 20 has no WebSocket client); the
// server's Sec-WebSocket-Accept is checked.
'use strict';
const crypto = require('crypto');
const net = require('net');

const url = new URL(process.argv[2]);
const times = Number(process.argv[3] || 1);
const text = require('fs').readFileSync(0);
const key = crypto.randomBytes(16).toString('base64');
const want = crypto.createHash('sha1').update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');

function frame(op, payload) { // client frames are masked
  const n = payload.length, mask = crypto.randomBytes(4);
  const head = n < 126 ? Buffer.from([0x80 | op, 0x80 | n])
    : n < 65536 ? Buffer.from([0x80 | op, 0x80 | 126, n >> 8, n & 255])
      : Buffer.concat([Buffer.from([0x80 | op, 0x80 | 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(n)); return b; })()]);
  const body = Buffer.from(payload);
  for (let i = 0; i < n; i++) body[i] ^= mask[i % 4];
  return Buffer.concat([head, mask, body]);
}

const sock = net.connect(Number(url.port), url.hostname, () => {
  sock.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
             `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
});
sock.setTimeout(30000, () => { console.error('ws_client.js: no answer within 30 s'); process.exit(1); });
let buf = Buffer.alloc(0), upgraded = false, answered = 0, closing = false;
sock.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  if (!upgraded) {
    const end = buf.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = buf.slice(0, end).toString();
    if (!/^HTTP\/1\.1 101/.test(head) || !head.includes(`Sec-WebSocket-Accept: ${want}`)) {
      console.error(`ws_client.js: no websocket: ${head.split('\r\n')[0]}`);
      process.exit(1);
    }
    upgraded = true;
    buf = buf.slice(end + 4);
    sock.write(frame(1, text));
  }
  while (buf.length >= 2) { // server frames: unmasked, one frame a message here
    let n = buf[1] & 127, at = 2;
    if (n === 126) n = buf.readUInt16BE(2), at = 4;
    else if (n === 127) n = Number(buf.readBigUInt64BE(2)), at = 10;
    if (buf.length < at + n) return;
    const op = buf[0] & 15, payload = buf.slice(at, at + n);
    buf = buf.slice(at + n);
    if (op === 8 && closing) process.exit(0); // the server's answer to our close
    if (op === 8) {
      console.log(`close ${payload.length >= 2 ? payload.readUInt16BE(0) : ''} ${payload.slice(2).toString()}`);
      process.exit(1);
    }
    if (op !== 1) continue;
    process.stdout.write(payload.toString() + '\n');
    if (++answered < times) sock.write(frame(1, text));
    else closing = true, sock.write(frame(8, Buffer.from([0x03, 0xe8]))); // 1000: done
  }
});
sock.on('error', (e) => { console.error(`ws_client.js: ${e.message}`); process.exit(1); });
