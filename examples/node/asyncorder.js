'use strict';
// The part record.js and replay.js share: an async_hooks tracker that turns one run of a Node.js
// program into events (top-level callback executions) with stable names and happens-before
// edges, plus the two quotings hitfam reads (DOT IDs and the family text format).
//
// Events. The main script is the event `main`. Every other event is one outermost callback of an
// async resource: the span between a `before` and its `after` hook when no other callback is
// running. A callback that runs nested inside another one (an HTTPINCOMINGMESSAGE emitting inside
// a TCPWRAP read, say) is part of the outer event, and so is everything it creates. So are the
// ticks, timers, immediates and microtasks that Node's own modules ask for (part of the event
// that asked), and the jobs of promises that Node's code makes (part of the event that settled
// the promise they wait on): see askedByNode.
//
// Names. A resource is named by the event that was running when it was created (its creator),
// its type and its rank among the resources of that type the creator made: the third Timeout
// that `main` created is `main.T2`; the first promise job created by that timer's callback is
// `main.T2.P0`. A resource's first callback has the resource's name, later ones add `:k`
// (`main.T0:1` is the second run of an interval). Two runs of a program that take the same paths
// give the same names; the rank is per type, so an extra internal promise does not shift the
// names of timers.
//
// Edges. creator -> first callback of a resource; callback k-1 -> callback k of one resource; and
// for a promise job, the event that resolved the promise it waits on -> the job. A promise that
// Promise.all, allSettled, any or race returns settles after the reactions it attached to its
// inputs that ran so far: a job waiting on it comes after each of them (and so after every
// input's settling event), not only after the one that settled it.
const async_hooks = require('async_hooks');
const path = require('path');

const CODES = {
  Timeout: 'T',
  Immediate: 'I',
  PROMISE: 'P',
  TickObject: 'N',
  Microtask: 'M',
  FSREQCALLBACK: 'F',
  FSREQPROMISE: 'FP',
  FSEVENTWRAP: 'W',
  STATWATCHER: 'SW',
  FILEHANDLE: 'FH',
  FILEHANDLECLOSEREQ: 'FHC',
  TCPWRAP: 'TCP',
  TCPSERVERWRAP: 'TCPS',
  TCPCONNECTWRAP: 'TCPC',
  WRITEWRAP: 'WR',
  SHUTDOWNWRAP: 'SD',
  GETADDRINFOREQWRAP: 'DNS',
  PROCESSWRAP: 'PROC',
  PIPEWRAP: 'PIPE',
  PIPECONNECTWRAP: 'PIPEC',
  SIGNALWRAP: 'SIG',
  TTYWRAP: 'TTY',
  HTTPINCOMINGMESSAGE: 'HIN',
  HTTPCLIENTREQUEST: 'HREQ',
  ZLIB: 'Z',
};

// A type as it may appear inside a name: only [A-Za-z0-9_], so the `.` and `:` separators stay
// unambiguous whatever an AsyncResource calls itself.
function codeOf(type) {
  if (Object.prototype.hasOwnProperty.call(CODES, type)) return CODES[type];
  const s = String(type).replace(/[^A-Za-z0-9_]/g, '_');
  return s === '' ? '_' : s;
}

class Tracker {
  // opts.onInit(resource) is called when a resource of the program is created, opts.onStart(ev,
  // resource) when an event starts (after it has its name), opts.onEnd(ev) when it ends; all
  // may be absent.
  constructor(opts = {}) {
    this.opts = opts;
    this.events = []; // {name, type, preds: Set of event indices}
    this.byName = new Map();
    this.res = new Map(); // asyncId -> {name, type, creator, trigger, k, first}
    this.internal = new Set(); // asyncIds of the tools' own resources: never events
    this.internalInit = 0; // > 0 while the tool creates its own resources
    this.resolvedBy = new Map(); // promise asyncId -> indices of the events that settled it
    this.combos = new Map(); // asyncId of a promise a combinator returned -> {events}
    this.elementOf = new Map(); // asyncId of a combinator's reaction on an input -> its combo
    this.combining = null; // {made: [[asyncId, promise]]} while a combinator runs
    this.depth = 0; // callbacks running (nested), including the tool's own
    this.current = null; // the running event (index), or null between callbacks
    this.counts = new Map(); // event index -> Map(type -> resources created so far)
    // TCP in one process (opts.netEdges): what each handle sent, in which events, and who reads
    this.net = opts.netEdges ? new NetLinks() : null;
    const root = this.addEvent('main', 'main');
    this.current = root;
    this.hook = async_hooks.createHook({
      init: (id, type, trigger, resource) => this.init(id, type, trigger, resource),
      before: (id) => this.before(id),
      after: (id) => this.after(id),
      promiseResolve: (id) => this.promiseResolve(id),
    });
  }

  enable() {
    if (this.net) this.net.patch(this);
    this.patchCombinators();
    this.hook.enable();
    return this;
  }

  disable() {
    this.hook.disable();
    return this;
  }

  addEvent(name, type) {
    const ev = { index: this.events.length, name, type, preds: new Set() };
    this.events.push(ev);
    this.byName.set(name, ev);
    return ev.index;
  }

  // Run fn while every resource it creates belongs to the tool (not to the program).
  internally(fn) {
    this.internalInit++;
    try {
      return fn();
    } finally {
      this.internalInit--;
    }
  }

  // Promise.all, allSettled, any and race: the promise they return, and the reactions they
  // attach to their inputs, are told apart by the PROMISE resources made during the call. The
  // wrappers make no resource of their own, so the names do not change.
  patchCombinators() {
    if (this.combinatorsPatched) return;
    this.combinatorsPatched = true;
    for (const m of ['all', 'allSettled', 'any', 'race']) {
      const orig = Promise[m];
      if (typeof orig !== 'function') continue;
      const tracker = this;
      const wrapped = {
        [m](iterable) {
          const saved = tracker.combining;
          const c = { made: [] };
          tracker.combining = c;
          let out;
          try {
            out = orig.call(this, iterable);
          } finally {
            tracker.combining = saved;
          }
          const mine = c.made.find(([, p]) => p === out);
          if (mine) {
            const combo = { events: [] };
            tracker.combos.set(mine[0], combo);
            for (const [id, p] of c.made) if (p !== out) tracker.elementOf.set(id, combo);
          }
          return out;
        },
      }[m];
      Object.defineProperty(Promise, m, { value: wrapped, configurable: true, writable: true, enumerable: false });
    }
  }

  init(id, type, trigger, resource) {
    if (this.net) this.net.init(this, id, type, trigger, resource);
    if (this.internalInit > 0) {
      this.internal.add(id);
      if (this.opts.onInternal) this.opts.onInternal(id, type, trigger, resource);
      return;
    }
    if (this.combining !== null && type === 'PROMISE') this.combining.made.push([id, resource]);
    const creator = this.current === null ? 0 : this.current;
    let c = this.counts.get(creator);
    if (!c) this.counts.set(creator, (c = new Map()));
    const rank = c.get(type) || 0;
    c.set(type, rank + 1);
    const name = this.events[creator].name + '.' + codeOf(type) + rank;
    const r = { name, type, creator, trigger, k: 0, last: -1, skip: 0, merged: false };
    // A tick, timer, immediate or microtask that Node's own modules asked for (a stream ending,
    // a server emitting `listening`, the HTTP date cache expiring) is not an event: it is Node's
    // code finishing its creator's work, and runs as part of it. So is a promise that Node's code
    // made: its job runs as part of the event that settled the promise it waits on.
    if (MERGEABLE.has(type) && askedByNode()) {
      r.merged = true;
      c.set(type, rank); // it takes no rank: the program's own ticks keep their names
    }
    this.res.set(id, r);
    if (/WRAP$/.test(type) && resource && typeof resource === 'object') this.watchHandle(r, resource);
    if (this.opts.onInit) this.opts.onInit(r, id);
  }

  // A handle's next callback comes after the event that asked for it: the one that started
  // reading (readStart) or closed the handle (close: its callback is the close callback). The
  // methods are wrapped on the handle object itself; the wrappers make no resource.
  watchHandle(r, handle) {
    r.asked = [];
    for (const m of ['readStart', 'close']) {
      const orig = handle[m];
      if (typeof orig !== 'function') continue;
      const tracker = this;
      handle[m] = function (...a) {
        if (tracker.current !== null && !r.asked.includes(tracker.current)) r.asked.push(tracker.current);
        return orig.apply(this, a);
      };
    }
  }

  promiseResolve(id) {
    if (this.current === null || this.resolvedBy.has(id)) return;
    const by = [this.current];
    const combo = this.combos.get(id);
    if (combo) for (const ev of combo.events) if (ev !== this.current) by.push(ev);
    this.resolvedBy.set(id, by);
  }

  before(id) {
    this.depth++;
    if (this.depth !== 1 || this.internal.has(id)) return;
    const r = this.res.get(id);
    if (!r) return; // created before the hook was enabled: not part of the program's order
    if (r.merged) {
      // Node's tick or timer runs as part of its creator, Node's promise job as part of the
      // event that settled the promise it waits on: what it creates and settles is theirs
      let to = r.creator;
      if (r.type === 'PROMISE' && this.resolvedBy.has(r.trigger)) to = this.resolvedBy.get(r.trigger)[0];
      this.current = to;
      if (this.opts.onMerged) this.opts.onMerged(this.events[to], r);
      return;
    }
    if (r.skip > 0) {
      r.skip--; // a callback the tool caused (replay's thenable job): not an event
      return;
    }
    const name = r.k === 0 ? r.name : r.name + ':' + r.k;
    const ev = this.addEvent(name, r.type);
    const e = this.events[ev];
    if (r.k === 0) {
      e.preds.add(r.creator);
      if (r.type === 'PROMISE') {
        for (const w of this.resolvedBy.get(r.trigger) || []) if (w !== ev) e.preds.add(w);
        const combo = this.elementOf.get(id);
        if (combo) combo.events.push(ev);
      }
    } else {
      e.preds.add(r.last);
    }
    if (r.asked && r.asked.length > 0) {
      for (const w of r.asked) if (w !== ev) e.preds.add(w);
      r.asked = [];
    }
    r.k++;
    r.last = ev;
    if (this.net) this.net.before(this, id, r.type, e);
    this.current = ev;
    if (this.opts.onStart) this.opts.onStart(e, r);
  }

  after(id) {
    if (this.depth > 0) this.depth--;
    if (this.depth !== 0) return;
    const ev = this.current;
    this.current = null;
    if (ev !== null && ev !== 0 && this.opts.onEnd) this.opts.onEnd(this.events[ev], id);
  }

  // The main script has returned: from now on only callbacks are events.
  endMain() {
    if (this.current === 0 && this.depth === 0) this.current = null;
  }

  // Run fn as (part of) the event ev: what fn creates belongs to ev. Used by replay to run a
  // held callback at its turn; nested hooks inside fn are not events of their own.
  runAs(ev, fn) {
    const saved = this.current;
    this.current = ev;
    this.depth++;
    try {
      return fn();
    } finally {
      this.depth--;
      this.current = saved;
    }
  }

  // The order as DOT, every name quoted the way Graphviz reads it back. Events are listed in the
  // order of their names (byNameOrder), not in the order they ran, so two runs that give the
  // same order give the same file.
  dot(title) {
    const order = this.events.map((e) => e.index).sort((a, b) => byNameOrder(this.events[a].name, this.events[b].name));
    const out = [];
    out.push('// happens-before order of one run of ' + (title || 'a Node.js program'));
    out.push('// recorded by examples/node/record.js (node ' + process.version + ')');
    out.push('digraph order {');
    const rank = new Map(order.map((ev, i) => [ev, i]));
    for (const ev of order) {
      const e = this.events[ev];
      out.push('  ' + dotId(e.name) + ' [type=' + dotId(attrText(e.type)) + '];');
    }
    for (const ev of order) {
      const e = this.events[ev];
      for (const p of [...e.preds].sort((a, b) => rank.get(a) - rank.get(b)))
        out.push('  ' + dotId(this.events[p].name) + ' -> ' + dotId(e.name) + ';');
    }
    out.push('}');
    return out.join('\n') + '\n';
  }
}

// Edges that async_hooks does not give, for TCP connections whose two ends are in this process
// (a server and its client on 127.0.0.1). The events that send on a socket are noted: the one
// that issues its connect request (TCPCONNECTWRAP), and those that write or end it (net.Socket's
// _writeGeneric and _final, patched). An event that receives on the other end (a read callback
// of the peer's TCPWRAP, an HTTP parser callback of the peer's socket, or the server's accept
// of it) comes after every send of the peer that happened before it and is not yet linked to an
// earlier receive. The two ends are paired by address and port (getsockname, getpeername).
class NetLinks {
  constructor() {
    this.handles = new Map(); // asyncId -> TCP handle
    this.sockname = new Map(); // asyncId -> "address port", once known
    this.peerOf = new Map(); // asyncId -> asyncId of the other end in this process
    this.sends = new Map(); // asyncId -> event indices that sent on it, in order
    this.linked = new Map(); // asyncId of a receiver -> how many of its peer's sends are linked
    this.parserSocket = new Map(); // asyncId of an HTTP parser resource -> its socket's handle id
    this.accepted = new Map(); // asyncId of a server -> handles accepted, awaiting its callback
  }

  patch(tracker) {
    const net = require('net');
    const links = this;
    for (const m of ['_writeGeneric', '_final']) {
      const orig = net.Socket.prototype[m];
      if (typeof orig !== 'function') continue;
      net.Socket.prototype[m] = function (...a) {
        const h = this._handle;
        if (h && typeof h.getAsyncId === 'function') links.send(tracker, h.getAsyncId());
        return orig.apply(this, a);
      };
    }
  }

  send(tracker, handleId) {
    if (tracker.current === null) return;
    let list = this.sends.get(handleId);
    if (!list) this.sends.set(handleId, (list = []));
    if (list[list.length - 1] !== tracker.current) list.push(tracker.current);
  }

  init(tracker, id, type, trigger, resource) {
    if (type === 'TCPWRAP') {
      this.handles.set(id, resource);
      // created by libuv for a connection a server accepts: its callback is the accept
      if (tracker.res.has(trigger) && tracker.res.get(trigger).type === 'TCPSERVERWRAP') {
        let list = this.accepted.get(trigger);
        if (!list) this.accepted.set(trigger, (list = []));
        list.push(id);
      }
    } else if (type === 'TCPCONNECTWRAP') {
      this.send(tracker, trigger);
    } else if (resource && resource.socket && resource.socket._handle) {
      const h = resource.socket._handle;
      if (typeof h.getAsyncId === 'function') this.parserSocket.set(id, h.getAsyncId());
    }
  }

  address(handleId, method) {
    const h = this.handles.get(handleId);
    if (!h || typeof h[method] !== 'function') return null;
    try {
      const out = {};
      if (h[method](out) !== 0 || out.port === undefined) return null;
      return out.address + ' ' + out.port;
    } catch (err) {
      return null;
    }
  }

  peer(handleId) {
    if (this.peerOf.has(handleId)) return this.peerOf.get(handleId);
    const want = this.address(handleId, 'getpeername');
    if (want === null) return null;
    for (const other of this.handles.keys()) {
      if (other === handleId) continue;
      let name = this.sockname.get(other);
      if (name === undefined) {
        name = this.address(other, 'getsockname');
        if (name !== null) this.sockname.set(other, name);
      }
      if (name === want) {
        this.peerOf.set(handleId, other);
        this.peerOf.set(other, handleId);
        return other;
      }
    }
    return null;
  }

  receive(tracker, handleId, e) {
    // the sockets' own names are taken while they are open, for peers that look later
    if (!this.sockname.has(handleId)) {
      const name = this.address(handleId, 'getsockname');
      if (name !== null) this.sockname.set(handleId, name);
    }
    const peer = this.peer(handleId);
    if (peer === null) return;
    const list = this.sends.get(peer) || [];
    for (let k = this.linked.get(handleId) || 0; k < list.length; k++)
      if (list[k] !== e.index) e.preds.add(list[k]);
    this.linked.set(handleId, list.length);
  }

  before(tracker, id, type, e) {
    if (this.handles.has(id)) this.receive(tracker, id, e);
    else if (this.parserSocket.has(id)) this.receive(tracker, this.parserSocket.get(id), e);
    else if (type === 'TCPSERVERWRAP' && this.accepted.has(id)) {
      for (const h of this.accepted.get(id)) this.receive(tracker, h, e);
      this.accepted.delete(id);
    }
  }
}

// Whether the tick, timer or immediate being initialised was asked for by Node's own modules: the
// first stack frame after the hooks, the tick queue and the timers, that is not one of these
// tools' files, is Node's (a `node:` URL). Record and replay ask the same question, so both name
// the same events.
const MERGEABLE = new Set(['TickObject', 'Timeout', 'Immediate', 'Microtask', 'PROMISE']);
const TOOL_FILES = new Set(['asyncorder.js', 'awaits.js', 'record.js', 'replay.js'].map((f) => path.join(__dirname, f)));
const QUEUE_FRAME = /node:(?:async_hooks|internal\/async_hooks|internal\/process\/task_queues|internal\/timers|timers)[:)]/;
function askedByNode() {
  const saved = Error.stackTraceLimit;
  Error.stackTraceLimit = 20;
  const probe = {};
  Error.captureStackTrace(probe, askedByNode);
  Error.stackTraceLimit = saved;
  const frames = String(probe.stack).split('\n').slice(1);
  let i = frames.findIndex((f) => QUEUE_FRAME.test(f));
  if (i < 0) return false;
  for (; i < frames.length; i++) {
    const f = frames[i];
    if (QUEUE_FRAME.test(f) || /\((?:<anonymous>|native|index \d+)\)\s*$/.test(f)) continue;
    const m = /\(?((?:file:\/\/)?\/[^:()]*):\d+:\d+\)?\s*$/.exec(f);
    if (m && TOOL_FILES.has(m[1].replace(/^file:\/\//, ''))) continue;
    return /^\s*at (?:.* \()?node:/.test(f);
  }
  return false;
}

// Names compared segment by segment (a creator before what it created), a segment by its type
// code, then its rank as a number, then its callback number: main.T2 < main.T2:1 < main.T2.P0 <
// main.T10.
function segmentKey(seg) {
  const m = /^(.*?)([0-9]+)(?::([0-9]+))?$/.exec(seg);
  return m ? [m[1], Number(m[2]), m[3] === undefined ? 0 : Number(m[3])] : [seg, -1, 0];
}

function byNameOrder(a, b) {
  const x = a.split('.');
  const y = b.split('.');
  for (let i = 0; i < x.length && i < y.length; i++) {
    if (x[i] === y[i]) continue;
    const [cx, rx, kx] = segmentKey(x[i]);
    const [cy, ry, ky] = segmentKey(y[i]);
    if (cx !== cy) return cx < cy ? -1 : 1;
    if (rx !== ry) return rx - ry;
    if (kx !== ky) return kx - ky;
    return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length;
}

// ------------------------------------------------------------------------------------------
// Quoting

const KEYWORDS = new Set(['node', 'edge', 'graph', 'digraph', 'subgraph', 'strict']);

// A name that DOT and the family format both read bare: an identifier (not a keyword, any
// case) or a numeral. Bytes >= 0x80 count as letters in both.
function isBare(name) {
  if (name === '' || name.startsWith('\uFEFF')) return false;
  if (/^[A-Za-z_\u0080-\uFFFF][A-Za-z0-9_\u0080-\uFFFF]*$/.test(name))
    return !KEYWORDS.has(name.toLowerCase());
  return /^-?(\.[0-9]+|[0-9]+(\.[0-9]*)?)$/.test(name);
}

// A value that a DOT quoted string gives back byte for byte: inside quotes only \" is an escape
// and backslash-newline a continuation; any other backslash stays. So a name cannot be written
// when it holds a line break, a backslash before a quote or a backslash at its end (the tracker's
// names hold none of them; attribute text is cleaned by attrText).
function dotId(name) {
  if (isBare(name)) return name;
  if (/[\n\r]|\\"|\\$/.test(name)) throw new Error('name cannot be written as a DOT ID: ' + name);
  return '"' + name.replace(/"/g, '\\"') + '"';
}

function attrText(s) {
  return String(s).replace(/[\\"\n\r]/g, '_');
}

// The family text format's quoting: bare when bare, else double quotes with \" \\ \n escapes.
function familyName(name) {
  if (isBare(name)) return name;
  return '"' + name.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : '\\' + c)) + '"';
}

function familyRow(names) {
  return names.map(familyName).join(' ');
}

// Read a family in the text format: the `# hitfam` header and other lines starting with `#` are
// comments; each other non-blank line is one schedule, names separated by blanks (space, tab)
// (a bare name also ends where a quote starts the next one); a name in double quotes takes \" \\ \n as escapes, a backslash before a line break continues
// the name on the next line, and any other backslash stays with the byte after it.
// Returns an array of schedules (arrays of names); throws Error with a line number on bad input.
function parseFamily(text) {
  const rows = [];
  let i = 0;
  let line = 1;
  const n = text.length;
  const eol = (j) => j >= n || text[j] === '\n' || (text[j] === '\r' && text[j + 1] === '\n');
  while (i < n) {
    while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
    if (eol(i)) {
      if (i >= n) break;
      i += text[i] === '\r' ? 2 : 1;
      line++;
      continue;
    }
    if (text[i] === '#') {
      while (!eol(i)) i++;
      continue;
    }
    const row = [];
    while (!eol(i)) {
      const c = text[i];
      if (c === ' ' || c === '\t') {
        i++;
        continue;
      }
      if (c !== '"') {
        let j = i;
        while (!eol(j) && text[j] !== ' ' && text[j] !== '\t' && text[j] !== '"') j++;
        row.push(text.slice(i, j));
        i = j;
        continue;
      }
      let s = '';
      let j = i + 1;
      for (;;) {
        if (eol(j)) throw new Error(`line ${line}: quoted name not closed`);
        const d = text[j];
        if (d === '"') {
          j++;
          break;
        }
        if (d !== '\\') {
          s += d;
          j++;
          continue;
        }
        const e = text[j + 1];
        if (e === undefined) throw new Error(`line ${line}: quoted name not closed`);
        if (e === '"' || e === '\\') {
          s += e;
          j += 2;
        } else if (e === 'n') {
          s += '\n';
          j += 2;
        } else if (e === '\n') {
          j += 2;
          line++;
        } else if (e === '\r' && text[j + 2] === '\n') {
          j += 3;
          line++;
        } else {
          s += '\\' + e;
          j += 2;
        }
      }
      row.push(s);
      i = j;
    }
    rows.push(row);
  }
  return rows;
}

module.exports = { Tracker, codeOf, isBare, dotId, familyName, familyRow, parseFamily };
