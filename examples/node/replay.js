#!/usr/bin/env node
'use strict';
// node examples/node/replay.js --family FAMILY --row I [-o FILE] [--stall MS] [--no-rewrite]
//                               PROGRAM.js [ARGS...]
//
// Runs PROGRAM.js in this process and plays schedule I (counted from 1) of FAMILY, a family in
// hitfam's text format for an order recorded by record.js: each callback is held until the
// schedule says it is its turn. Events are matched by the stable names of asyncorder.js.
//
// What is held. When a callback of a resource starts out of turn, the program code it would run
// is captured and run at the event's turn instead, in the recorded event's name (what it creates
// is named as in the recording). Program code is captured at these entry points:
//   - timers: setTimeout, setInterval, setImmediate (global and require('timers')),
//   - process.nextTick,
//   - the callback argument of every callback function of require('fs') (readFile, stat, ...),
//   - EventEmitter.prototype.emit on every emitter but `process`: sockets, servers, HTTP
//     requests and responses, child processes, streams, fs.watch watchers.
//   - promise reactions attached with .then, .catch, .finally (and by Promise.all and the like),
//   - the continuation of `await X` in the program's own files: they are loaded with the await
//     rewritten to `await __hitfam_hold(X)` (awaits.js), and the hold gives `await` a promise of
//     the player's that settles like X once the continuation's turn has come; the yields of
//     async generators (which await) and the steps of `for await` over an async iterable are
//     held the same way (--no-rewrite loads the files as written: these are then not held),
//   - queueMicrotask callbacks of the program.
// Node's own code in such a callback (a socket reading its data, say) runs when the callback
// comes; only the program's listeners and callbacks wait. Not held: promise jobs that V8 makes
// and runs itself outside the rewrite, such as awaits in files that are not rewritten (under
// node_modules) and `for await` over a sync iterable. They run when V8 runs them; one that runs
// out of turn is reported and played there. The player does run the held events that
// come next in the schedule before it returns to the event loop, so a promise job scheduled after
// them does wait.
//
// Fallback. An event the schedule does not know runs when it is ready (reported). When the
// schedule cannot continue (its next event has not come for --stall ms, 2000 by default, while
// other events are held, or the program would exit with events held), the player reports it and
// skips to the held event that comes first in the schedule; the skipped events run as soon as
// they come, if they come. The rest of the schedule is then followed as before.
//
// Output. When the process exits, the order actually played is written to FILE (or stdout) in
// the family text format, one schedule, so that `hitfam verify` reads it with the recorded DOT.
// Messages go to stderr, each starting with `replay:`. The exit status is the program's.
const fs = require('fs');
const path = require('path');
const EventEmitter = require('events');
const timers = require('timers');
const util = require('util');
const { Tracker, familyRow, parseFamily } = require('./asyncorder');
const awaits = require('./awaits');

const USAGE =
  'usage: node replay.js --family FAMILY --row I [-o FILE] [--stall MS] [--no-rewrite] PROGRAM.js [ARGS...]\n';

function usage(msg) {
  if (msg) process.stderr.write('replay: ' + msg + '\n');
  process.stderr.write(USAGE);
  process.exit(2);
}

// ------------------------------------------------------------------------------------------
// Options and the schedule

const args = process.argv.slice(2);
let familyFile = null;
let rowArg = null;
let outFile = null;
let stallMs = 2000;
let noRewrite = false;
while (args.length > 0 && args[0].startsWith('-')) {
  const a = args.shift();
  const value = () => {
    if (args.length === 0) usage(a + ' needs a value');
    return args.shift();
  };
  if (a === '--family') familyFile = value();
  else if (a === '--row') rowArg = value();
  else if (a === '-o' || a === '--output') outFile = value();
  else if (a === '--no-rewrite') noRewrite = true;
  else if (a === '--stall') {
    const v = value();
    if (!/^[0-9]+$/.test(v) || Number(v) < 1) usage('--stall needs a number of milliseconds >= 1');
    stallMs = Number(v);
  } else if (a === '-h' || a === '--help') {
    process.stdout.write(USAGE);
    process.exit(0);
  } else if (a === '--') break;
  else usage('unknown option ' + a);
}
if (!familyFile) usage('--family is required');
if (rowArg === null) usage('--row is required');
if (!/^[0-9]+$/.test(rowArg) || Number(rowArg) < 1) usage('--row needs a number >= 1');
if (args.length === 0) usage('no program given');
const program = path.resolve(args[0]);
if (!fs.existsSync(program)) usage('cannot find ' + args[0]);

let rows;
try {
  rows = parseFamily(fs.readFileSync(familyFile, 'utf8'));
} catch (e) {
  usage(familyFile + ': ' + e.message);
}
const rowNo = Number(rowArg);
if (rowNo > rows.length)
  usage(`--row ${rowNo}: ${familyFile} has ${rows.length} schedule${rows.length === 1 ? '' : 's'}`);
const schedule = rows[rowNo - 1];
const position = new Map();
schedule.forEach((name, i) => {
  if (position.has(name)) usage(`row ${rowNo} names ${JSON.stringify(name)} twice`);
  position.set(name, i);
});

// ------------------------------------------------------------------------------------------
// The player

function report(msg) {
  fs.writeSync(2, 'replay: ' + msg + '\n'); // synchronous: safe inside the async hooks
}

const show = (name) => JSON.stringify(name);
let next = 0; // index in schedule of the next event to play
const done = new Set(); // events of the schedule that have run (or started running)
const held = new Map(); // name -> {ev, name, thunks}: events that came before their turn
const played = [];
const playedSet = new Set();
const waiting = new Map(); // name of an event that has not played -> unknown events it created
let holding = null; // the held event whose real callback is running: entry points capture
let lastProgress = Date.now();
let driving = false;
let drivePending = false;

function advance() {
  while (next < schedule.length && done.has(schedule[next])) next++;
}

// Promise jobs run when V8 runs them. Those of `.then` (and so `.catch`, `.finally`, and the
// reactions Promise.all and friends attach) can be held, since the reaction is a function the
// patched `then` wrapped; so can a microtask of the patched queueMicrotask. The continuation of
// an `await` V8 attaches without `then`: the await gates below hold it.
let inThen = 0; // > 0 while the patched then creates its derived promise
function onInit(r) {
  if (r.type === 'Microtask' && inQueue > 0) r.viaThen = true; // its callback is gated
  if (r.type !== 'PROMISE') return;
  if (inThen > 0 || wrapsThenable) r.viaThen = true;
  wrapsThenable = false;
  const gate = gates.get(r.trigger);
  if (gate && gate.res === null) {
    gate.res = r; // the promise job of `await` on the gate
    gates.delete(r.trigger);
  }
}

// Await gates. `await __hitfam_hold(X)` awaits the gate's promise instead of X: the player's own
// promise (not an event, no name), settled like X when X has settled and the continuation's turn
// has come. Whatever `await X` would have made itself (a promise around a value or a thenable)
// the hold makes with Promise.resolve, in the program's name, so the names stay those of the
// recording. The continuation is the job of the promise V8 makes when it awaits the gate (its
// trigger is the gate's promise).
const gates = new Map(); // asyncId of a gate's promise -> gate
let newGate = null; // the gate whose promise is being made
const origResolve = Promise.resolve;
function onInternal(id, type, trigger, resource) {
  // the gate's promise is the first one made for it (its hooks run inside the constructor)
  if (newGate !== null && newGate.id === null && type === 'PROMISE') {
    newGate.id = id;
    gates.set(id, newGate);
  }
}

// `await x` on a thenable that is not a native promise makes a promise and a job that calls
// x.then: the hold makes them with a stand-in thenable whose `then` is captured when the job runs
// out of turn, so that job can be held too.
let wrapsThenable = false;
function awaitBase(x) {
  if (x === null || (typeof x !== 'object' && typeof x !== 'function')) return origResolve.call(Promise, x);
  if (util.types.isPromise(x) && x.constructor === Promise) return x; // awaited as it is
  const then = x.then;
  if (typeof then !== 'function') return origResolve.call(Promise, x);
  const standIn = {
    then(resolve, reject) {
      gate(() => then.call(x, resolve, reject));
    },
  };
  wrapsThenable = true;
  try {
    return origResolve.call(Promise, standIn);
  } finally {
    wrapsThenable = false;
  }
}

function holdAwait(x) {
  const base = awaitBase(x);
  const gate = { id: null, res: null, promise: null, settle: null, outcome: null };
  newGate = gate;
  try {
    tracker.internally(() => {
      let ok;
      let no;
      gate.promise = new Promise((res, rej) => {
        ok = res;
        no = rej;
      });
      gate.settle = () => (gate.outcome.ok ? ok(gate.outcome.value) : no(gate.outcome.value));
      origThen.call(
        base,
        (value) => gateReady(gate, { ok: true, value }),
        (value) => gateReady(gate, { ok: false, value })
      );
    });
  } finally {
    newGate = null;
  }
  return gate.promise;
}

// `for await (x of E)` awaits each step's promise without `then`: the rewrite passes E through
// this, which gives the loop an iterator whose steps are gated like awaits. Only async iterables
// are wrapped: for a sync one V8 makes its own promises, which a wrapper would change.
function holdIter(iterable) {
  const make = iterable == null ? undefined : iterable[Symbol.asyncIterator];
  if (typeof make !== 'function') return iterable;
  return {
    [Symbol.asyncIterator]() {
      const it = make.call(iterable);
      const step = (m) => (typeof it[m] === 'function' ? (v) => holdAwait(it[m](v)) : undefined);
      return { next: step('next'), return: step('return'), throw: step('throw') };
    },
  };
}

// X has settled: open the gate now if the continuation is next (or not in the row, or skipped),
// else hold it until its turn.
function gateReady(gate, outcome) {
  gate.outcome = outcome;
  const p = gate.res === null ? undefined : position.get(gate.res.name);
  if (p === undefined || p <= next) {
    gate.settle();
    return;
  }
  held.set(gate.res.name, { gate, name: gate.res.name, res: gate.res, thunks: [] });
  scheduleDrive();
}

function play(name) {
  played.push(name);
  playedSet.add(name);
}

function unholdable(e, r) {
  return (e.type === 'Microtask' || e.type === 'PROMISE') && !r.viaThen;
}

function onStart(e, r) {
  lastProgress = Date.now();
  const name = e.name;
  const p = position.get(name);
  if (p === undefined) {
    // An event the row does not know waits for its creator (or, for a later callback of a
    // resource, the callback before it), when that one is held: Node's code ran it early (a
    // stream's end tick, a socket's extra read, say), and the program's code in it must not
    // overtake the code held before it.
    const c = r.k - 1; // this callback's number
    const creator = c >= 1 ? (c === 1 ? r.name : `${r.name}:${c - 1}`) : tracker.events[r.creator].name;
    if (!playedSet.has(creator) && !unholdable(e, r)) {
      report(`event ${show(name)} (${e.type}) is not in row ${rowNo}: it runs right after ${show(creator)}`);
      holding = { ev: e.index, name, res: r, thunks: [] };
      if (!waiting.has(creator)) waiting.set(creator, []);
      waiting.get(creator).push(holding);
      return;
    }
    report(`event ${show(name)} (${e.type}) is not in row ${rowNo}: it runs when ready`);
    play(name);
    return;
  }
  if (p === next) {
    play(name);
    done.add(name);
    advance();
    return;
  }
  if (p < next) {
    report(`event ${show(name)} comes after it was skipped: it runs now`);
    play(name);
    done.add(name);
    return;
  }
  if (unholdable(e, r)) {
    report(
      `event ${show(name)} (${e.type}, step ${p + 1}) runs before its turn: ` +
        `step ${next + 1} ${show(schedule[next])} has not run (promise jobs that V8 runs ` +
        `itself, outside the rewritten awaits, are not held)`
    );
    play(name);
    done.add(name);
    return;
  }
  holding = { ev: e.index, name, res: r, thunks: [] };
  held.set(name, holding);
}

function onEnd() {
  holding = null;
  scheduleDrive();
}

// A tick, timer, microtask or promise job of Node's own code runs as part of another event
// (asyncorder.js): when that event is held, the program code it would run (a listener of the
// `end` it emits, say) is captured with the event's and runs after it, at the event's turn.
function onMerged(e) {
  holding = held.get(e.name) || null;
  if (holding === null)
    for (const list of waiting.values()) for (const h of list) if (h.name === e.name) holding = h;
  if (holding !== null && holding.gate) holding = null;
}

const tracker = new Tracker({ onInit, onStart, onEnd, onInternal, onMerged });

// Play a held event: its captured code, then the unknown events that waited for it.
function runHeld(h) {
  play(h.name);
  tracker.runAs(h.ev, () => {
    for (const t of h.thunks) t();
  });
  const kids = waiting.get(h.name);
  if (kids) {
    waiting.delete(h.name);
    for (const k of kids) runHeld(k);
  }
}

// Run the held events that are next in the schedule, one after the other, in this callback.
function drive() {
  if (driving) return;
  driving = true;
  try {
    while (next < schedule.length) {
      const name = schedule[next];
      const h = held.get(name);
      if (!h) break;
      held.delete(name);
      lastProgress = Date.now();
      if (h.gate) {
        // the continuation runs as its own promise job, after this callback: it plays then
        tracker.internally(() => h.gate.settle());
        break;
      }
      done.add(name);
      advance();
      lastProgress = Date.now();
      runHeld(h);
    }
  } finally {
    driving = false;
  }
}

const origSetImmediate = setImmediate;
const origSetInterval = setInterval;

function scheduleDrive() {
  if (drivePending) return;
  drivePending = true;
  tracker.internally(() =>
    origSetImmediate(() => {
      drivePending = false;
      drive();
    })
  );
}

// The schedule's next event has not come: skip to the held event that comes first in it.
function stuck(why) {
  if (held.size === 0 || next >= schedule.length) return;
  let first = null;
  for (const name of held.keys())
    if (first === null || position.get(name) < position.get(first)) first = name;
  const target = position.get(first);
  const skipped = schedule.slice(next, target).filter((n) => !done.has(n));
  report(
    `row ${rowNo} cannot continue at step ${next + 1}: ${show(schedule[next])} has not come (${why}); ` +
      `skipping ${skipped.length} event${skipped.length === 1 ? '' : 's'} (${skipped
        .slice(0, 5)
        .map(show)
        .join(', ')}${skipped.length > 5 ? ', ...' : ''}) to step ${target + 1} ${show(first)}`
  );
  next = target;
  drive();
}

// ------------------------------------------------------------------------------------------
// Entry points of program code

const HELD = Symbol('held');
const origThen = Promise.prototype.then;

// A wrapper keeps what the original carries: util.promisify's custom forms (setTimeout, fs.read,
// fs.exists), fs.realpath.native, and the like.
function keepProps(wrapped, orig) {
  for (const key of Reflect.ownKeys(orig)) {
    if (key === 'length' || key === 'name' || key === 'prototype' || key === 'arguments' || key === 'caller')
      continue;
    const d = Object.getOwnPropertyDescriptor(orig, key);
    if (d) Object.defineProperty(wrapped, key, d);
  }
  return wrapped;
}

function gate(thunk) {
  if (holding === null) return thunk();
  holding.thunks.push(thunk);
  return HELD;
}

// A timer's callback, captured until its turn; clearing the timer while it is captured drops it.
// An interval whose callback is held does not fire again until that callback has run at its
// turn: Node rearms it with a period of 2^31 - 1 ms, and the turn puts the period back and
// restarts it with refresh() (the same Timeout, so the next firing keeps its name). Without this,
// an interval that the held callback would clear fires extra times. This sets the Timeout's
// _repeat and _idleTimeout fields, which Node reads when it rearms an interval.
const timerState = new WeakMap(); // timer object -> {thunk, entry, cleared}
function wrapTimer(orig, repeats) {
  const wrapped = function (fn, ...rest) {
    if (typeof fn !== 'function') return orig.call(this, fn, ...rest);
    const state = { entry: null, thunk: null, cleared: false };
    const cb = function (...cbArgs) {
      const timer = this;
      let paused = null;
      const thunk = () => {
        state.entry = null;
        try {
          return fn.apply(timer, cbArgs);
        } finally {
          if (paused !== null && !state.cleared && typeof timer.refresh === 'function') {
            timer._repeat = paused;
            timer._idleTimeout = paused;
            timer.refresh();
          }
        }
      };
      if (holding !== null) {
        state.entry = holding;
        state.thunk = thunk;
        if (repeats && timer && typeof timer._repeat === 'number') {
          paused = timer._repeat;
          timer._repeat = 2147483647;
        }
      }
      gate(thunk);
    };
    const t = orig.call(this, cb, ...rest);
    if (t && typeof t === 'object') timerState.set(t, state);
    return t;
  };
  return keepProps(wrapped, orig);
}

function wrapClear(orig) {
  return function (t) {
    const state = t && typeof t === 'object' ? timerState.get(t) : undefined;
    if (state) state.cleared = true;
    if (state && state.entry) {
      const i = state.entry.thunks.indexOf(state.thunk);
      if (i >= 0) state.entry.thunks.splice(i, 1);
      report(`the held callback of ${show(state.entry.name)} is dropped: its timer was cleared first`);
      state.entry = null;
    }
    return orig.call(this, t);
  };
}

for (const [set, clear] of [
  ['setTimeout', 'clearTimeout'],
  ['setInterval', 'clearInterval'],
  ['setImmediate', 'clearImmediate'],
]) {
  const s = wrapTimer(globalThis[set], set === 'setInterval');
  const c = keepProps(wrapClear(globalThis[clear]), globalThis[clear]);
  globalThis[set] = s;
  globalThis[clear] = c;
  timers[set] = s;
  timers[clear] = c;
}

const origNextTick = process.nextTick;
// Node's own modules call process.nextTick too (a stream resuming, say): their ticks are Node's
// code, not the program's, and run when they come (holding them would hold back the I/O that
// later events of the schedule wait for). The caller is told apart by its stack frame.
function calledFromNode(fn) {
  const saved = Error.stackTraceLimit;
  Error.stackTraceLimit = 1;
  const probe = {};
  Error.captureStackTrace(probe, fn);
  Error.stackTraceLimit = saved;
  return /^\s*at (?:.* \()?node:/m.test(String(probe.stack).split('\n').slice(1).join('\n'));
}

process.nextTick = function nextTick(fn, ...rest) {
  if (typeof fn !== 'function' || calledFromNode(nextTick))
    return origNextTick.call(process, fn, ...rest);
  return origNextTick.call(process, function (...a) {
    gate(() => fn.apply(this, a));
  }, ...rest);
};

// queueMicrotask: the program's callbacks (Node's own are part of another event).
let inQueue = 0; // > 0 while the patched queueMicrotask makes its resource
const origQueueMicrotask = globalThis.queueMicrotask;
globalThis.queueMicrotask = keepProps(function queueMicrotask(fn) {
  if (typeof fn !== 'function') return origQueueMicrotask(fn);
  inQueue++;
  try {
    return origQueueMicrotask(function () {
      gate(() => fn());
    });
  } finally {
    inQueue--;
  }
}, origQueueMicrotask);

// fs: every asynchronous function whose last argument is the completion callback.
const FS_SKIP = new Set(['watch', 'watchFile', 'unwatchFile', 'createReadStream', 'createWriteStream']);
for (const key of Object.keys(fs)) {
  const orig = fs[key];
  if (typeof orig !== 'function' || key.endsWith('Sync') || FS_SKIP.has(key) || /^[A-Z]/.test(key))
    continue;
  const wrapped = function (...a) {
    const last = a.length - 1;
    if (last >= 0 && typeof a[last] === 'function') {
      const cb = a[last];
      a[last] = function (...r) {
        gate(() => cb.apply(this, r));
      };
    }
    return orig.apply(this, a);
  };
  fs[key] = keepProps(wrapped, orig);
}

// Emitters: sockets, servers, HTTP messages, child processes, streams, watchers.
const origEmit = EventEmitter.prototype.emit;
EventEmitter.prototype.emit = function (type, ...a) {
  if (holding === null || this === process) return origEmit.call(this, type, ...a);
  const self = this;
  const listeners = this.listenerCount(type) > 0;
  gate(() => origEmit.call(self, type, ...a));
  return listeners;
};

// Promise reactions: a reaction that runs out of turn is captured, and the promise `then`
// returned is resolved, through a thenable, with what the reaction gives when it runs at its
// turn.
function wrapReaction(fn) {
  if (typeof fn !== 'function') return fn;
  return function (value) {
    if (holding === null) return fn.call(this, value);
    const self = this;
    holding.res.skip++; // V8 runs a job for the thenable below under this promise's hooks
    let outcome = null;
    let settle = null;
    holding.thunks.push(() => {
      try {
        outcome = { ok: true, value: fn.call(self, value) };
      } catch (err) {
        outcome = { ok: false, value: err };
      }
      if (settle) settle();
    });
    return {
      then(resolve, reject) {
        settle = () => (outcome.ok ? resolve(outcome.value) : reject(outcome.value));
        if (outcome) settle();
      },
    };
  };
}
Object.defineProperty(Promise.prototype, 'then', {
  configurable: true,
  writable: true,
  value: function then(onFulfilled, onRejected) {
    inThen++;
    try {
      return origThen.call(this, wrapReaction(onFulfilled), wrapReaction(onRejected));
    } finally {
      inThen--;
    }
  },
});

// ------------------------------------------------------------------------------------------
// Run

process.on('exit', () => {
  tracker.disable();
  for (const [file, why] of rewrites.failed) report(`${file}: awaits not rewritten (${why})`);
  if (held.size > 0)
    report(`${held.size} held event${held.size === 1 ? '' : 's'} never played: ${[...held.keys()].map(show).join(', ')}`);
  const orphans = [...waiting.values()].flat().map((h) => h.name);
  if (orphans.length > 0)
    report(`${orphans.length} unknown event${orphans.length === 1 ? '' : 's'} never played (their creator never did): ${orphans.map(show).join(', ')}`);
  const missing = schedule.filter((n) => !done.has(n));
  if (missing.length > 0)
    report(
      `${missing.length} event${missing.length === 1 ? '' : 's'} of row ${rowNo} never ran: ` +
        missing.slice(0, 8).map(show).join(', ') + (missing.length > 8 ? ', ...' : '')
    );
  let k = 0;
  while (k < played.length && k < schedule.length && played[k] === schedule[k]) k++;
  if (k < played.length || k < schedule.length)
    report(`the played order differs from row ${rowNo} from step ${k + 1} on`);
  const text = `# hitfam replay row=${rowNo} method=replay schedules=1\n` + familyRow(played) + '\n';
  if (outFile) fs.writeFileSync(outFile, text);
  else fs.writeSync(1, text);
});

// The loop is empty with events held: skip ahead. Node emits beforeExit again only when the loop
// ran something after the listener, so an empty internal immediate keeps it going while
// events are still held (each round plays at least one of them).
process.on('beforeExit', () => {
  if (held.size === 0) return;
  stuck('the program would exit');
  if (held.size > 0) tracker.internally(() => origSetImmediate(() => {}));
});

tracker.internally(() => {
  const watch = origSetInterval(() => {
    if (held.size > 0 && Date.now() - lastProgress > stallMs) stuck(`nothing came for ${stallMs} ms`);
  }, Math.max(10, Math.min(100, stallMs >> 2)));
  watch.unref();
});

process.argv = [process.argv[0], program, ...args.slice(1)];
// main is the first event of every schedule of a recorded order
if (schedule[0] !== 'main') report(`row ${rowNo} does not start with main: it starts with ${show(schedule[0])}`);
play('main');
done.add('main');
advance();
const rewrites = awaits.install(holdAwait, { rewrite: !noRewrite, iter: holdIter });
tracker.enable();
require(program);
tracker.endMain();
scheduleDrive();
