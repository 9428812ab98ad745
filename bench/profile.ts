import fs from 'node:fs';
import path from 'node:path';
import { owner } from './profile-diff.js';

/**
 * `node dist/bench/profile.js FILE.cpuprofile [top]`: a V8 CPU profile (`node --cpu-prof`, e.g. from
 * `BENCH_NODE_ARGS`) summed by self time per package (node_modules/<name>), our own code per
 * folder (src/…), Node internals and V8's own entries (GC, idle, program), then the top functions.
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

function main(): void {
  const [file, topArg] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile.js FILE.cpuprofile [top]');
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self.entries()].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, t]) => a + t, 0);
  const busy = total - idle;

  const groups = new Map<string, number>();
  const fns = new Map<string, number>();
  for (const [id, t] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    const g = owner(url, functionName);
    groups.set(g, (groups.get(g) ?? 0) + t);
    const key = `${functionName || '(anonymous)'} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ''} [${g}]`;
    fns.set(key, (fns.get(key) ?? 0) + t);
  }
  // Each sample charged to the nearest frame of our own code above it (src/…): what our functions cost with the libraries they call.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const own = new Map<string, number>();
  for (const [id, t] of self) {
    let at: number | undefined = id;
    let key = '(no frame of ours: framework, I/O, GC)';
    while (at !== undefined) {
      const { functionName, url, lineNumber } = byId.get(at)!.callFrame;
      if (functionName === '(idle)') key = '';
      if (/\/dist\/src\//.test(url)) {
        key = `${functionName || '(anonymous)'} ${url.replace(/.*\/dist\//, '')}:${lineNumber + 1}`;
        break;
      }
      at = parent.get(at);
    }
    if (key) own.set(key, (own.get(key) ?? 0) + t);
  }
  const pct = (t: number) => `${((100 * t) / busy).toFixed(1).padStart(5)} %`;
  console.log(`busy ${(busy / 1000).toFixed(0)} ms of ${(total / 1000).toFixed(0)} ms sampled\n\nself time by package or folder:`);
  for (const [g, t] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${pct(t)}  ${g}`);
  console.log('\nself time below the nearest own frame:');
  for (const [f, t] of [...own].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${pct(t)}  ${f}`);
  console.log('\ntop functions:');
  for (const [f, t] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 40))) console.log(`${pct(t)}  ${f}`);
}

main();
