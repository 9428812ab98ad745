import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context/index.js';
import { createRoutePlans } from '../../src/graph/plans.js';
import { getSchema } from '../../src/graph/schema.js';

/** The gateway's route plans (graph/plans.ts) on the real schema; the paths that need no database. */
const ctx = {} as RequestContext;
const unavailable = () => ({ message: 'unavailable' });

describe('route plans', () => {
  it('refuses at start a route operation that does not validate', async () => {
    const plans = createRoutePlans(await getSchema(), 4, unavailable);
    expect(() => plans.prepare('query Q { noSuchField }')).toThrow(/does not validate/);
    expect(plans.size).toBe(0);
  });

  it('runs a prepared plan with the request variables, and answers uncoercible variables as a rejected document', async () => {
    const plans = createRoutePlans(await getSchema(), 4, unavailable);
    const source = 'query Q($s: Boolean!) { __typename @include(if: $s) }';
    plans.prepare(source);
    expect(await plans.run(source, { s: true }, ctx)).toEqual({ data: { __typename: 'Query' } });
    expect(await plans.run(source, { s: false }, ctx)).toEqual({ data: {} });
    const bad = await plans.run(source, { s: 'yes' }, ctx);
    expect(bad.data).toBeUndefined();
    expect(bad.errors?.[0]).toMatchObject({ documentError: true });
  });

  it('keeps documents seen at run time within its bound, and runs the limits before keeping one', async () => {
    const plans = createRoutePlans(await getSchema(), 2, unavailable);
    const aliases = Array.from({ length: 16 }, (_, i) => `a${i}: project { code }`).join(' ');
    const overLimit = await plans.run(`{ ${aliases} }`, {}, ctx);
    expect(overLimit.errors?.[0]).toMatchObject({ documentError: true });
    expect(overLimit.errors?.[0].message).toMatch(/aliases limit/i);
    for (const name of ['A', 'B', 'C'])
      expect(await plans.run(`query ${name} { __typename }`, {}, ctx)).toEqual({ data: { __typename: 'Query' } });
    expect(plans.size).toBe(2);
  });
});
