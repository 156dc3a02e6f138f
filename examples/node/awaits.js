'use strict';
// Await continuations made holdable. V8 attaches the continuation of `await X` to X without
// calling `then`, so a player that patches `then` cannot hold it. When the program's own files are
// loaded (CommonJS, through Module.prototype._compile), every `await X` in them is rewritten to
// `await __hitfam_hold(X)`, every `yield X` of an async generator (which awaits X) to
// `yield __hitfam_hold(X)`, and every `for await (HEAD of E)` to
// `for await (HEAD of __hitfam_iter(E))`. The global __hitfam_hold is the identity by default, which changes
// nothing: no promise, no job, so a recording gives the same names with or without the rewrite.
// replay.js installs a hold that returns a promise of its own that it resolves when X has settled
// and the continuation's turn has come.
//
// The rewrite works on tokens: strings, template literals (with their ${} parts), comments and
// regular expression literals are skipped, and the operand of `await` (a unary expression:
// prefix operators, then a primary expression with its member accesses, calls, tagged templates
// and postfix ++/--) is wrapped in the call. An `await` that is a property name (`a.await`,
// `{ await: 1 }`), `for await`, or has no operand is left alone. If the rewritten file does not
// compile, the original is used (and reported by the caller).
const vm = require('vm');

const HOLD = '__hitfam_hold';
const ITER = '__hitfam_iter';

const PUNCT = [
  '>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '>>>', '&&=', '||=', '??=',
  '=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=',
  '%=', '&=', '|=', '^=', '**', '<<', '>>',
];
const REGEX_AFTER_WORD = new Set([
  'return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do',
  'else', 'yield', 'await',
]);
const isIdStart = (c) => /[A-Za-z_$\u0080-\uFFFF]/.test(c);
const isIdPart = (c) => /[A-Za-z0-9_$\u0080-\uFFFF]/.test(c);

// Tokens: {t: 'id'|'num'|'str'|'re'|'p'|'tmpl'|'tmplStart'|'tmplMid'|'tmplEnd', v, s, e, nl}
// (nl: a line break before it). A template with substitutions is tmplStart, the tokens of the
// first substitution, tmplMid, ..., tmplEnd.
function tokenize(src) {
  const toks = [];
  const n = src.length;
  let i = 0;
  let nl = false;
  const braces = []; // for each open `{` or `${`: true when it opened a substitution
  const push = (t, s, e, v) => {
    toks.push({ t, v: v === undefined ? src.slice(s, e) : v, s, e, nl });
    nl = false;
  };
  const regexAllowed = () => {
    const p = toks[toks.length - 1];
    if (!p) return true;
    if (p.t === 'id') return REGEX_AFTER_WORD.has(p.v);
    if (p.t === 'p') return p.v !== ')' && p.v !== ']';
    return p.t === 'tmplStart' || p.t === 'tmplMid';
  };
  // the rest of a template from i (just after ` or }): returns [end, closed by backtick]
  const templateRest = (j) => {
    while (j < n) {
      const c = src[j];
      if (c === '\\') j += 2;
      else if (c === '`') return [j + 1, true];
      else if (c === '$' && src[j + 1] === '{') return [j + 2, false];
      else j++;
    }
    throw new Error('template literal not closed');
  };
  if (src.startsWith('#!')) while (i < n && src[i] !== '\n') i++;
  while (i < n) {
    const c = src[i];
    if (c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029') {
      nl = true;
      i++;
    } else if (/\s/.test(c)) i++;
    else if (c === '/' && src[i + 1] === '/') {
      while (i < n && src[i] !== '\n' && src[i] !== '\r') i++;
    } else if (c === '/' && src[i + 1] === '*') {
      const e = src.indexOf('*/', i + 2);
      if (e < 0) throw new Error('comment not closed');
      if (/[\n\r\u2028\u2029]/.test(src.slice(i, e))) nl = true;
      i = e + 2;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < n && src[j] !== c) j += src[j] === '\\' ? 2 : 1;
      if (j >= n) throw new Error('string not closed');
      push('str', i, j + 1);
      i = j + 1;
    } else if (c === '`') {
      const [e, closed] = templateRest(i + 1);
      if (closed) push('tmpl', i, e);
      else {
        push('tmplStart', i, e);
        braces.push(true);
      }
      i = e;
    } else if (c === '}' && braces.length > 0 && braces[braces.length - 1]) {
      braces.pop();
      const [e, closed] = templateRest(i + 1);
      if (closed) push('tmplEnd', i, e);
      else {
        push('tmplMid', i, e);
        braces.push(true);
      }
      i = e;
    } else if (c === '/' && regexAllowed()) {
      let j = i + 1;
      let cls = false;
      while (j < n && (cls || src[j] !== '/')) {
        if (src[j] === '\n') throw new Error('regular expression not closed');
        if (src[j] === '\\') j++;
        else if (src[j] === '[') cls = true;
        else if (src[j] === ']') cls = false;
        j++;
      }
      j++;
      while (j < n && isIdPart(src[j])) j++;
      push('re', i, j);
      i = j;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] || ''))) {
      let j = i + 1;
      while (j < n) {
        if (/[eE]/.test(src[j]) && !/^0[xX]/.test(src.slice(i, i + 2)) && /[+-]/.test(src[j + 1] || '')) j += 2;
        else if (/[0-9A-Za-z_.]/.test(src[j])) j++;
        else break;
      }
      push('num', i, j);
      i = j;
    } else if (isIdStart(c) || c === '#' || c === '\\') {
      let j = i + 1;
      while (j < n && (isIdPart(src[j]) || src[j] === '\\')) j++;
      push('id', i, j);
      i = j;
    } else {
      let p = PUNCT.find((q) => src.startsWith(q, i));
      if (p === '?.' && /[0-9]/.test(src[i + 2] || '')) p = undefined; // a ? .5 : b
      if (!p) p = c;
      if (p === '{') braces.push(false);
      else if (p === '}') braces.pop();
      push('p', i, i + p.length);
      i += p.length;
    }
  }
  return toks;
}

const OPEN = { '(': ')', '[': ']', '{': '}' };

// Index after the group that opens at toks[i] (a bracket or a template start).
function group(toks, i) {
  let depth = 0;
  for (let j = i; j < toks.length; j++) {
    const t = toks[j];
    if ((t.t === 'p' && OPEN[t.v]) || t.t === 'tmplStart') depth++;
    else if ((t.t === 'p' && (t.v === ')' || t.v === ']' || t.v === '}')) || t.t === 'tmplEnd') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}

const isP = (t, v) => t !== undefined && t.t === 'p' && t.v === v;
const isId = (t, v) => t !== undefined && t.t === 'id' && (v === undefined || t.v === v);
const PREFIX = new Set(['!', '~', '+', '-', '++', '--']);
const PREFIX_WORDS = new Set(['typeof', 'void', 'delete', 'await']);
const NOT_PRIMARY = new Set([
  'in', 'of', 'instanceof', 'case', 'default', 'else', 'catch', 'finally', 'extends', 'var',
  'let', 'const', 'if', 'for', 'while', 'do', 'return', 'throw', 'break', 'continue', 'switch',
  'try', 'with', 'debugger', 'import', 'export', 'yield',
]);

// The end (token index) of a unary expression starting at toks[i], or -1 when there is none.
function unary(toks, i) {
  const t = toks[i];
  if (t === undefined) return -1;
  if ((t.t === 'p' && PREFIX.has(t.v)) || (t.t === 'id' && PREFIX_WORDS.has(t.v))) return unary(toks, i + 1);
  let j = lhs(toks, i);
  if (j < 0) return -1;
  if ((isP(toks[j], '++') || isP(toks[j], '--')) && !toks[j].nl) j++;
  return j;
}

function primary(toks, i) {
  const t = toks[i];
  if (t === undefined) return -1;
  if (t.t === 'p' && OPEN[t.v]) return group(toks, i);
  if (t.t === 'tmplStart') return group(toks, i);
  if (t.t === 'num' || t.t === 'str' || t.t === 're' || t.t === 'tmpl') return i + 1;
  if (t.t !== 'id' || NOT_PRIMARY.has(t.v)) return -1;
  let j = i;
  if (t.v === 'async' && isId(toks[i + 1], 'function') && !toks[i + 1].nl) j = i + 1;
  if (isId(toks[j], 'function') || isId(toks[j], 'class')) {
    // up to the body's closing brace: the parameters (a function) or the heritage (a class)
    // come first and hold no bare `{` except in groups
    for (let k = j + 1; k < toks.length; k++) {
      if (isP(toks[k], '{')) return group(toks, k);
      if (isP(toks[k], '(') || isP(toks[k], '[')) {
        k = group(toks, k) - 1;
        if (k < 0) return -1;
      }
    }
    return -1;
  }
  return i + 1;
}

// A member or call expression: `new` forms, a primary, then .x ?.x ?.() ?.[] [] () `tmpl`.
function lhs(toks, i) {
  let j;
  if (isId(toks[i], 'new')) {
    if (isP(toks[i + 1], '.')) j = i + 3; // new.target
    else {
      j = isId(toks[i + 1], 'new') ? lhs(toks, i + 1) : primary(toks, i + 1);
      if (j < 0) return -1;
      j = suffixes(toks, j, false);
      if (isP(toks[j], '(')) j = group(toks, j);
    }
  } else j = primary(toks, i);
  if (j < 0) return -1;
  return suffixes(toks, j, true);
}

function suffixes(toks, j, calls) {
  for (;;) {
    const t = toks[j];
    if (t === undefined || j < 0) return j;
    if (isP(t, '.') && toks[j + 1] && toks[j + 1].t === 'id') j += 2;
    else if (isP(t, '?.') && calls) {
      const u = toks[j + 1];
      if (u && u.t === 'id') j += 2;
      else if (isP(u, '(') || isP(u, '[')) j = group(toks, j + 1);
      else return j;
    } else if (isP(t, '[')) j = group(toks, j);
    else if (isP(t, '(') && calls) j = group(toks, j);
    else if (t.t === 'tmpl') j++;
    else if (t.t === 'tmplStart') j = group(toks, j);
    else return j;
  }
}

// The bodies of the functions in toks: [{open, close, asyncGen}] (token indices of the braces),
// for `function` forms, methods (`name() {`, `*name() {`, `async *name() {`) and arrows with a
// block body. Used to find the yields of async generators.
const KEYWORD_BLOCK = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'function']);
function bodies(toks) {
  const out = [];
  const after = (j) => (isP(toks[j], '{') ? { open: j, close: group(toks, j) - 1 } : null);
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    let body = null;
    let asyncGen = false;
    if (isId(t, 'function')) {
      let j = k + 1;
      const star = isP(toks[j], '*');
      if (star) j++;
      if (isId(toks[j])) j++;
      if (isP(toks[j], '(')) body = after(group(toks, j));
      asyncGen = star && isId(toks[k - 1], 'async') && !t.nl;
    } else if (isP(t, '=>')) {
      body = after(k + 1);
    } else if ((isId(t) && !KEYWORD_BLOCK.has(t.v)) || t.t === 'str' || isP(t, ']')) {
      // a method: NAME ( ... ) {   (a computed name ends with ])
      if (isP(toks[k + 1], '(')) {
        const end = group(toks, k + 1);
        if (end > 0 && isP(toks[end], '{')) {
          body = after(end);
          let n = k;
          if (isP(t, ']')) for (let depth = 0; n >= 0; n--) {
            if (isP(toks[n], ']')) depth++;
            else if (isP(toks[n], '[') && --depth === 0) break;
          }
          asyncGen = isP(toks[n - 1], '*') && isId(toks[n - 2], 'async');
        }
      }
    }
    if (body && body.close > body.open) out.push({ ...body, asyncGen });
  }
  return out;
}

// The end (token index, exclusive) of an assignment expression starting at toks[i]: up to a
// `,` `;` `)` `]` `}` or an unmatched `:` at its level, or a line break where the expression
// cannot go on.
const GOES_ON = new Set(['.', '?.', '(', '[', '?', ':', '=', '+', '-', '*', '/', '%', '**', '&&', '||',
  '??', '&', '|', '^', '<', '>', '<=', '>=', '==', '!=', '===', '!==', '<<', '>>', '>>>', '=>']);
function assignmentEnd(toks, i) {
  let j = i;
  let questions = 0;
  while (j < toks.length) {
    const t = toks[j];
    if (j > i && t.nl) {
      const p = toks[j - 1];
      const open = p.t === 'p' && p.v !== ')' && p.v !== ']' && p.v !== '}' && p.v !== '++' && p.v !== '--';
      if (!open && !(t.t === 'p' && GOES_ON.has(t.v)) && !isId(t, 'instanceof') && !isId(t, 'in')) return j;
    }
    if ((t.t === 'p' && OPEN[t.v]) || t.t === 'tmplStart') {
      j = group(toks, j);
      if (j < 0) return -1;
      continue;
    }
    if (t.t === 'p' && (t.v === ',' || t.v === ';' || t.v === ')' || t.v === ']' || t.v === '}')) return j;
    if (t.t === 'tmplMid' || t.t === 'tmplEnd') return j;
    if (isP(t, '?')) questions++;
    if (isP(t, ':')) {
      if (questions === 0) return j;
      questions--;
    }
    j++;
  }
  return j;
}

// The source with every `await X` turned into `await __hitfam_hold(X)`, every `yield X` in an
// async generator (which awaits X) into `yield __hitfam_hold(X)`, and every
// `for await (HEAD of EXPR)` into `for await (HEAD of __hitfam_iter(EXPR))`; count is the number
// of rewrites.
function rewrite(src) {
  const toks = tokenize(src);
  const inserts = []; // [offset, order, text]
  let fns = null;
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    if (t.t === 'id' && t.v === 'yield') {
      // `yield X` in an async generator awaits X: it becomes `yield __hitfam_hold(X)`
      const prev = toks[k - 1];
      if (isP(prev, '.') || isP(prev, '?.') || isP(toks[k + 1], '*') || (toks[k + 1] && toks[k + 1].nl)) continue;
      if (fns === null) fns = bodies(toks);
      let inner = null;
      for (const f of fns) if (f.open < k && k < f.close && (inner === null || f.open > inner.open)) inner = f;
      if (inner === null || !inner.asyncGen) continue;
      const end = assignmentEnd(toks, k + 1);
      if (end < 0 || end <= k + 1) continue;
      inserts.push([toks[k + 1].s, 1, HOLD + '(']);
      inserts.push([toks[end - 1].e, 0, ')']);
      continue;
    }
    if (t.t !== 'id' || t.v !== 'await') continue;
    const prev = toks[k - 1];
    if (isId(prev, 'for') && isP(toks[k + 1], '(')) {
      // for await (HEAD of EXPR): EXPR becomes __hitfam_iter(EXPR)
      const close = group(toks, k + 1) - 1;
      let depth = 0;
      for (let j = k + 2; j < close; j++) {
        const u = toks[j];
        if ((u.t === 'p' && OPEN[u.v]) || u.t === 'tmplStart') depth++;
        else if ((u.t === 'p' && (u.v === ')' || u.v === ']' || u.v === '}')) || u.t === 'tmplEnd') depth--;
        else if (depth === 0 && isId(u, 'of') && j + 1 < close) {
          inserts.push([toks[j + 1].s, 1, ITER + '(']);
          inserts.push([toks[close - 1].e, 0, ')']);
          break;
        }
      }
      continue;
    }
    if (isP(prev, '.') || isP(prev, '?.') || isId(prev, 'for')) continue;
    const end = unary(toks, k + 1);
    if (end < 0 || end <= k + 1) continue;
    inserts.push([toks[k + 1].s, 1, HOLD + '(']);
    inserts.push([toks[end - 1].e, 0, ')']);
  }
  if (inserts.length === 0) return { code: src, count: 0 };
  // at one offset, closings come before openings; several openings keep their order
  inserts.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let out = '';
  let at = 0;
  for (const [off, , text] of inserts) {
    out += src.slice(at, off) + text;
    at = off;
  }
  return { code: out + src.slice(at), count: inserts.length / 2 };
}

// Install the hold functions (hold for an await, iter for the iterable of a for await) and the
// rewrite of the program's own CommonJS files: every file
// loaded after this call whose path is not under node_modules and not one of skip. Returns a
// report of what was rewritten ({file: count}) and the files left alone because of an error.
function install(hold, opts = {}) {
  Object.defineProperty(globalThis, HOLD, { value: hold, configurable: true, writable: true, enumerable: false });
  const iter = opts.iter || ((x) => x);
  Object.defineProperty(globalThis, ITER, { value: iter, configurable: true, writable: true, enumerable: false });
  const stats = { rewritten: new Map(), failed: new Map() };
  if (opts.rewrite === false) return stats;
  const Module = require('module');
  const skip = new Set(opts.skip || []);
  const origCompile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    if (typeof filename === 'string' && !skip.has(filename) && !/[\\/]node_modules[\\/]/.test(filename) && /\bawait\b/.test(content)) {
      try {
        const { code, count } = rewrite(content);
        if (count > 0) {
          // a compile check in the CommonJS wrapper's shape: a rewrite that breaks the file
          // (an `await` used as a name in sloppy code, say) is dropped
          new vm.Script('(function (exports, require, module, __filename, __dirname) {' + code.replace(/^#!.*/, '') + '\n})', { filename });
          stats.rewritten.set(filename, count);
          content = code;
        }
      } catch (err) {
        stats.failed.set(filename, err.message);
      }
    }
    return origCompile.call(this, content, filename);
  };
  return stats;
}

module.exports = { HOLD, ITER, tokenize, rewrite, install };
