import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGS, RULE_NAMES, RULES, translate, type Lang, type Rule } from '../../src/i18n/messages.js';
import { MAX_BODY_DEPTH } from '../../src/rest/errors.js';
import { AI_EVENT_TYPES } from '../../src/services/events/event-log.js';
import { ENGINES, startApp, type ApiRequest, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * Every ERROR_VALIDATION message names its field first and says what the field must be: the
 * rule's message (i18n/messages.ts) with its parameters, in the request's language. Each case is a
 * real request over HTTP that breaks one rule, through the route's JSON Schema (Ajv) or a service's
 * own check; its English answer is spelled out in full, and in es, fr and ar the message must start
 * with the field and carry every parameter. Every rule of the table has a case (the last test).
 */
const EVENT_VALUES = ['*', ...AI_EVENT_TYPES].join(', ');
const FIELD_FIRST: Record<Lang, string> = { en: 'The field ', es: 'El campo ', fr: 'Le champ ', ar: 'الحقل ' };
const GENERIC = (lang: Lang, field: string) => translate(lang, { key: 'invalid_field', params: { field } });

interface Case {
  rule: Rule;
  field: string;
  request: ApiRequest;
  en: string;
  /** What the message carries in every language (parameter values). */
  params?: (string | number)[];
}

const server = { key: KEYS.server };
const AGENT = { name: 'Bot', provider: 'whatsapp', provider_type: 'chat', provider_external_id: 'validation-bot' };
const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });
const series = (query: Record<string, string>) => ({
  path: '/ai/metrics/series',
  ...server,
  query: { metric: 'orders', group_by: 'day', from: '2026-01-01', to: '2026-01-31', ...query },
});
const send = (body: unknown) => ({ method: 'POST' as const, path: '/ai/agents/1/templates/1/send', ...server, body });
const message = (body: unknown) => ({ method: 'POST' as const, path: '/ai/conversations/1/messages', ...server, body });
/** An active conversation of the fixture (the rules that name a message or a file check them in the database). */
const LIVE = 9001;
const reply = (body: Record<string, unknown>) => ({
  method: 'POST' as const,
  path: `/ai/conversations/${LIVE}/messages`,
  ...server,
  body: { role: 'assistant', ...body },
});
const BUTTON = (id: string, title: string) => ({ type: 'reply', reply: { id, title } });
const multipart = (type: string) => ({
  method: 'POST' as const,
  path: '/ai/media',
  ...server,
  headers: { 'content-type': 'multipart/form-data; boundary=b' },
  body: `--b\r\nContent-Disposition: form-data; name="file"; filename="x"\r\nContent-Type: ${type}\r\n\r\nMZ\r\n--b--\r\n`,
});

const CASES: Case[] = [
  // the route's JSON Schema
  {
    rule: 'required',
    field: 'status_reason',
    request: { method: 'POST', path: '/ai/conversations/1/close', ...server, body: {} },
    en: 'The field status_reason is required.',
  },
  {
    rule: 'enum',
    field: 'status_reason',
    request: { method: 'POST', path: '/ai/conversations/1/close', ...server, body: { status_reason: 'done' } },
    en: 'The field status_reason must be one of: completed, abandoned, failed.',
    params: ['completed', 'abandoned', 'failed'],
  },
  {
    rule: 'items_enum',
    field: 'events',
    request: {
      method: 'POST',
      path: '/ai/webhooks',
      ...server,
      body: { url: 'https://example.com/h', events: ['message.created', 'nope'] },
    },
    en: `The field events must contain only: ${EVENT_VALUES}.`,
    params: ['*', ...AI_EVENT_TYPES],
  },
  { rule: 'not_empty', field: 'content', request: message({ role: 'user', content: '' }), en: 'The field content must not be empty.' },
  {
    rule: 'max_length',
    field: 'content',
    request: message({ role: 'user', content: 'x'.repeat(32_001) }),
    en: 'The field content must be at most 32000 characters.',
    params: [32000],
  },
  { rule: 'length', field: 'to', request: send({ to: '+1234' }), en: 'The field to must be 10 to 15 characters.', params: [10, 15] },
  {
    rule: 'range',
    field: 'page',
    request: { path: '/ai/conversations', ...server, query: { page: '0' } },
    en: 'The field page must be between 1 and 2147483647.',
    params: [1, 2147483647],
  },
  {
    rule: 'max_items',
    field: 'events',
    request: { method: 'POST', path: '/ai/webhooks', ...server, body: { url: 'https://example.com/h', events: Array(17).fill('*') } },
    en: 'The field events must have at most 16 items.',
    params: [16],
  },
  {
    rule: 'integer',
    field: 'page_size',
    request: { path: '/ai/conversations', ...server, query: { page_size: 'ten' } },
    en: 'The field page_size must be a whole number.',
  },
  {
    rule: 'number',
    field: 'usage.cost',
    request: message({ role: 'user', content: 'x', usage: { cost: '1' } }),
    en: 'The field usage.cost must be a number.',
  },
  { rule: 'string', field: 'content', request: message({ role: 'user', content: 5 }), en: 'The field content must be a string.' },
  {
    rule: 'boolean',
    field: 'public',
    request: message({ role: 'user', content: 'x', public: 'yes' }),
    en: 'The field public must be true or false.',
  },
  {
    rule: 'object',
    field: 'usage',
    request: message({ role: 'user', content: 'x', usage: [1] }),
    en: 'The field usage must be a JSON object.',
  },
  {
    rule: 'array',
    field: 'events',
    request: { method: 'POST', path: '/ai/webhooks', ...server, body: { url: 'https://example.com/h', events: 'all' } },
    en: 'The field events must be an array.',
  },
  {
    rule: 'digits',
    field: 'conversation_id',
    request: { path: '/ai/conversations/abc', ...server },
    en: 'The field conversation_id must contain only digits.',
  },
  {
    rule: 'external_id',
    field: 'provider_external_id',
    request: { path: '/ai/agents/a.b/conversations/current', ...server },
    en: 'The field provider_external_id must contain only letters, digits, - and _.',
  },
  {
    rule: 'provider_id',
    field: 'credentials.phone_number_id',
    request: { method: 'POST', path: '/ai/agents', ...server, body: { ...AGENT, credentials: { phone_number_id: '..' } } },
    en: 'The field credentials.phone_number_id must be 1 to 64 letters, digits, - or _.',
    params: [64],
  },
  {
    rule: 'month',
    field: 'month',
    request: { path: '/ai/metrics/overview', ...server, query: { month: '2026-13' } },
    en: 'The field month must be a month (YYYY-MM) of the years 1000 to 9998.',
    params: [1000, 9998],
  },
  { rule: 'phone', field: 'to', request: send({ to: 'call-me-now' }), en: 'The field to must contain only digits, optionally after a +.' },
  {
    rule: 'max_depth',
    field: 'body',
    request: message(nested(MAX_BODY_DEPTH + 1)),
    en: `The field body must be nested at most ${MAX_BODY_DEPTH} levels deep.`,
    params: [MAX_BODY_DEPTH],
  },
  {
    rule: 'no_nul',
    field: 'content',
    request: message({ role: 'user', content: 'a\u0000' }),
    en: 'The field content must not contain the NUL character (U+0000).',
  },
  // a service's own checks (the schema lets these through)
  { rule: 'date', field: 'from', request: series({ from: '2026-02-30' }), en: 'The field from must be a date (YYYY-MM-DD).' },
  {
    rule: 'date_order',
    field: 'to',
    request: series({ from: '2026-02-01', to: '2026-01-31' }),
    en: 'The field to must not be before from.',
    params: ['from'],
  },
  {
    rule: 'max_days',
    field: 'to',
    request: series({ group_by: 'hour', from: '2026-01-01', to: '2026-02-01' }),
    en: 'The field to must be at most 30 days after from.',
    params: [30, 'from'],
  },
  {
    rule: 'max_years',
    field: 'to',
    request: series({ group_by: 'month', from: '2021-01-01', to: '2026-01-01' }),
    en: 'The field to must be less than 5 years after from.',
    params: [5, 'from'],
  },
  {
    rule: 'timezone',
    field: 'timezone',
    request: { path: '/ai/metrics/overview', ...server, query: { timezone: 'Mars/Olympus' } },
    en: 'The field timezone must be an IANA time zone name, such as Europe/Madrid.',
    params: ['Europe/Madrid'],
  },
  {
    rule: 'items_not_blank',
    field: 'body_parameters',
    request: send({ to: '+5215512345678', body_parameters: ['Ada', '  '] }),
    en: 'The field body_parameters must not contain blank items.',
  },
  {
    rule: 'key_enum',
    field: 'translations.pt',
    request: { method: 'PUT', path: '/ai/agents/1/translations', ...server, body: { translations: { pt: {} } } },
    en: 'The field translations.pt is not allowed; the keys allowed are: en, es, fr, ar.',
    params: ['en', 'es', 'fr', 'ar'],
  },
  {
    rule: 'filter',
    field: 'where',
    request: { path: '/ai/conversations', ...server, query: { where: '[1]' } },
    en: 'The field where must be a filter: {"attribute": value}, or conditions [{"attribute", "value"}] under "conditions" with a "conector" AND or OR.',
    params: ['AND', 'OR'],
  },
  {
    rule: 'max_keys',
    field: 'credentials',
    request: {
      method: 'POST',
      path: '/ai/agents',
      ...server,
      body: { ...AGENT, credentials: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) },
    },
    en: 'The field credentials must have at most 20 keys.',
    params: [20],
  },
  {
    rule: 'business',
    field: 'business_id',
    request: { method: 'POST', path: '/ai/agents', ...server, body: { ...AGENT, business_id: 999 } },
    en: 'The field business_id must be the id of a business you can use.',
  },
  {
    rule: 'url',
    field: 'url',
    request: { method: 'POST', path: '/ai/webhooks', ...server, body: { url: 'ftp://example.com/h', events: ['*'] } },
    en: 'The field url must be an http or https URL.',
  },
  {
    rule: 'email',
    field: 'email',
    request: { method: 'POST', path: '/auth', body: { email: 'not-an-address', password: 'x' } },
    en: 'The field email must be an email address.',
  },
  {
    rule: 'digits_count',
    field: 'cellphone',
    request: { method: 'POST', path: '/auth', body: { cellphone: '12', password: 'x' } },
    en: 'The field cellphone must be 4 to 15 digits.',
    params: [4, 15],
  },
  {
    rule: 'uuid',
    field: 'guest_token',
    request: { method: 'POST', path: '/auth', body: { guest_token: 'not-a-uuid' } },
    en: 'The field guest_token must be a UUID.',
  },
  {
    rule: 'printable',
    field: 'Idempotency-Key',
    request: {
      method: 'POST',
      path: '/ai/conversations/1/close',
      ...server,
      headers: { 'idempotency-key': 'with space' },
      body: { status_reason: 'completed' },
    },
    en: 'The field Idempotency-Key must be 1 to 255 printable ASCII characters, without spaces.',
    params: [1, 255],
  },
  // CONTRACT §12.4: a typed reply's payload, member by member
  {
    rule: 'https_url',
    field: 'payload.link',
    request: reply({ type: 'image', payload: { link: 'http://example.com/a.jpg' } }),
    en: 'The field payload.link must be an https URL of at most 2000 characters.',
    params: [2000],
  },
  {
    rule: 'items_range',
    field: 'payload.action.buttons',
    request: reply({ type: 'interactive', payload: { type: 'button', body: { text: 'b' }, action: { buttons: [] } } }),
    en: 'The field payload.action.buttons must have 1 to 3 items.',
    params: [1, 3],
  },
  {
    rule: 'rows_total',
    field: 'payload.action.sections',
    request: reply({
      type: 'interactive',
      payload: {
        type: 'list',
        body: { text: 'b' },
        action: {
          button: 'Menu',
          sections: [0, 1].map((s) => ({ title: `S${s}`, rows: Array.from({ length: 6 }, (_, i) => ({ id: `${s}-${i}`, title: 'r' })) })),
        },
      },
    }),
    en: 'The field payload.action.sections must hold 1 to 10 rows in all.',
    params: [1, 10],
  },
  {
    rule: 'unique',
    field: 'payload.action.buttons[1].reply.title',
    request: reply({
      type: 'interactive',
      payload: { type: 'button', body: { text: 'b' }, action: { buttons: [BUTTON('a', 'Yes'), BUTTON('b', 'Yes')] } },
    }),
    en: 'The field payload.action.buttons[1].reply.title must differ from the same member of the other items of its list.',
  },
  {
    rule: 'exactly_one',
    field: 'payload',
    request: reply({ type: 'video', payload: {} }),
    en: 'The field payload must have exactly one of: media_id, link.',
    params: ['media_id', 'link'],
  },
  {
    rule: 'emoji',
    field: 'payload.emoji',
    request: reply({ type: 'reaction', payload: { message_id: 1, emoji: '👍👍' } }),
    en: 'The field payload.emoji must be one emoji, or empty to remove the reaction.',
  },
  {
    rule: 'section_title',
    field: 'payload.action.sections[1].title',
    request: reply({
      type: 'interactive',
      payload: {
        type: 'list',
        body: { text: 'b' },
        action: { button: 'Menu', sections: [{ title: 'A', rows: [{ id: 'a', title: 'a' }] }, { rows: [{ id: 'b', title: 'b' }] }] },
      },
    }),
    en: 'The field payload.action.sections[1].title is required when the list has more than one section.',
  },
  {
    rule: 'type_forbids',
    field: 'payload.caption',
    request: reply({ type: 'sticker', payload: { link: 'https://example.com/s.webp', caption: 'no' } }),
    en: 'The field payload.caption is not allowed with type sticker.',
    params: ['sticker'],
  },
  {
    rule: 'conversation_message',
    field: 'reply_to_id',
    request: reply({ content: 'hi', reply_to_id: 987654 }),
    en: 'The field reply_to_id must be the id of a message of this conversation.',
  },
  {
    rule: 'sent_message',
    field: 'payload.message_id',
    request: reply({ type: 'reaction', payload: { message_id: 987654, emoji: '👍' } }),
    en: 'The field payload.message_id must be the id of a message of this conversation sent or received on WhatsApp.',
  },
  {
    rule: 'media_file',
    field: 'payload.media_id',
    request: reply({ type: 'sticker', payload: { media_id: 'med_000000000000000000000000' } }),
    en: 'The field payload.media_id must be the id of a stored file of this project that WhatsApp accepts as sticker: image/webp, at most 512000 bytes.',
    params: ['sticker', 'image/webp', 512000],
  },
  {
    rule: 'approved_template',
    field: 'order_messages.7.template_id',
    request: {
      method: 'PATCH',
      path: '/ai/agents/9000',
      ...server,
      body: { order_messages: { '7': { text: 'Ready', template_id: 999999 } } },
    },
    en: 'The field order_messages.7.template_id must be the id of an APPROVED template of this agent.',
  },
  {
    rule: 'file_type',
    field: 'file',
    request: multipart('application/x-msdownload'),
    en: 'The field file must be a file of one of the types: image/jpeg, image/png, video/mp4, video/3gpp, audio/aac, audio/amr, audio/mpeg, audio/mp4, audio/ogg, image/webp, application/pdf, text/plain, application/msword, application/vnd.openxmlformats-officedocument.wordprocessingml.document, application/vnd.ms-excel, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, application/vnd.ms-powerpoint, application/vnd.openxmlformats-officedocument.presentationml.presentation.',
    params: ['image/jpeg', 'application/pdf'],
  },
  {
    rule: 'file_content',
    field: 'file',
    request: multipart('image/jpeg'),
    en: 'The field file must hold a file of the type it declares (image/jpeg).',
    params: ['image/jpeg'],
  },
  {
    rule: 'file_empty',
    field: 'file',
    request: {
      ...multipart('image/png'),
      body: '--b\r\nContent-Disposition: form-data; name="file"; filename="x"\r\nContent-Type: image/png\r\n\r\n\r\n--b--\r\n',
    },
    en: 'The field file must not be an empty file.',
  },
  {
    rule: 'form_parts',
    field: 'file',
    request: { ...multipart('image/png'), body: `${'--b\r\nContent-Disposition: form-data; name="f"\r\n\r\nx\r\n'.repeat(11)}--b--\r\n` },
    en: 'The field file must come in a form of at most 10 parts.',
    params: [10],
  },
  {
    rule: 'part_headers',
    field: 'file',
    request: multipart(`image/png\r\nX-Pad: ${'p'.repeat(9000)}`),
    en: 'The field file must come in parts whose headers are at most 8192 bytes.',
    params: [8192],
  },
];

/** Rules no route reaches today, checked on the table itself: the generic pattern message (every pattern of a route has a name). */
const TABLE_ONLY: Rule[] = ['pattern'];

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [
        {
          id: 9000,
          business_id: 1,
          name: 'V',
          provider: 'web',
          provider_type: 'chat',
          provider_external_id: 'validation-web',
          enabled: true,
        },
      ],
    }),
  );
  await db.sql(
    `insert into ai_conversations (id, project_id, agent_id, business_id, status, usage)
     select ?, id, 9000, 1, 'active', '{}' from projects where code = 'acme'`,
    [LIVE],
  );
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('validation messages name the rule (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  it.each(CASES.map((c) => [c.rule, c] as const))(
    '%s: a 400 naming the field and what it must be, in en, es, fr and ar',
    async (_rule, c) => {
      for (const lang of LANGS) {
        const res = await t.api({ ...c.request, lang });
        expect([res.statusCode, res.json().code], `${lang} ${res.body.slice(0, 300)}`).toEqual([400, 'ERROR_VALIDATION']);
        const result: string[] = res.json().result;
        const msg = result.find((m) => m.startsWith(`${FIELD_FIRST[lang]}${c.field} `));
        expect(msg, `${lang}: ${JSON.stringify(result)}`).toBeDefined();
        if (lang === 'en') expect(msg).toBe(c.en);
        expect(msg).not.toBe(GENERIC(lang, c.field));
        for (const p of c.params ?? []) expect(msg, lang).toContain(String(p));
      }
    },
  );

  it('one message per invalid field, each with its own rule', async () => {
    const res = await t.api({
      method: 'POST',
      path: '/ai/conversations/1/messages',
      ...server,
      lang: 'fr',
      body: { role: 'robot', content: '', public: 1 },
    });
    expect(res.statusCode).toBe(400);
    expect((res.json().result as string[]).sort()).toEqual([
      'Le champ content ne doit pas être vide.',
      'Le champ public doit valoir true ou false.',
      "Le champ role doit être l'une des valeurs : user, assistant, system, tool.",
    ]);
  });

  it('a list is joined in the language: Arabic uses its own comma', async () => {
    const res = await t.api({ method: 'POST', path: '/ai/conversations/1/close', ...server, lang: 'ar', body: { status_reason: 'done' } });
    expect(res.json().result).toEqual(['الحقل status_reason يجب أن يكون إحدى القيم: completed، abandoned، failed.']);
  });
});

describe('the table of rules', () => {
  it('every rule has a case over HTTP (or is checked here on the table)', () => {
    expect([...new Set([...CASES.map((c) => c.rule), ...TABLE_ONLY])].sort()).toEqual([...RULE_NAMES].sort());
  });

  it('every language has every rule, starting with the field and using the same parameters as English', () => {
    const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const lang of LANGS) {
      for (const rule of RULE_NAMES) {
        const template = RULES[lang][rule];
        expect(template.startsWith(`${FIELD_FIRST[lang]}{field} `), `${lang}.${rule}`).toBe(true);
        expect(placeholders(template), `${lang}.${rule}`).toEqual(placeholders(RULES.en[rule]));
      }
    }
  });

  it('the generic pattern rule quotes the pattern', () => {
    expect(translate('en', { key: 'rule.pattern', params: { field: 'code', pattern: '^[A-Z]{3}$' } })).toBe(
      'The field code must match the pattern ^[A-Z]{3}$.',
    );
    for (const lang of LANGS)
      expect(translate(lang, { key: 'rule.pattern', params: { field: 'code', pattern: '^[A-Z]{3}$' } })).toContain('^[A-Z]{3}$');
  });
});
