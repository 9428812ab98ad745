import type { MikroORM } from '@mikro-orm/postgresql';

/** `ordergraph seed-bench`: implemented with the metrics work (issue 5). */
export async function seedBench(_orm: MikroORM, _args: string[]): Promise<void> {
  throw new Error('seed-bench is not available yet');
}
