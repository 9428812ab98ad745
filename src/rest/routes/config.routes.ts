import { ACCESS } from '../../services/access.js';
import { CONFIG_MODES } from '../../services/config.service.js';
import type { RouteSpec } from '../route-spec.js';

interface Entry {
  id: number | null;
  key: string;
  description?: string | null;
  [field: string]: unknown;
}

export const configRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/configs',
    operation: 'Configs',
    summary: 'Configuration entries, as an array or (mode=dictionary) keyed by key',
    tags: ['configs'],
    access: ACCESS.AUTHENTICATED,
    schema: { querystring: { type: 'object', properties: { mode: { type: 'string', enum: [...CONFIG_MODES] } } } },
    respond: (data, { query }) => {
      const entries = (data.configs as Entry[]).map(({ description, ...rest }) =>
        // Only model-backed entries (with an id) carry a description, and never in dictionary mode.
        rest.id !== null && query.mode !== 'dictionary' ? { ...rest, description } : rest,
      );
      if (query.mode !== 'dictionary') return { result: entries };
      return { result: Object.fromEntries(entries.map((e) => [e.key, e])) };
    },
  },
];
