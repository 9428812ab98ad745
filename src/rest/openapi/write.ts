import { getSchema } from '../../graph/schema.js';
import { loadOperations } from '../../graph/operations.js';
import { ROUTES } from '../routes/index.js';
import { buildOpenApi } from './document.js';

/** The document /openapi.json serves, built without a server or a database (for the generated client). */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const schema = await getSchema();
  return buildOpenApi({ routes: ROUTES, operations: loadOperations(schema), schema });
}

/** The TypeScript types of `doc` as openapi-typescript generates them (a development dependency: loaded only here). */
export async function clientTypes(doc: Record<string, unknown>): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const { factory } = (await import('typescript')).default;
  const header = '// Generated from /openapi.json by openapi-typescript (`npm run client:write`); do not edit.\n';
  const ast = await openapiTS(doc as never, {
    // a file (an upload's part, a file route's answer) is a Blob, as fetch and FormData take and give it
    transform: (schema) => (schema.format === 'binary' ? factory.createTypeReferenceNode('Blob') : undefined),
  });
  return header + astToString(ast);
}
