import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { Kind, lexicographicSortSchema, parse, printSchema, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { fragmentsOf, loadOperations, withFragments } from '../../src/graph/operations.js';
import { getSchema, printSdl } from '../../src/graph/schema.js';
import { ROUTES } from '../../src/rest/routes/index.js';

const ROOT = path.resolve(__dirname, '..', '..');
const SDL_FILE = path.join(ROOT, 'schema', 'schema.graphql');
const OPS_DIR = path.join(ROOT, 'schema', 'operations');

/** Every operation file, read now so each gets a test of its own (generic: new files are picked up). */
const OPERATION_FILES = fs
  .readdirSync(OPS_DIR)
  .filter((f) => f.endsWith('.graphql'))
  .sort();

function readOperations(file: string): DocumentNode {
  return parse(fs.readFileSync(path.join(OPS_DIR, file), 'utf8'));
}

/** The fragments of every operation file: an operation may spread one defined in another file. */
function allFragments() {
  return fragmentsOf({ kind: Kind.DOCUMENT, definitions: OPERATION_FILES.flatMap((f) => readOperations(f).definitions) });
}

/** Validation errors of each operation of a file, checked one at a time (with its fragments) as the gateway runs them. */
function operationErrors(schema: GraphQLSchema, doc: DocumentNode): string[] {
  const errors: string[] = [];
  const fragments = allFragments();
  for (const def of doc.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const name = def.name?.value ?? '(anonymous)';
    for (const e of validate(schema, withFragments(def, fragments))) errors.push(`${name}: ${e.message}`);
  }
  return errors;
}

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await getSchema();
});

describe('committed SDL', () => {
  it('schema/schema.graphql matches the code-first schema', () => {
    const committed = fs.readFileSync(SDL_FILE, 'utf8');
    const current = printSdl(schema);
    expect(
      committed === current,
      'schema/schema.graphql is out of date with the resolvers: run `npm run schema:write` and commit the result',
    ).toBe(true);
  });

  it('is valid SDL on its own (SDL-first build with @graphql-tools/schema) and prints back unchanged', () => {
    const typeDefs = fs.readFileSync(SDL_FILE, 'utf8');
    const sdlSchema = makeExecutableSchema({ typeDefs });
    expect(sdlSchema.getQueryType()).toBeTruthy();
    expect(`${printSchema(lexicographicSortSchema(sdlSchema))}\n`).toBe(typeDefs);
  });

  it.each(OPERATION_FILES)('operations of %s validate against the committed SDL', (file) => {
    const sdlSchema = makeExecutableSchema({ typeDefs: fs.readFileSync(SDL_FILE, 'utf8') });
    expect(operationErrors(sdlSchema, readOperations(file))).toEqual([]);
  });
});

describe('named operations', () => {
  it('there is at least one operation file', () => {
    expect(OPERATION_FILES.length).toBeGreaterThan(0);
  });

  it.each(OPERATION_FILES)('%s holds only named operations (and fragments) that validate against the schema', (file) => {
    const doc = readOperations(file);
    expect(
      doc.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION),
      `${file}: no operation`,
    ).toBe(true);
    for (const def of doc.definitions) {
      expect(
        [Kind.OPERATION_DEFINITION, Kind.FRAGMENT_DEFINITION],
        `${file}: only operations and fragments belong in schema/operations`,
      ).toContain(def.kind);
      if (def.kind === Kind.OPERATION_DEFINITION) expect(def.name?.value, `${file}: an operation has no name`).toBeTruthy();
    }
    expect(operationErrors(schema, doc)).toEqual([]);
  });

  it('loadOperations accepts them all, each name once', () => {
    const ops = loadOperations(schema);
    const names = OPERATION_FILES.flatMap((file) =>
      readOperations(file).definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION && d.name ? [d.name.value] : [])),
    );
    expect(new Set(names).size).toBe(names.length);
    expect([...ops.keys()].sort()).toEqual([...names].sort());
  });

  it('every REST route names an existing operation', () => {
    const ops = loadOperations(schema);
    expect(ROUTES.length).toBeGreaterThan(0);
    const missing = ROUTES.filter((r) => !ops.has(r.operation)).map((r) => `${r.method} ${r.path} -> ${r.operation}`);
    expect(missing).toEqual([]);
  });
});
