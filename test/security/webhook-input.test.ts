import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { until } from '../support/webhook-receiver.js';
import { MetaWebhooks } from '../support/whatsapp-fake.js';
import { loadConfig } from '../../src/config.js';
import { HistoryImporter } from '../../src/workers/history-importer.js';
import { ATTEMPT_RULES, afterFailure } from '../../src/workers/attempts.js';
import { parseAnswer } from '../../src/providers/whatsapp/client.js';

/**
 * CONTRACT §11, fourth review: what Meta's notifications may hold. A body nested deeper than 64 levels is
 * refused whole (400, never a 5xx, never a chunk that then fails); an unpaired UTF-16 surrogate is kept as
 * U+FFFD, in live items and history chunks alike; a history chunk that fails for its data stops after the
 * shared bound of attempts (workers/attempts.ts) and the agent's `history.failed` says why. Both engines.
 */
const base = (e: number) => 640 + e * 10;
const secret = (id: number) => `app-secret-${id}`;
let seq = 0;
const wamid = (tag: string) => `wamid.${tag}.${process.pid}.${++seq}`;
const phoneNo = () => `52157${String(Date.now() % 1e6).padStart(6, '0')}${String(++seq).padStart(3, '0')}`;
const now = () => String(Math.floor(Date.now() / 1000));

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const agents = [0, 1].map((e) => ({
    id: base(e) + 1,
    business_id: 1,
    name: `WA ${base(e) + 1}`,
    provider: 'whatsapp',
    provider_type: 'chat',
    provider_external_id: `wa-${base(e) + 1}`,
    enabled: true,
    credentials: {
      waba_id: `waba${base(e) + 1}`,
      phone_number_id: `pn${base(e) + 1}`,
      access_token: `token-${base(e) + 1}`,
      app_secret: secret(base(e) + 1),
      verify_token: `verify-${base(e) + 1}`,
    },
  }));
  await db.load(baseFixture({ agents }));
});
afterAll(() => db.orm.close());

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('webhook input (%s)', (engine, e) => {
  const AGENT = base(e) + 1;
  let t: TestApp;
  let importer: HistoryImporter;
  let off: () => void;
  beforeAll(async () => {
    t = await startApp(engine, db);
    importer = new HistoryImporter({
      orm: db.orm,
      config: { ...loadConfig({ HISTORY_IMPORT_RETRY_BASE_MS: '1' }).historyImport, pollMs: 50 },
      log: quiet,
    }).start();
    off = t.services.events.onWork((kind) => (kind === null || kind === 'history' ? importer.wake() : undefined));
  });
  afterAll(async () => {
    off();
    await importer.stop();
    await t.close();
  });

  /** The raw text, signed as Meta signs it, through app.inject. */
  const post = (raw: string) =>
    t.api({
      method: 'POST',
      path: '/ai/webhooks/whatsapp',
      body: raw,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': MetaWebhooks.signature(raw, secret(AGENT)) },
    });
  /** A notification of one change, as text: `value` is spliced in as given (it may hold escapes JSON.stringify would not write). */
  const change = (field: string, value: string) =>
    `{"object":"whatsapp_business_account","entry":[{"id":"waba${AGENT}","changes":[{"field":"${field}","value":` +
    `{"messaging_product":"whatsapp","metadata":{"phone_number_id":"pn${AGENT}","display_phone_number":"15550001111"},${value}}}]}]}`;
  const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  const chunksOf = async () =>
    (await db.sql<{ n: number }>('select count(*)::int as n from ai_history_chunks where agent_id = ?', [AGENT]))[0].n;
  const imported = () =>
    until(
      async () =>
        (
          await db.sql<{ n: number }>(`select count(*)::int as n from ai_history_chunks where agent_id = ? and status = 'pending'`, [AGENT])
        )[0].n === 0,
      15_000,
      'the import to finish',
    );

  describe('a body nested deeper than 64 levels', () => {
    it.each(['messages', 'smb_message_echoes', 'history'])('%s: 400 ERROR_VALIDATION naming body, nothing stored', async (field) => {
      const chunks = await chunksOf();
      for (const levels of [65, 3000, 4000]) {
        // the outermost object counts 1: entry's array 2, its object 3, changes 4, the change 5, value 6, the member 7
        const raw = change(field, `"deep":${nested(levels - 6)}`);
        const res = await post(raw);
        expect(res.statusCode, `${levels} levels`).toBe(400);
        expect(res.json()).toMatchObject({ error: true, code: 'ERROR_VALIDATION' });
        expect(JSON.stringify(res.json().result)).toContain('body');
      }
      // a history chunk nested deep inside its threads is refused too, never stored for an import that then fails
      const deepChunk = change(
        'history',
        `"history":[{"metadata":{"phase":"0","chunk_order":"1","progress":"10"},"threads":[{"id":"${phoneNo()}","messages":[{"x":${nested(3500)}}]}]}]`,
      );
      expect((await post(deepChunk)).statusCode).toBe(400);
      expect(await chunksOf()).toBe(chunks);
    });

    it('64 levels are accepted (the bound, not below it)', async () => {
      const raw = change('messages', `"deep":${nested(64 - 6)}`);
      expect((await post(raw)).statusCode).toBe(200);
    });
  });

  describe('an unpaired surrogate', () => {
    it('in a live item (a location name, a text): kept with U+FFFD, the delivery and its other items stored', async () => {
      const phone = phoneNo();
      const [loc, text, ok] = [wamid('loc'), wamid('txt'), wamid('ok')];
      const raw = change(
        'messages',
        `"contacts":[{"wa_id":"${phone}","profile":{"name":"Ana \\udc00"}}],"messages":[` +
          `{"from":"${phone}","id":"${loc}","timestamp":"${now()}","type":"location","location":{"latitude":19.4,"longitude":-99.1,"name":"Caf\\udc00","address":"Centro"}},` +
          `{"from":"${phone}","id":"${text}","timestamp":"${now()}","type":"text","text":{"body":"hola \\ud800 y \\ud83d\\ude00"}},` +
          `{"from":"${phone}","id":"${ok}","timestamp":"${now()}","type":"text","text":{"body":"bien"}}]`,
      );
      const res = await post(raw);
      expect(res.statusCode).toBe(200);
      const rows = await db.sql<{ external_id: string; content: string; payload: any }>(
        'select external_id, content, payload from ai_messages where external_id in (?, ?, ?) order by id',
        [loc, text, ok],
      );
      expect(rows.map((r) => r.content)).toEqual(['Caf\uFFFD, Centro', 'hola \uFFFD y \u{1F600}', 'bien']);
      expect(rows[0].payload).toMatchObject({ name: 'Caf\uFFFD', address: 'Centro' });
      const [conv] = await db.sql<{ contact_name: string }>(
        'select contact_name from ai_conversations where contact = ? and agent_id = ?',
        [phone, AGENT],
      );
      expect(conv.contact_name).toBe('Ana \uFFFD');
    });

    it('in a history chunk: the chunk is imported, the bad character U+FFFD, every other message kept', async () => {
      const phone = phoneNo();
      const [a, b] = [wamid('ha'), wamid('hb')];
      const at = String(Math.floor(Date.now() / 1000) - 7200);
      const raw = change(
        'history',
        `"history":[{"metadata":{"phase":"0","chunk_order":"1","progress":"10"},"threads":[{"id":"${phone}","messages":[` +
          `{"from":"${phone}","id":"${a}","timestamp":"${at}","type":"text","text":{"body":"x\\udc00y"}},` +
          `{"from":"${phone}","id":"${b}","timestamp":"${at}","type":"location","location":{"latitude":1,"longitude":2,"name":"\\udbff"}}]}]}]`,
      );
      expect((await post(raw)).statusCode).toBe(200);
      await imported();
      const rows = await db.sql<{ content: string }>('select content from ai_messages where external_id in (?, ?) order by external_id', [
        a,
        b,
      ]);
      expect(rows.map((r) => r.content).sort()).toEqual(['x\uFFFDy', '\uFFFD'].sort());
      const [chunk] = await db.sql<{ status: string }>(`select status from ai_history_chunks where agent_id = ? order by id desc limit 1`, [
        AGENT,
      ]);
      expect(chunk.status).toBe('done');
    });
  });

  describe('an edit or revoke kept early, its message then imported from the history (§13.2, §13.3)', () => {
    it('is applied to the imported message: the revoked text is gone, the edit shows', async () => {
      const phone = phoneNo();
      const [revoked, edited, untouched] = [wamid('rv'), wamid('ed'), wamid('un')];
      const live = (items: unknown[]) =>
        post(change('messages', `"contacts":[{"wa_id":"${phone}","profile":{"name":"Eva"}}],"messages":${JSON.stringify(items)}`));
      const item = (extra: Record<string, unknown>) => ({ from: phone, id: wamid('chg'), timestamp: now(), ...extra });
      expect(
        (
          await live([
            item({ type: 'revoke', revoke: { original_message_id: revoked } }),
            item({ type: 'edit', edit: { original_message_id: edited, message: { type: 'text', text: { body: 'a las 9, no a las 8' } } } }),
          ])
        ).statusCode,
      ).toBe(200);
      expect((await db.sql('select 1 from ai_early_changes where external_id in (?, ?)', [revoked, edited])).length).toBe(2);
      const old = String(Math.floor(Date.now() / 1000) - 3600);
      const chunk = {
        metadata: { phase: '0', chunk_order: '1', progress: '20' },
        threads: [
          {
            id: phone,
            messages: [
              { from: phone, id: revoked, timestamp: old, type: 'text', text: { body: 'mi contraseña es zebra42' } },
              { from: phone, id: edited, timestamp: old, type: 'text', text: { body: 'a las 8' } },
              { from: phone, id: untouched, timestamp: old, type: 'text', text: { body: 'gracias' } },
            ],
          },
        ],
      };
      expect((await post(change('history', `"history":${JSON.stringify([chunk])}`))).statusCode).toBe(200);
      await imported();
      const rows = await db.sql<{ external_id: string; content: string; revoked_at: unknown; edited_at: unknown; edits: unknown[] }>(
        'select external_id, content, revoked_at, edited_at, edits from ai_messages where external_id in (?, ?, ?)',
        [revoked, edited, untouched],
      );
      const by = Object.fromEntries(rows.map((r) => [r.external_id, r]));
      expect(by[revoked]).toMatchObject({ content: '' });
      expect(by[revoked].revoked_at).not.toBeNull();
      expect(by[edited]).toMatchObject({ content: 'a las 9, no a las 8', edits: [{ content: 'a las 8' }] });
      expect(by[edited].edited_at).not.toBeNull();
      expect(by[untouched]).toMatchObject({ content: 'gracias', revoked_at: null, edited_at: null });
      // applied once: the kept changes are gone
      expect((await db.sql('select 1 from ai_early_changes where external_id in (?, ?)', [revoked, edited])).length).toBe(0);
    });
  });

  describe('a chunk stored before these rules, and one that fails for its data', () => {
    const storeChunk = async (value: string) =>
      (
        await db.sql<{ id: string }>(
          `insert into ai_history_chunks (project_id, agent_id, business_number, value)
           values ((select id from projects where code = 'acme'), ?, '15550001111', ?::json) returning id`,
          [AGENT, value],
        )
      )[0].id;
    const textChunk = (meta: string, phone: string, id: string, body: string) =>
      `{"metadata":${meta},"threads":[{"id":"${phone}","messages":[{"from":"${phone}","id":"${id}","timestamp":"${now()}","type":"text","text":{"body":"${body}"}}]}]}`;

    it('a chunk the webhook kept with its unpaired surrogate escape (before the fix) is imported with U+FFFD', async () => {
      const phone = phoneNo();
      const id = wamid('old');
      const chunk = await storeChunk(textChunk('{"phase":"0","chunk_order":"3"}', phone, id, 'a\\udc00b \\ud83d\\ude00'));
      importer.wake();
      await imported();
      expect((await db.sql<{ status: string }>('select status from ai_history_chunks where id = ?', [chunk]))[0].status).toBe('done');
      expect((await db.sql<{ content: string }>('select content from ai_messages where external_id = ?', [id]))[0].content).toBe(
        'a\uFFFDb \u{1F600}',
      );
    });

    it(`gives up after ${ATTEMPT_RULES.historyChunk.maxAttempts} attempts: failed, and the agent's history.failed says why`, async () => {
      // what PostgreSQL refuses of this chunk's data, every time (a check the data breaks, as a bad value would)
      await db.sql(`create or replace function test_refuse_message() returns trigger language plpgsql as $$
        begin if new.content like '%fails-for-its-data%' then raise exception 'invalid input: fails-for-its-data'; end if; return new; end $$`);
      await db.sql(`create trigger test_refuse_message before insert on ai_messages for each row execute function test_refuse_message()`);
      onTestFinished(async () => {
        await db.sql('drop trigger if exists test_refuse_message on ai_messages');
      });
      const chunk = await storeChunk(
        textChunk('{"phase":"1","chunk_order":"7","progress":"50"}', phoneNo(), wamid('bad'), 'fails-for-its-data'),
      );
      importer.wake();
      await until(
        async () => (await db.sql<{ status: string }>('select status from ai_history_chunks where id = ?', [chunk]))[0].status === 'failed',
        20_000,
        'the chunk to give up',
      );
      const [row] = await db.sql<{ attempts: number; last_error: string }>(
        'select attempts, last_error from ai_history_chunks where id = ?',
        [chunk],
      );
      expect(row.attempts).toBe(ATTEMPT_RULES.historyChunk.maxAttempts);
      expect(row.last_error).toContain('fails-for-its-data');
      // no further attempt
      await new Promise((r) => setTimeout(r, 300));
      expect((await db.sql<{ attempts: number }>('select attempts from ai_history_chunks where id = ?', [chunk]))[0].attempts).toBe(
        ATTEMPT_RULES.historyChunk.maxAttempts,
      );
      const history = (await t.api({ path: `/ai/agents/${AGENT}`, key: KEYS.server })).json().result.history;
      expect(history.failed).toEqual([
        { phase: 1, chunk_order: 7, error: row.last_error, attempts: ATTEMPT_RULES.historyChunk.maxAttempts },
      ]);
      // a later history change keeps the record of what failed
      expect((await post(change('history', `"history":[{"metadata":{"phase":"1","chunk_order":"8","progress":"60"}}]`))).statusCode).toBe(
        200,
      );
      expect((await t.api({ path: `/ai/agents/${AGENT}`, key: KEYS.server })).json().result.history.failed).toHaveLength(1);
    });
  });
});

describe('the shared bounded-attempt rule (workers/attempts.ts)', () => {
  it('every durable job kind stops: after its attempts, at once for a failure not to retry, and at its age bound', () => {
    for (const [kind, rule] of Object.entries(ATTEMPT_RULES)) {
      let attempts = 0;
      let next = afterFailure(rule, 1000, ++attempts, 'HTTP 503', { createdAt: new Date() });
      while (next.retry) next = afterFailure(rule, 1000, ++attempts, 'HTTP 503', { createdAt: new Date() });
      expect(attempts, kind).toBeLessThanOrEqual(rule.maxAttempts);
      expect(next.reason, kind).toContain('HTTP 503');
      expect(afterFailure(rule, 1000, 1, 'bad data', { retryable: false })).toEqual({ retry: false, reason: 'bad data' });
    }
    const media = ATTEMPT_RULES.mediaDownload;
    expect(afterFailure(media, 1000, 3, 'timeout', { createdAt: new Date(Date.now() - 25 * 3600_000) })).toEqual({
      retry: false,
      reason: 'gave up after 24 hours: timeout',
    });
    expect(afterFailure(ATTEMPT_RULES.historyChunk, 1000, 20, 'x')).toEqual({ retry: false, reason: 'gave up after 20 attempts: x' });
  });

  it("the Cloud API's answers are mended as notifications are (a template's text with \\udc00 or a NUL)", () => {
    expect(parseAnswer('{"data":[{"name":"t\\udc00","components":[{"text":"a\\u0000b \\ud83d\\ude00"}]}]}')).toEqual({
      data: [{ name: 't\uFFFD', components: [{ text: 'ab \u{1F600}' }] }],
    });
  });
});
