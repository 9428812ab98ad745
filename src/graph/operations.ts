import fs from 'node:fs';
import path from 'node:path';
import { Kind, parse, print, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';

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

/** Loads every operation file and checks each operation against the schema; throws on any error. */
export function loadOperations(schema: GraphQLSchema): Map<string, NamedOperation> {
  const dir = operationsDir();
  const ops = new Map<string, NamedOperation>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.graphql')).sort()) {
    const doc = parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    for (const def of doc.definitions) {
      if (def.kind !== Kind.OPERATION_DEFINITION || !def.name) throw new Error(`${file}: every operation must be named`);
      const single: DocumentNode = { kind: Kind.DOCUMENT, definitions: [def] };
      const errors = validate(schema, single);
      if (errors.length) throw new Error(`${file}: ${def.name.value}: ${errors.map((e) => e.message).join('; ')}`);
      if (ops.has(def.name.value)) throw new Error(`${file}: operation ${def.name.value} is defined twice`);
      ops.set(def.name.value, { name: def.name.value, document: single, source: print(single) });
    }
  }
  return ops;
}

export function operationOf(op: NamedOperation): OperationDefinitionNode {
  return op.document.definitions[0] as OperationDefinitionNode;
}
