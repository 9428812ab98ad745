import createClient, { type Client } from 'openapi-fetch';
import type { paths, webhooks } from './api';

/** A typed OrderGraph client: every path, parameter, body and answer from /openapi.json (api.d.ts, generated). */
export type OrderGraphClient = Client<paths>;

/** A client for `baseUrl` with a server key (X-Api-Key) or a user's access token (Authorization: Bearer). */
export function createOrderGraphClient(baseUrl: string, credential: { apiKey: string } | { token: string }): OrderGraphClient {
  const headers = 'apiKey' in credential ? { 'X-Api-Key': credential.apiKey } : { Authorization: `Bearer ${credential.token}` };
  return createClient<paths>({ baseUrl, headers });
}

/** The body of a webhook delivery (and the `data:` of a stream event) of event type `T`. */
export type EventOf<T extends keyof webhooks> = webhooks[T]['post']['requestBody']['content']['application/json'];
