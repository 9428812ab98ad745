import { loadOperations } from '../../src/graph/operations.js';
import { getSchema } from '../../src/graph/schema.js';
import type { BenchScenario, PrepareScenarios } from '../types.js';

const PROJECT = 'bench';
const SERVER_KEY = 'bench-server-key-0123456789';

/** Project `bench` with 30 configuration entries; GET /configs against the same operation over /graphql. */
export const prepare: PrepareScenarios = async ({ load, orm }) => {
  await load({
    projects: [
      {
        code: PROJECT,
        name: 'Bench',
        plugins: ['loyalty'],
        api_keys: [{ key: SERVER_KEY, server: true }],
        configs: Array.from({ length: 30 }, (_, i) => ({
          key: `bench_config_${String(i + 1).padStart(2, '0')}`,
          value: `value ${i + 1}`,
          type: 1,
          public: i % 3 !== 0,
          hidden: i % 10 === 9,
          protected: i % 15 === 14,
          plugin: i % 5 === 4 ? 'loyalty' : null,
          description: `Benchmark entry ${i + 1}`,
        })),
      },
    ],
  });
  const op = loadOperations(await getSchema()).get('Configs');
  if (!op) throw new Error('operation Configs not found');
  const headers = { 'x-api-key': SERVER_KEY };
  const [{ id }] = await orm.em.getConnection().execute<{ id: number }[]>('select id from projects where code = ?', [PROJECT]);
  // PostGraphile's own schema for the same rows: the project's configuration entries, the same columns
  const rivalQuery = `{ allConfigs(condition: { projectId: ${id} }) { nodes { id key value type public hidden protected description plugin } } }`;
  const scenarios: BenchScenario[] = [
    { name: 'GET /configs', method: 'GET', path: `/v400/en/${PROJECT}/configs`, headers, baseline: true },
    {
      name: 'POST /graphql configs',
      method: 'POST',
      path: '/graphql',
      headers,
      body: JSON.stringify({ query: op.source, operationName: op.name }),
      rival: { name: 'PostGraphile', body: JSON.stringify({ query: rivalQuery }) },
    },
  ];
  return scenarios;
};
