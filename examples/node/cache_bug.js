'use strict';
// A page cache with an ordering bug of depth 3 (see README.md).
//
// A request renders a page: it reads the template from disk (callback x), renders it with the
// current settings, writes the result to a cache file and, when that write completes (callback z),
// marks the cached page valid. An admin timer (callback y) changes the settings and invalidates
// the cache. When the program ends it serves the page from the cache, if the cache is valid, and
// checks it against a fresh render of the current settings. Other callbacks (a second page, a
// heartbeat, an access log) run around them and are correct in every order.
//
// The served page is stale only when y runs after x (the render used the old settings) and before
// z (the invalidation came before the stale page was marked valid, so nothing invalidates it
// again): the order x, y, z. With y before x the render already uses the new settings; with z
// before y the invalidation removes the stale page. In a plain run the seven file callbacks from
// x's read to z take a few milliseconds and the admin timer waits 100 ms, so the bug seldom shows
// (README.md gives the measured rate).
const fs = require('fs');
const os = require('os');
const path = require('path');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hitfam-cache-'));
const templateFile = path.join(dir, 'page.tmpl');
const cacheFile = path.join(dir, 'page.cache');
fs.writeFileSync(templateFile, '<body class="{theme}">hello</body>');

const settings = { theme: 'light' };
const cache = { page: null, valid: false };

function render(template) {
  return template.replace('{theme}', settings.theme);
}

// The request: x is the template read's callback, z the cache write's.
fs.readFile(templateFile, 'utf8', (err, template) => {
  if (err) throw err;
  const page = render(template);
  fs.writeFile(cacheFile, page, (err2) => {
    if (err2) throw err2;
    cache.page = page;
    cache.valid = true;
  });
});

// The admin: y switches the theme and invalidates the cache.
setTimeout(() => {
  settings.theme = 'dark';
  cache.valid = false;
  cache.page = null;
}, 100);

// Traffic around them that is correct in every order: a second page rendered without a cache, a
// heartbeat timer and an access log appended by an immediate.
fs.readFile(templateFile, 'utf8', (err, template) => {
  if (err) throw err;
  fs.writeFile(path.join(dir, 'about.html'), template.replace('{theme}', 'plain'), (err2) => {
    if (err2) throw err2;
  });
});
let beats = 0;
setTimeout(function beat() {
  if (++beats < 2) setTimeout(beat, 3);
}, 3);
setImmediate(() => {
  fs.appendFile(path.join(dir, 'access.log'), 'GET /\n', (err) => {
    if (err) throw err;
  });
});

process.on('exit', () => {
  const fresh = render(fs.readFileSync(templateFile, 'utf8'));
  const served = cache.valid ? cache.page : fresh;
  fs.rmSync(dir, { recursive: true, force: true });
  if (served !== fresh) {
    console.log('STALE: served ' + served + ' instead of ' + fresh);
    process.exitCode = 1;
  } else {
    console.log('ok: ' + served);
  }
});
