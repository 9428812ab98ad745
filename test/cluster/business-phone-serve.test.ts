import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { pgbouncerFor, type PgBouncer } from '../support/pgbouncer.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';
import { MetaWebhooks, startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * CONTRACT §13.1's handoff across two real `serve` processes on one database, directly and through
 * PgBouncer in transaction mode: per conversation an AI reply is posted to one process while an echo
 * from the business's phone reaches the other at the same moment (the sender of either process may
 * be claiming the reply as the echo commits). Whatever the interleaving: a reply the Cloud API got
 * is `accepted` (claimed before the echo: in flight, it goes on), never `failed` as superseded; a
 * superseded reply never reaches the Cloud API; nothing stays pending; and a reply posted after the
 * echo's answer, to either process, is refused with 409 every time.
 */
const AGENT = 1;
/** `BUSINESS_PHONE_PAIRS=1000` for the figure (docs/whatsapp.md); pairs race 40 at a time. */
const PAIRS = Number(process.env.BUSINESS_PHONE_PAIRS ?? 40);
const AT_ONCE = 40;
const creds = { waba_id: 'waba-bp', phone_number_id: 'pn-bp', access_token: 'EAAG-bp-token', app_secret: 'bp-app-secret' };
const ENV = { WHATSAPP_RETRY_BASE_MS: '100', WHATSAPP_SEND_POLL_MS: '100', CREDENTIALS_KEY: TEST_CREDENTIALS_KEY };

let db: TestDatabase;
let fake: WhatsAppFake;
const servers: ServeProcess[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  fake.addAccount({ ...creds, templates: [] });
  await db.load(
    baseFixture({
      agents: [
        {
          id: AGENT,
          business_id: 1,
          name: 'WA',
          provider: 'whatsapp',
          provider_type: 'chat',
          provider_external_id: 'wa-bp',
          enabled: true,
          credentials: creds,
        },
      ],
    }),
  );
  await db.load({ projects: [{ code: 'demo', name: 'Demo' }] });
  await ensureEmitted('business-phone-serve.test');
}, 300_000);
afterAll(async () => {
  await stopServe(servers);
  await fake.close();
  await db.orm.close();
});

async function serve(url: string, env: Record<string, string>): Promise<ServeProcess> {
  const s = await startServe(url, { DATABASE_DIRECT_URL: db.directUrl, WHATSAPP_API_URL: fake.url, ...ENV, ...env });
  servers.push(s);
  return s;
}

async function post(s: ServeProcess, path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const raw = JSON.stringify(body);
  const res = await fetch(`${s.base}/v400/en/acme${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...headers,
      ...(headers.sign ? { 'x-hub-signature-256': MetaWebhooks.signature(raw, headers.sign) } : {}),
    },
    body: raw,
  });
  return { status: res.status, body: await res.json() };
}

const notification = (field: string, value: Record<string, unknown>) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: creds.waba_id,
      changes: [{ field, value: { messaging_product: 'whatsapp', metadata: { phone_number_id: creds.phone_number_id }, ...value } }],
    },
  ],
});

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

for (const via of ['directly', 'through PgBouncer'] as const) {
  describe(`an echo and an AI reply at the same moment, two processes (${via})`, () => {
    let url: string | null = null;
    let bouncer: PgBouncer | undefined;
    beforeAll(async () => {
      if (via === 'directly') {
        url = db.url;
        return;
      }
      const pooled = await pgbouncerFor(db.directUrl);
      if (typeof pooled === 'string') return console.log(`[business phone serve] PgBouncer case skipped: ${pooled}`);
      ({ url, bouncer } = pooled);
    }, 30_000);
    afterAll(async () => {
      await stopServe(servers.splice(0));
      await bouncer?.stop();
    });

    it(
      'the sender never sends a reply an echo superseded; a reply after the echo is refused every time',
      async (ctx) => {
        if (!url) return ctx.skip();
        const env: Record<string, string> = via === 'directly' ? {} : { DATABASE_PREPARED_STATEMENTS: 'false' };
        const [a, b] = await Promise.all([serve(url, env), serve(url, env)]);
        fake.reset({ requests: true });
        fake.latencyMs = 20; // some sends are in flight when their echo commits
        const tag = via === 'directly' ? 'd' : 'p';
        const phone = (i: number) => `3461${tag === 'd' ? 1 : 2}${String(i).padStart(5, '0')}`;
        const ts = () => String(Math.floor(Date.now() / 1000));
        // every conversation opened by its customer, handled by the AI
        for (let i = 0; i < PAIRS; i++) {
          const inbound = notification('messages', {
            messages: [{ id: `wamid.in.${tag}.${i}`, from: phone(i), timestamp: ts(), type: 'text', text: { body: 'hola' } }],
          });
          expect((await post(a, '/ai/webhooks/whatsapp', inbound, { sign: creds.app_secret })).status).toBe(200);
        }
        const conversations = await db.sql<{ id: number; contact: string }>(
          `select id, contact from ai_conversations where contact like ? order by contact`,
          [`3461${tag === 'd' ? 1 : 2}%`],
        );
        expect(conversations).toHaveLength(PAIRS);

        let refusedAfter = 0;
        const race = (c: { id: number; contact: string }, i: number) =>
          (async () => {
            const [replyVia, echoVia] = i % 2 ? [a, b] : [b, a];
            const echo = notification('smb_message_echoes', {
              message_echoes: [
                {
                  from: '15550001111',
                  to: c.contact,
                  id: `wamid.echo.${tag}.${i}`,
                  timestamp: ts(),
                  type: 'text',
                  text: { body: `from the phone ${i}` },
                },
              ],
            });
            const [r, e] = await Promise.all([
              post(
                replyVia,
                `/ai/conversations/${c.id}/messages`,
                { role: 'assistant', content: `ai ${tag} ${i}` },
                { 'x-api-key': KEYS.server },
              ),
              post(echoVia, '/ai/webhooks/whatsapp', echo, { sign: creds.app_secret }),
            ]);
            expect([200, 409]).toContain(r.status);
            expect(e.body, JSON.stringify(e.body)).toEqual({ error: false, result: { messages: 1, statuses: 0 } });
            // after the echo's answer: refused, by either process
            for (const s of [a, b]) {
              const late = await post(
                s,
                `/ai/conversations/${c.id}/messages`,
                { role: 'assistant', content: `late ${tag} ${i}` },
                { 'x-api-key': KEYS.server },
              );
              expect(late.status).toBe(409);
              expect(late.body.code).toBe('ERROR_AI_CONVERSATION_HANDED_OFF');
              refusedAfter++;
            }
          })();
        for (let at = 0; at < conversations.length; at += AT_ONCE)
          await Promise.all(conversations.slice(at, at + AT_ONCE).map((c, k) => race(c, at + k)));
        expect(refusedAfter).toBe(PAIRS * 2);
        const ids = conversations.map((c) => c.id);
        await until(async () => {
          const [{ n }] = await db.sql<{ n: number }>(
            `select count(*)::int as n from ai_messages where conversation_id = any(?::bigint[]) and delivery_status = 'pending'`,
            [`{${ids.join(',')}}`],
          );
          return n === 0;
        }, 30_000);
        const replies = await db.sql<{ content: string; delivery_status: string; delivery_error: string | null }>(
          `select content, delivery_status, delivery_error from ai_messages
          where conversation_id = any(?::bigint[]) and role = 'assistant' and source = 'api'`,
          [`{${ids.join(',')}}`],
        );
        const sent = new Set(fake.requestsTo('send').map((r) => r.body.text?.body as string));
        expect([...sent].some((s) => s.startsWith('late'))).toBe(false);
        for (const m of replies) {
          if (sent.has(m.content)) expect(m.delivery_status).toBe('accepted');
          else expect(m).toMatchObject({ delivery_status: 'failed', delivery_error: 'superseded by the business app' });
        }
        const echoes = await db.sql<{ n: number }>(
          `select count(*)::int as n from ai_messages where conversation_id = any(?::bigint[]) and source = 'business_app' and delivery_status = 'sent'`,
          [`{${ids.join(',')}}`],
        );
        expect(echoes[0].n).toBe(PAIRS);
        const handlers = await db.sql<{ handler: string }>(`select distinct handler from ai_conversations where id = any(?::bigint[])`, [
          `{${ids.join(',')}}`,
        ]);
        expect(handlers).toEqual([{ handler: 'human' }]);
        console.log(
          `[business phone serve ${via}] ${PAIRS} pairs: ${replies.length} replies stored (${PAIRS - replies.length} refused), ` +
            `${replies.filter((m) => m.delivery_status === 'accepted').length} sent before the echo, ` +
            `${replies.filter((m) => m.delivery_status === 'failed').length} superseded; ${refusedAfter} replies after the echo refused`,
        );
        fake.latencyMs = 0;
      },
      120_000 + PAIRS * 200,
    );
  });
}
