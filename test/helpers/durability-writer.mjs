// Child process for the durability test: opens a store from the compiled modules with the
// StorageOptions given as JSON in argv[2], then creates `${argv[3]}<n>` for n = 0, 1, ... and
// prints each key on its own line only after the store acknowledged the write. Runs until killed.
import { openStorage } from '../../dist/storage/index.js';

const [optionsJson, prefix] = process.argv.slice(2);
const store = await openStorage(JSON.parse(optionsJson));
// A cap, so a writer orphaned by a crashed test still stops on its own.
for (let n = 0; n < 1_000_000; n++) {
  const key = `${prefix}${n}`;
  await store.create(key, JSON.stringify({ n }));
  // Pipes are synchronous on Linux: a printed key has left this process before the next write.
  process.stdout.write(`${key}\n`);
}
