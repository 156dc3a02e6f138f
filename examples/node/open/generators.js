'use strict';
// An async generator read with `for await`, and events.once: the generator's steps are promise
// jobs that V8 makes and runs itself, which replay does not hold yet.
const { once, EventEmitter } = require('events');
const log = [];
const bus = new EventEmitter();
async function waiter(name) {
  const [v] = await once(bus, name);
  log.push(name + '=' + v);
  queueMicrotask(() => log.push('micro ' + name));
}
waiter('a');
waiter('b');
setTimeout(() => bus.emit('a', 1), 2);
setTimeout(() => bus.emit('b', 2), 4);
async function* count() {
  yield 1;
  await null;
  yield 2;
}
setImmediate(async () => {
  for await (const x of count()) log.push('gen' + x);
});
process.on('exit', () => console.log(log.join(' ')));
