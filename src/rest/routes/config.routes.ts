import { ACCESS } from '../../services/identity/access.js';
import { CONFIG_MODES } from '../../services/settings/config.service.js';
import type { JSONSchema } from '../json-schema.js';
import { propertyAt } from '../openapi-result.js';
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
      const entries = (data.configs as Entry[]).map((entry) => {
        // Only model-backed entries (with an id) carry a description (last), and never in dictionary mode.
        // A loop, not `{ description, ...rest }`: the rest copy was the costliest line of this route.
        const out: Entry = {} as Entry;
        for (const k in entry) if (k !== 'description') out[k] = entry[k];
        if (entry.id !== null && query.mode !== 'dictionary') out.description = entry.description;
        return out;
      });
      if (query.mode !== 'dictionary') return { result: entries };
      return { result: Object.fromEntries(entries.map((e) => [e.key, e])) };
    },
    resultSchema: (data) => {
      const selected = propertyAt(data, 'configs')!.items as JSONSchema;
      // `description` only on model-backed entries outside dictionary mode
      const entry = { ...selected, required: (selected.required as string[]).filter((k) => k !== 'description') };
      return {
        result: {
          description: 'An array of entries; with mode=dictionary, an object of the same entries keyed by key.',
          oneOf: [
            { type: 'array', items: entry },
            { type: 'object', additionalProperties: entry },
          ],
        },
      };
    },
  },
];
