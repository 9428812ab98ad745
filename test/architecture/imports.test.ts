import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Imports point one way: rest → graph → services → db/entities, with the shared request types in
 * src/context. This builds the module graph of the project the way the compiler sees it (the files and
 * options of tsconfig.json; every `import`, `import type`, `export … from`, `import()` and
 * `declare module` augmentation counts, type-only ones included, since a type-only circle is still a
 * circle in the design) and fails listing every circle and every import against the layering.
 */
const root = path.resolve(__dirname, '..', '..');

function projectGraph(): Map<string, Set<string>> {
  const configPath = path.join(root, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (f) => ts.sys.readFile(f));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root);
  const host = ts.createCompilerHost(parsed.options);
  const cache = ts.createModuleResolutionCache(root, (f) => f, parsed.options);
  const files = parsed.fileNames.filter((f) => /\.(ts|mts|cts)$/.test(f) && !f.endsWith('.d.ts')).map((f) => path.resolve(f));
  const inProject = new Set(files);
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const edges = new Set<string>();
    for (const ref of info.importedFiles) {
      const resolved = ts.resolveModuleName(ref.fileName, file, parsed.options, host, cache).resolvedModule;
      if (!resolved) continue;
      const target = path.resolve(resolved.resolvedFileName);
      if (inProject.has(target) && target !== file) edges.add(target);
    }
    graph.set(file, edges);
  }
  return graph;
}

/** Strongly connected components of more than one module (Tarjan), each as one circle's members. */
export function circles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const members: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        members.push(w);
      } while (w !== v);
      if (members.length > 1) found.push(members);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** One concrete loop through a component, for a readable message: a → b → … → a. */
function loopThrough(graph: Map<string, Set<string>>, members: string[]): string[] {
  const inside = new Set(members);
  const start = [...members].sort()[0];
  const seen = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const loop = [start];
        for (let u = v; u !== start; u = seen.get(u)!) loop.splice(1, 0, u);
        return [...loop, start];
      }
      if (!seen.has(w)) {
        seen.set(w, v);
        queue.push(w);
      }
    }
  }
  return members;
}

const rel = (f: string) => path.relative(root, f).split(path.sep).join('/');

/** Folders of src/ that must not import the folders listed. */
const FORBIDDEN: Record<string, string[]> = {
  'src/context/': ['src/services/', 'src/graph/', 'src/rest/', 'src/resolvers/'],
  'src/services/': ['src/rest/', 'src/graph/', 'src/resolvers/', 'src/workers/'],
  'src/workers/': ['src/rest/', 'src/graph/', 'src/resolvers/'],
  'src/resolvers/': ['src/rest/'],
  'src/graph/': ['src/rest/'],
  'src/db/': ['src/rest/', 'src/graph/', 'src/resolvers/', 'src/services/', 'src/workers/'],
  'src/entities/': ['src/rest/', 'src/graph/', 'src/resolvers/', 'src/services/', 'src/workers/'],
};

describe('module graph (tsconfig.json, type-only imports included)', () => {
  const graph = projectGraph();

  it('sees the project: the source files and their imports', () => {
    // A graph that resolved nothing could never find a circle: make sure it is the real one.
    expect(graph.size).toBeGreaterThan(100);
    const services = [...graph.keys()].find((f) => rel(f) === 'src/services/conversations/conversation.service.ts')!;
    expect([...graph.get(services)!].map(rel)).toContain('src/context/index.ts');
    // the augmentation of ServiceRegistry is an edge too, downward
    const registry = [...graph.keys()].find((f) => rel(f) === 'src/services/index.ts')!;
    expect([...graph.get(registry)!].map(rel)).toContain('src/context/index.ts');
  });

  it('has no import circle', () => {
    const loops = circles(graph).map((members) => loopThrough(graph, members).map(rel).join(' → '));
    expect(loops, `import circles:\n${loops.join('\n')}`).toEqual([]);
  });

  it('keeps the layers: services never import rest or graph, graph never imports rest', () => {
    const wrong: string[] = [];
    for (const [file, edges] of graph) {
      const from = rel(file);
      for (const [layer, banned] of Object.entries(FORBIDDEN)) {
        if (!from.startsWith(layer)) continue;
        for (const target of edges) {
          const to = rel(target);
          if (banned.some((b) => to.startsWith(b))) wrong.push(`${from} → ${to}`);
        }
      }
    }
    expect(wrong, `imports against the layering:\n${wrong.join('\n')}`).toEqual([]);
  });

  it('finds a circle in a graph that has one (the check itself)', () => {
    const g = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(circles(g).map((m) => m.sort())).toEqual([['a', 'b', 'c']]);
    expect(loopThrough(g, ['a', 'b', 'c'])).toEqual(['a', 'b', 'c', 'a']);
  });
});
