'use strict';
// Streams: a file read through a stream, piped through a transform into a write stream, and a
// second file read with a stream in parallel.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Transform, pipeline } = require('stream');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hitfam-streams-'));
const src = path.join(dir, 'in.txt');
fs.writeFileSync(src, 'abc\ndef\n');
const log = [];
const upper = new Transform({
  transform(chunk, enc, cb) {
    log.push('chunk');
    cb(null, String(chunk).toUpperCase());
  },
});
pipeline(fs.createReadStream(src), upper, fs.createWriteStream(path.join(dir, 'out.txt')), (err) => {
  if (err) throw err;
  log.push('piped ' + fs.readFileSync(path.join(dir, 'out.txt'), 'utf8').trim().replace('\n', ','));
});
let text = '';
fs.createReadStream(src, 'utf8')
  .on('data', (c) => (text += c))
  .on('end', () => log.push('read ' + text.length));
process.on('exit', () => {
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(log.join('; '));
});
