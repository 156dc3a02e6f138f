'use strict';
// node test_awaits.js: the await rewrite of awaits.js on sources that stress the tokenizer and the
// operand's extent. Each case gives the source and the expected rewrite (H stands for the hold,
// I for the iter hook of for await),
// and the rewritten source must compute what the original computes. Exit 1 on a failure.
const assert = require('assert');
const { rewrite, HOLD, ITER } = require('./awaits');

const cases = [
  ['await f(x);', 'await H(f(x));'],
  ['x = await a.b(c).d[e] + 1;', 'x = await H(a.b(c).d[e]) + 1;'],
  ['await new Promise((r) => setImmediate(r));', 'await H(new Promise((r) => setImmediate(r)));'],
  ['await new A.B(1).c();', 'await H(new A.B(1).c());'],
  ['f(await g(), await h);', 'f(await H(g()), await H(h));'],
  ['await f(await g());', 'await H(f(await H(g())));'],
  ['`a${await k}b`', '`a${await H(k)}b`'],
  ['await tag`a${await k}b`;', 'await H(tag`a${await H(k)}b`);'],
  ['await -x * 2;', 'await H(-x) * 2;'],
  ['await x++;', 'await H(x++);'],
  ['await (a, b);', 'await H((a, b));'],
  ['await 1e+5 * 2;', 'await H(1e+5) * 2;'],
  ['await q?.r?.(1)?.[2];', 'await H(q?.r?.(1)?.[2]);'],
  ['a ? await b : await c;', 'a ? await H(b) : await H(c);'],
  ['await async function () { return 1; }();', 'await H(async function () { return 1; }());'],
  ['await\nfoo;', 'await\nH(foo);'],
  // for await: the iterable goes through the iter hook (I); yield in an async generator awaits
  ['for await (const v of it) {}', 'for await (const v of I(it)) {}'],
  ['for await (const [a, b] of g(await h, { of: 1 })) {}', 'for await (const [a, b] of I(g(await H(h), { of: 1 }))) {}'],
  ['async function* g() { yield a + b, c; const x = yield f(y) ? 1 : 2; yield\n z; yield* h(); }',
    'async function* g() { yield H(a + b), c; const x = yield H(f(y) ? 1 : 2); yield\n z; yield* h(); }'],
  ['class A { async *gen() { yield x } *sync() { yield y } }', 'class A { async *gen() { yield H(x) } *sync() { yield y } }'],
  ['async function* g() { function* s() { yield 5; } yield `t${1}`; }', 'async function* g() { function* s() { yield 5; } yield H(`t${1}`); }'],
  ['async function* g() { yield a\n  .b()\n  foo() }', 'async function* g() { yield H(a\n  .b())\n  foo() }'],
  // left alone: names, strings, comments, regular expressions, no operand
  ['a.await; ({ await: 1 });', 'a.await; ({ await: 1 });'],
  ["s = 'await x'; // await y\n/* await z */", "s = 'await x'; // await y\n/* await z */"],
  ['r = /await x/g.test(s);', 'r = /await x/g.test(s);'],
  ['x = y / await z / 2;', 'x = y / await H(z) / 2;'],
];

let failures = 0;
for (const [src, want] of cases) {
  const got = rewrite(src).code.split(HOLD).join('H').split(ITER).join('I');
  if (got !== want) {
    console.log(`FAIL: ${JSON.stringify(src)}\n  got  ${JSON.stringify(got)}\n  want ${JSON.stringify(want)}`);
    failures++;
  }
}

// The rewritten program computes what the original does when the hold is the identity.
const program = `
  (async () => {
    const sleep = (v) => new Promise((r) => setTimeout(() => r(v), 1));
    const o = { f: async (v) => v * 2, g: { h: [10, 20] } };
    let n = 1;
    const parts = [];
    parts.push(await 3 + 4);
    parts.push(await o.f(await sleep(5)) - 1);
    parts.push(\`<\${await sleep('t')}>\`);
    parts.push(await o.g.h[1] / 4);
    parts.push(await n++ + n);
    try { await Promise.reject(new Error('e')); } catch (e) { parts.push(e.message); }
    parts.push(await { then: (r) => r('thenable') });
    parts.push((await Promise.all([sleep(1), sleep(2)])).join('+'));
    async function* gen() {
      yield 1;
      yield sleep(2);
      yield n > 0 ? 'yes' : 'no';
    }
    for await (const v of gen()) parts.push(v);
    return parts.join(',');
  })()`;
globalThis[HOLD] = (x) => x;
globalThis[ITER] = (x) => x;
const { code, count } = rewrite(program);
Promise.all([eval(program), eval(code)]).then(([a, b]) => {
  try {
    assert.strictEqual(b, a);
    assert.strictEqual(count, 13);
  } catch (e) {
    console.log('FAIL: the rewritten program: ' + e.message);
    failures++;
  }
  if (failures > 0) {
    console.log(`${failures} failure(s)`);
    process.exit(1);
  }
  console.log(`await rewrite: ${cases.length} cases and a program, all passed`);
});
