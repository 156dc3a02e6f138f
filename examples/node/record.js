#!/usr/bin/env node
'use strict';
// node examples/node/record.js [-o FILE] [--no-rewrite] PROGRAM.js [ARGS...]
//
// Runs PROGRAM.js in this process (required after the async hook is enabled, with process.argv
// set to [node, PROGRAM.js, ARGS...]) and writes the happens-before order of the run as DOT, to
// FILE or to stdout, when the process exits. Events are callback executions with stable names
// and a type= label; see asyncorder.js for the rules. Use -o when the program itself prints to
// stdout.
//
// The program's own files are loaded with every `await X` rewritten to `await __hitfam_hold(X)`
// (awaits.js), as replay.js loads them; here the hold is the identity, so the order and its names
// are those of the program as written (--no-rewrite loads the files as they are: the same file).
const fs = require('fs');
const path = require('path');
const { Tracker } = require('./asyncorder');
const awaits = require('./awaits');

function usage(msg) {
  if (msg) process.stderr.write('record: ' + msg + '\n');
  process.stderr.write('usage: node record.js [-o FILE] [--no-rewrite] PROGRAM.js [ARGS...]\n');
  process.exit(2);
}

const args = process.argv.slice(2);
let outFile = null;
let rewrite = true;
while (args.length > 0 && args[0].startsWith('-')) {
  const a = args.shift();
  if (a === '-o' || a === '--output') {
    if (args.length === 0) usage(a + ' needs a file name');
    outFile = args.shift();
  } else if (a === '--no-rewrite') {
    rewrite = false;
  } else if (a === '--') {
    break;
  } else if (a === '-h' || a === '--help') {
    process.stdout.write('usage: node record.js [-o FILE] [--no-rewrite] PROGRAM.js [ARGS...]\n');
    process.exit(0);
  } else {
    usage('unknown option ' + a);
  }
}
if (args.length === 0) usage('no program given');
const program = path.resolve(args[0]);
if (!fs.existsSync(program)) usage('cannot find ' + args[0]);

const tracker = new Tracker({ netEdges: true });
let rewrites = null;
process.on('exit', () => {
  tracker.disable();
  for (const [file, why] of rewrites.failed)
    process.stderr.write(`record: ${file}: awaits not rewritten (${why})\n`);
  const text = tracker.dot(path.basename(program));
  if (outFile) fs.writeFileSync(outFile, text);
  else fs.writeSync(1, text);
});
process.argv = [process.argv[0], program, ...args.slice(1)];
rewrites = awaits.install((x) => x, { rewrite });
tracker.enable();
require(program);
tracker.endMain();
