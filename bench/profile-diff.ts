import fs from 'node:fs';
import path from 'node:path';

/**
 * `npm run bench:profile-diff -- A.cpuprofile B.cpuprofile [top]`: two CPU profiles taken under
 * the same load (bench:ab with BENCH_PROFILE=1 writes them with a `.requests` file beside each,
 * the requests answered while the profiler ran), compared in µs of CPU per request: self time by
 * package (node_modules/<name>), our own folders (src/…), Node internals and V8 entries (GC,
 * program), then the functions that differ most. Idle time is left out.
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

export function owner(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const src = url.match(/\/dist\/(src|bench)\/([^/]+)/);
  if (src) return `${src[1]}/${src[2]}`;
  return url;
}

/** µs per request by package and by function. */
function load(file: string): { packages: Map<string, number>; functions: Map<string, number>; requests: number } {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const requests = Number(fs.readFileSync(file.replace(/\.cpuprofile$/, '.requests'), 'utf8'));
  if (!(requests > 0)) throw new Error(`${file}: no request count beside it`);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const packages = new Map<string, number>();
  const functions = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') return;
    const t = (profile.timeDeltas[i] ?? 0) / requests;
    const g = owner(url, functionName);
    packages.set(g, (packages.get(g) ?? 0) + t);
    const key = `${functionName || '(anonymous)'} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ''} [${g}]`;
    functions.set(key, (functions.get(key) ?? 0) + t);
  });
  return { packages, functions, requests };
}

function diff(a: Map<string, number>, b: Map<string, number>, top: number): string[] {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys]
    .map((k) => ({ k, a: a.get(k) ?? 0, b: b.get(k) ?? 0 }))
    .sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a))
    .slice(0, top)
    .map(
      (r) =>
        `${r.a.toFixed(1).padStart(8)} ${r.b.toFixed(1).padStart(8)} ${(r.b - r.a >= 0 ? '+' : '') + (r.b - r.a).toFixed(1).padStart(7)}  ${r.k}`,
    );
}

function main(): void {
  const [fa, fb, topArg] = process.argv.slice(2);
  if (!fa || !fb) throw new Error('usage: profile-diff.js A.cpuprofile B.cpuprofile [top]');
  const a = load(fa);
  const b = load(fb);
  const total = (m: Map<string, number>) => [...m.values()].reduce((x, y) => x + y, 0);
  console.log(
    `µs of CPU per request (busy samples): A ${total(a.packages).toFixed(1)} (${a.requests} requests), B ${total(b.packages).toFixed(1)} (${b.requests} requests)\n`,
  );
  console.log('       A        B     B−A  package or folder');
  for (const l of diff(a.packages, b.packages, 30)) console.log(l);
  console.log('\n       A        B     B−A  function');
  for (const l of diff(a.functions, b.functions, Number(topArg ?? 40))) console.log(l);
}

if (require.main === module) main();
