'use strict';
// Two HTTP POST requests at once on 127.0.0.1; the server answers each after a timer.
const http = require('http');
const log = [];
let pending = 2;
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    log.push('server got ' + body);
    setTimeout(() => res.end(body.toUpperCase()), 2);
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  for (const word of ['one', 'two']) {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        log.push('client got ' + text);
        if (--pending === 0) server.close();
      });
    });
    req.end(word);
  }
});
process.on('exit', () => console.log(log.join('; ')));
