'use strict';
// node test_quoting.js HITFAM: names that need quoting go through asyncorder.js's DOT writer,
// hitfam gen, asyncorder.js's family reader and writer and hitfam verify, and come back unchanged.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { dotId, familyRow, parseFamily } = require('./asyncorder');

const hitfam = process.argv[2];
const names = ['main', 'a b', 'q"t', 'x\\y', 'x\\\\y', 'node', 'Graph', '12', '1a', '-3.5', '.5', 'é',
  '#hash', 'main.T0:1', 'tab\there', '', 'C:\\new'];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hitfam-quote-'));
let failures = 0;
try {
  // main before every other name, the others unordered: each row is a permutation of them
  const lines = ['digraph q {'];
  for (const n of names.slice(1)) lines.push('  ' + dotId(names[0]) + ' -> ' + dotId(n) + ';');
  lines.push('}');
  const dot = path.join(dir, 'q.dot');
  fs.writeFileSync(dot, lines.join('\n') + '\n');
  const fam = execFileSync(hitfam, ['gen', '--d', '2', dot], { encoding: 'utf8' });
  const rows = parseFamily(fam);
  for (const [i, row] of rows.entries()) {
    const got = [...row].sort().join('\u0001');
    const want = [...names].sort().join('\u0001');
    if (got !== want) {
      console.log(`FAIL: row ${i + 1} read back as ${JSON.stringify(row)}`);
      failures++;
    }
  }
  // what familyRow writes, hitfam reads: the rows written again verify as the same family
  const again = path.join(dir, 'again.txt');
  fs.writeFileSync(again, '# hitfam rewritten\n' + rows.map(familyRow).join('\n') + '\n');
  execFileSync(hitfam, ['verify', '--d', '2', dot, again], { encoding: 'utf8' });
  // a continuation line, an unknown escape in a quoted name, a quote right after a bare name
  const cont = parseFamily('# hitfam x\n"a\\\nb" "c\\td" e"f"\n');
  if (JSON.stringify(cont) !== JSON.stringify([['ab', 'c\\td', 'e', 'f']])) {
    console.log('FAIL: continuation read as ' + JSON.stringify(cont));
    failures++;
  }
  let threw = false;
  try {
    parseFamily('"open\n');
  } catch (e) {
    threw = /line 1/.test(e.message);
  }
  if (!threw) {
    console.log('FAIL: an unclosed quote is not reported with its line');
    failures++;
  }
  for (const bad of ['ends\\', 'q\\"', 'two\nlines']) {
    let refused = false;
    try {
      dotId(bad);
    } catch (e) {
      refused = true;
    }
    if (!refused) {
      console.log('FAIL: dotId writes ' + JSON.stringify(bad) + ', which no DOT ID gives back');
      failures++;
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(failures === 0 ? 'quoting: names round-trip through DOT and the family format' : failures + ' failure(s)');
process.exitCode = failures === 0 ? 0 : 1;
