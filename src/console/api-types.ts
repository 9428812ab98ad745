/* The API's shapes the console reads and sends, from the types generated in clients/typescript (openapi-typescript's
 * `operations` and `components`): type-only imports, erased by tsc, so nothing more is served. */
import type { components, operations } from '../../clients/typescript/api.js';

type Body<O> = O extends { responses: { 200: { content: { 'application/json': infer B } } } }
  ? B
  : O extends { responses: { 201: { content: { 'application/json': infer B } } } }
    ? B
    : never;
/** The `result` of operation `K`'s success envelope. */
export type Result<K extends keyof operations> = Body<operations[K]> extends { result: infer R } ? R : never;
/** The whole success envelope of `K` (with `pagination` where the operation pages). */
export type Envelope<K extends keyof operations> = Body<operations[K]>;
/** Operation `K`'s query parameters. */
export type Query<K extends keyof operations> = operations[K]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;
/** Operation `K`'s JSON body. */
export type RequestBody<K extends keyof operations> = operations[K] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export type Schemas = components['schemas'];
export type Conversation = Schemas['Conversation'];
export type Message = Schemas['Message'];
export type Order = Schemas['Order'];
export type Cart = Schemas['Cart'];
export type Agent = Schemas['Agent'];
export type ConversationEvent = Schemas['ConversationEvent'];
export type Business = Result<'AiBusinesses'>[number];
export type Operator = Result<'AiOperators'>[number];
export type SeriesResult = Result<'MetricsSeries'>;
