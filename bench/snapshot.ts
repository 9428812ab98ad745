import fs from 'node:fs';
import path from 'node:path';

/**
 * `npm run bench:snapshot NAME`: keeps this tree's build (dist/, after `npm run build`), schema/
 * and the console's static files (src/console, served as they are) under bench/results/builds/NAME, for bench:ab to run against a later build. node_modules
 * resolve from the repository root, so a snapshot runs with the tree's installed packages.
 */
const name = process.argv[2];
if (!name || !/^[\w.-]+$/.test(name) || name === 'current' || name === 'baseline') {
  throw new Error('usage: snapshot.js NAME (letters, digits, . _ -; not current or baseline)');
}
const to = path.resolve('bench', 'results', 'builds', name);
fs.rmSync(to, { recursive: true, force: true });
fs.mkdirSync(to, { recursive: true });
for (const dir of ['dist', 'schema', path.join('src', 'console')]) fs.cpSync(path.resolve(dir), path.join(to, dir), { recursive: true });
console.log(`kept ${to}`);
