#!/usr/bin/env node
'use strict';
// node examples/node/check_rows.js HITFAM [--d D] [--sample N] [--stall MS] [--keep DIR] [PROGRAM.js...]
//
// For each program (default: every fixture in fixtures/ and cache_bug.js): records its order with
// record.js, makes the D-hitting family (default 3) with `HITFAM gen --d D` (method auto), replays
// every row with replay.js and counts the rows played exactly (the played order equals the row).
// Prints one line per program (tab-separated, after a header): program, events, rows, rows
// replayed, rows played exactly, rows whose events played in the row's order with events that
// the recording did not have among them (`extra`), rows where the program exited non-zero, and
// for the first
// mismatch the row, the step and the events there (row's / played). With --sample N only N rows
// spread evenly over the family are replayed (the first and the last among them). Exits 1 when a
// replayed row was not played exactly, 0 otherwise.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { parseFamily } = require('./asyncorder');

const USAGE =
  'usage: node check_rows.js HITFAM [--d D] [--sample N] [--stall MS] [--keep DIR] [PROGRAM.js...]\n';
const args = process.argv.slice(2);
if (args.length === 0 || args[0] === '-h' || args[0] === '--help') {
  process.stderr.write(USAGE);
  process.exit(args.length === 0 ? 2 : 0);
}
const hitfam = path.resolve(args.shift());
let d = 3;
let sample = 0;
let stall = 10000;
let keep = null;
const programs = [];
while (args.length > 0) {
  const a = args.shift();
  const num = () => {
    const v = args.shift();
    if (v === undefined || !/^[0-9]+$/.test(v)) {
      process.stderr.write(`check_rows: ${a} needs a number\n` + USAGE);
      process.exit(2);
    }
    return Number(v);
  };
  if (a === '--d') d = num();
  else if (a === '--sample') sample = num();
  else if (a === '--stall') stall = num();
  else if (a === '--keep') keep = args.shift();
  else programs.push(path.resolve(a));
}
const here = __dirname;
if (programs.length === 0) {
  for (const f of fs.readdirSync(path.join(here, 'fixtures')).sort())
    if (f.endsWith('.js')) programs.push(path.join(here, 'fixtures', f));
  programs.push(path.join(here, 'cache_bug.js'));
}
const work = keep ? path.resolve(keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'hitfam-rows-'));
fs.mkdirSync(work, { recursive: true });

function run(cmd, argv) {
  return spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 64 << 20 });
}

// Rows to replay: all, or `sample` of them spread evenly (first and last included).
function pick(n) {
  if (sample === 0 || sample >= n) return [...Array(n).keys()].map((i) => i + 1);
  const out = new Set();
  for (let k = 0; k < sample; k++) out.add(1 + Math.round((k * (n - 1)) / (sample - 1 || 1)));
  return [...out].sort((a, b) => a - b);
}

let bad = 0;
const lines = [];
process.stdout.write('program\tevents\trows\treplayed\texact\textra\tfailed\tfirst mismatch (row, step: row / played)\n');
for (const prog of programs) {
  const base = path.basename(prog, '.js');
  const dot = path.join(work, base + '.dot');
  let r = run(process.execPath, [path.join(here, 'record.js'), '-o', dot, prog]);
  if (r.status !== 0 && !fs.existsSync(dot)) {
    lines.push(`${base}: record failed (${r.status}): ${r.stderr.split('\n')[0]}`);
    bad++;
    continue;
  }
  const events = (fs.readFileSync(dot, 'utf8').match(/\[type=/g) || []).length;
  const fam = path.join(work, `${base}.d${d}.fam`);
  r = run(hitfam, ['gen', '--d', String(d), dot, '-o', fam]);
  if (r.status !== 0) {
    lines.push(`${base}: hitfam gen failed: ${r.stderr.split('\n')[0]}`);
    bad++;
    continue;
  }
  const rows = parseFamily(fs.readFileSync(fam, 'utf8'));
  const chosen = pick(rows.length);
  let exact = 0;
  let failed = 0;
  let extra = 0;
  let first = null;
  for (const i of chosen) {
    const out = path.join(work, `${base}.d${d}.played${i}`);
    const rr = run(process.execPath, [
      path.join(here, 'replay.js'), '--family', fam, '--row', String(i), '--stall', String(stall),
      '-o', out, prog,
    ]);
    fs.writeFileSync(path.join(work, `${base}.d${d}.err${i}`), rr.stderr);
    if (rr.status !== 0) failed++;
    let got = [];
    try {
      got = parseFamily(fs.readFileSync(out, 'utf8'))[0] || [];
    } catch (e) {
      got = [];
    }
    const want = rows[i - 1];
    let k = 0;
    while (k < want.length && k < got.length && want[k] === got[k]) k++;
    if (k === want.length && k === got.length) {
      exact++;
      continue;
    }
    const known = new Set(want);
    const mine = got.filter((n) => known.has(n));
    if (mine.length === want.length && mine.every((n, j) => n === want[j])) extra++;
    if (first === null)
      first = `row ${i} step ${k + 1}: ${want[k] === undefined ? '-' : want[k]} / ${got[k] === undefined ? '-' : got[k]}`;
  }
  if (exact < chosen.length) bad++;
  lines.push(
    `${base}\t${events}\t${rows.length}\t${chosen.length}\t${exact}\t${extra}\t${failed}\t${first === null ? '-' : first}`
  );
  process.stdout.write(lines[lines.length - 1] + '\n');
}
if (!keep) fs.rmSync(work, { recursive: true, force: true });
process.stdout.write(`d = ${d}: ${programs.length - bad} of ${programs.length} programs with every replayed row played exactly\n`);
process.exit(bad === 0 ? 0 : 1);
