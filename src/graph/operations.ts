import fs from 'node:fs';
import path from 'node:path';
import {
  Kind,
  parse,
  print,
  validate,
  visit,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';

/** The named operations the REST routes run: schema/operations/*.graphql. */
export interface NamedOperation {
  name: string;
  document: DocumentNode;
  source: string;
}

export const OPERATIONS_DIR = path.resolve(__dirname, '..', '..', '..', 'schema', 'operations');

function operationsDir(): string {
  // Compiled code runs from dist/src/graph, tests from src/graph: find the repository's schema/.
  for (const dir of [OPERATIONS_DIR, path.resolve(__dirname, '..', '..', 'schema', 'operations')]) {
    if (fs.existsSync(dir)) return dir;
  }
  throw new Error('schema/operations not found');
}

/**
 * Loads every operation file and checks each operation against the schema; throws on any error.
 * Fragments may be shared across files; each operation carries the ones it spreads.
 */
export function loadOperations(schema: GraphQLSchema): Map<string, NamedOperation> {
  const dir = operationsDir();
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort();
  const docs = files.map((file) => ({ file, doc: parse(fs.readFileSync(path.join(dir, file), 'utf8')) }));
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const { file, doc } of docs) {
    for (const def of doc.definitions) {
      if (def.kind !== Kind.FRAGMENT_DEFINITION) continue;
      if (fragments.has(def.name.value)) throw new Error(`${file}: fragment ${def.name.value} is defined twice`);
      fragments.set(def.name.value, def);
    }
  }
  const ops = new Map<string, NamedOperation>();
  for (const { file, doc } of docs) {
    for (const def of doc.definitions) {
      if (def.kind === Kind.FRAGMENT_DEFINITION) continue;
      if (def.kind !== Kind.OPERATION_DEFINITION || !def.name) throw new Error(`${file}: every operation must be named`);
      const single = withFragments(def, fragments);
      const errors = validate(schema, single);
      if (errors.length) throw new Error(`${file}: ${def.name.value}: ${errors.map((e) => e.message).join('; ')}`);
      if (ops.has(def.name.value)) throw new Error(`${file}: operation ${def.name.value} is defined twice`);
      ops.set(def.name.value, { name: def.name.value, document: single, source: print(single) });
    }
  }
  return ops;
}

/** A document of one operation and the fragments it spreads, directly or through other fragments. */
export function withFragments(op: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): DocumentNode {
  const used = new Map<string, FragmentDefinitionNode>();
  const pending: (OperationDefinitionNode | FragmentDefinitionNode)[] = [op];
  while (pending.length) {
    visit(pending.pop()!, {
      FragmentSpread(spread) {
        const fragment = fragments.get(spread.name.value);
        if (fragment && !used.has(fragment.name.value)) {
          used.set(fragment.name.value, fragment);
          pending.push(fragment);
        }
      },
    });
  }
  return { kind: Kind.DOCUMENT, definitions: [op, ...used.values()] };
}

/** The fragments of a document, by name. */
export function fragmentsOf(doc: DocumentNode): Map<string, FragmentDefinitionNode> {
  const defs = doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  return new Map(defs.map((d) => [d.name.value, d]));
}

export function operationOf(op: NamedOperation): OperationDefinitionNode {
  return op.document.definitions[0] as OperationDefinitionNode;
}

/** The exact sources the REST routes send for the named operations: the documents engines may cache and compile. */
export function namedSources(ops: ReadonlyMap<string, NamedOperation>): Set<string> {
  return new Set([...ops.values()].map((op) => op.source));
}
