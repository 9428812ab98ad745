import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { MetaWebhooks } from '../support/whatsapp-fake.js';

/**
 * Issue 67: payloads as Meta documents them that the service handled wrong (CONTRACT §12.2, §13.1,
 * §13.3, §13.5), over a real socket and a real database, under both engines (each engine its own
 * agents). Bodies are signed as Meta signs them; every fixture is written here from Meta's documented shapes.
 */
const base = (e: number) => 700 + e * 20;
const secret = (id: number) => `real-secret-${id}`;
const creds = (id: number) => ({
  waba_id: `waba${id}`,
  phone_number_id: `pn${id}`,
  access_token: `token-${id}`,
  app_secret: secret(id),
  verify_token: `verify-${id}`,
});
/** Agents per engine: 1 the main one; 2–5 the offboarding cases (5 and 6 share one WABA). */
const AGENTS_PER_ENGINE = [1, 2, 3, 4, 5, 6];
const now = () => String(Math.floor(Date.now() / 1000));

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const agents = [0, 1].flatMap((e) =>
    AGENTS_PER_ENGINE.map((n) => {
      const id = base(e) + n;
      // agents 5 and 6 are two numbers of one WABA, under one Meta app (one app secret)
      const c = n === 6 ? { ...creds(id), waba_id: `waba${base(e) + 5}`, app_secret: secret(base(e) + 5) } : creds(id);
      return {
        id,
        business_id: 1,
        name: `WA ${id}`,
        provider: 'whatsapp',
        provider_type: 'chat',
        provider_external_id: `wa-${id}`,
        enabled: true,
        credentials: c,
      };
    }),
  );
  await db.load(baseFixture({ agents }));
});
afterAll(() => db.orm.close());

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('payloads as Meta sends them (%s)', (engine, e) => {
  const MAIN = base(e) + 1;
  let t: TestApp;
  let meta: MetaWebhooks;
  beforeAll(async () => {
    t = await startApp(engine, db);
    meta = new MetaWebhooks(`${await t.listen()}/v400/en/acme/ai/webhooks/whatsapp`);
  });
  afterAll(() => t.close());

  const agentOf = async (id: number) => (await t.api({ path: `/ai/agents/${id}`, key: KEYS.server })).json().result;
  const agentEvents = async (id: number) =>
    (
      await db.sql<{ data: any }>(
        `select data from ai_events where agent_id = ? and type = 'agent.updated'
         union all select data from ai_event_inbox where agent_id = ? and type = 'agent.updated'`,
        [id, id],
      )
    ).map((x) => x.data);

  describe('§13.5 a number that leaves', () => {
    /** Meta's `PARTNER_REMOVED`: `entry[].id` is the partner's business, the WABA is in `value.waba_info`. */
    const partnerRemoved = (agent: number, disconnection: boolean) => ({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1029384756', // the partner's (solution provider's) business id
          time: Number(now()),
          changes: [
            {
              field: 'account_update',
              value: {
                event: 'PARTNER_REMOVED',
                waba_info: { waba_id: `waba${agent}`, owner_business_id: '5647382910' },
                ...(disconnection && {
                  disconnection_info: { reason: 'The business removed the partner', initiated_by: 'BUSINESS', date: now() },
                }),
              },
            },
          ],
        },
      ],
    });

    it.each([
      ['with', true, 2],
      ['without', false, 3],
    ] as const)('PARTNER_REMOVED %s disconnection_info disables the agent of value.waba_info.waba_id', async (_label, disconnection, n) => {
      const agent = base(e) + n;
      const res = await meta.post(partnerRemoved(agent, disconnection), secret(agent));
      expect(res.body).toEqual({ error: false, result: { messages: 0, statuses: 0 } });
      expect(await agentOf(agent)).toMatchObject({ enabled: false, disabled_reason: 'offboarded' });
      expect(await agentEvents(agent)).toEqual([expect.objectContaining({ id: agent, enabled: false, disabled_reason: 'offboarded' })]);
      // the main agent is untouched
      expect(await agentOf(MAIN)).toMatchObject({ enabled: true, disabled_reason: null });
    });

    it('ACCOUNT_DELETED disables the agent; enabling it again clears the reason', async () => {
      const agent = base(e) + 4;
      const body = {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: `waba${agent}`,
            time: Number(now()),
            changes: [{ field: 'account_update', value: { phone_number: '15550004444', event: 'ACCOUNT_DELETED' } }],
          },
        ],
      };
      expect((await meta.post(body, secret(agent))).status).toBe(200);
      expect(await agentOf(agent)).toMatchObject({ enabled: false, disabled_reason: 'offboarded' });
      const patched = await t.api({ method: 'PATCH', path: `/ai/agents/${agent}`, key: KEYS.server, body: { enabled: true } });
      expect(patched.json().result).toMatchObject({ enabled: true, disabled_reason: null });
    });

    it('PARTNER_REMOVED of a WABA with two numbers disables both; a body signed with another secret changes nothing', async () => {
      const [a, b] = [base(e) + 5, base(e) + 6];
      const body = partnerRemoved(a, false);
      expect((await meta.post(body, secret(MAIN))).status).toBe(401);
      expect(await agentOf(a)).toMatchObject({ enabled: true });
      expect((await meta.post(body, secret(a))).status).toBe(200);
      expect([await agentOf(a), await agentOf(b)]).toEqual([
        expect.objectContaining({ enabled: false, disabled_reason: 'offboarded' }),
        expect.objectContaining({ enabled: false, disabled_reason: 'offboarded' }),
      ]);
    });
  });
});
