import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * PostGraphile 5 over the bench database, the rival a scenario may name (`rival` in bench/types.ts,
 * run by bench/run.ts): loaded from BENCH_POSTGRAPHILE, a folder of its own where `npm install
 * postgraphile@5` was run (it is no dependency of this project, and it needs Node ≥ 22), with its
 * Amber preset on the `public` schema, in production mode, GraphiQL and plan explanations off.
 * Listens on HOST:PORT; DATABASE_URL as for `serve`.
 */
type Module = Record<string, unknown>;
interface Serv {
  addTo(server: ReturnType<typeof createServer>): Promise<void>;
}
interface Instance {
  createServ(grafserv: unknown): Serv;
}

async function main(): Promise<void> {
  const dir = process.env.BENCH_POSTGRAPHILE;
  if (!dir) throw new Error('BENCH_POSTGRAPHILE is not set');
  const from = createRequire(path.join(path.resolve(dir), 'package.json'));
  const load = (id: string) => import(pathToFileURL(from.resolve(id)).href) as Promise<Module>;
  const postgraphile = (await load('postgraphile')).postgraphile as (preset: unknown) => Instance;
  const { PostGraphileAmberPreset } = await load('postgraphile/presets/amber');
  const { makePgService } = (await load('postgraphile/adaptors/pg')) as { makePgService: (o: unknown) => unknown };
  const { grafserv } = await load('postgraphile/grafserv/node');
  const preset = {
    extends: [PostGraphileAmberPreset],
    pgServices: [makePgService({ connectionString: process.env.DATABASE_URL, schemas: ['public'] })],
    grafast: { explain: false },
    grafserv: { graphiql: false },
  };
  const server = createServer();
  await postgraphile(preset).createServ(grafserv).addTo(server);
  server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
