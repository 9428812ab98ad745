import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { verify as argonVerify } from '@node-rs/argon2';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';
import { readInt8AsNumbers } from '../src/db/connection-guard.js';

/**
 * The benchmark's baseline: hand-written Fastify + `pg` routes that run exactly the SQL
 * statements `serve` runs for each bench request (taken from PostgreSQL's statement log of one
 * request, `alter database … set log_statement = 'all'`; see the README) and answer the same JSON.
 * Like the service it caches the project row and the application maintenance flag for 2 s and a
 * valid API key's caller for 1 s (the baseline caches any answer: the bench sends valid keys); it
 * handles only the success paths the scenarios exercise (anything else: a bare 4xx).
 * Runs as its own process: `node dist/bench/baseline.js` with DATABASE_URL and PORT.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.BASELINE_POOL_MAX ?? 10) });
// ids are bigint: read as serve reads them (JSON numbers)
pool.on('connect', (client) => void readInt8AsNumbers(client as never));
pool.on('error', () => undefined);
const app = Fastify({ logger: false });

interface Project {
  id: number;
  code: string;
  subscription_active: boolean;
  maintenance: boolean;
  ai_enabled: boolean;
  plugins: string[];
}
type Caller = { kind: 'server'; keyId: number } | { kind: 'user'; level: number; enabled: boolean; id: number };

const cached = new Map<string, { at: number; value: Promise<unknown> }>();
function cache<T>(key: string, load: () => Promise<T>, ttlMs = 2000): Promise<T> {
  const hit = cached.get(key);
  if (hit && Date.now() - hit.at < ttlMs) return hit.value as Promise<T>;
  const value = load();
  cached.set(key, { at: Date.now(), value });
  return value;
}

const one = async <T>(sql: string, values: unknown[]): Promise<T | undefined> => (await pool.query(sql, values)).rows[0] as T | undefined;

/**
 * The statements `serve` runs through src/db/direct-read.ts (every read of the routes below; not
 * the pipeline's lookups nor the login's) are named prepared statements there
 * (DATABASE_PREPARED_STATEMENTS, on by default): the baseline prepares the same ones.
 */
const statementNames = new Map<string, string>();
function prepared<R extends pg.QueryResultRow = any>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
  let name = statementNames.get(text);
  if (!name) statementNames.set(text, (name = `baseline_${statementNames.size + 1}`));
  return pool.query<R>({ name, text, values });
}
const onePrepared = async <T>(sql: string, values: unknown[]): Promise<T | undefined> =>
  (await prepared(sql, values)).rows[0] as T | undefined;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

class Refused extends Error {
  constructor(readonly status: number) {
    super(String(status));
  }
}

/** Maintenance, project, API key: the statements of the service's pipeline. */
async function scope(req: FastifyRequest): Promise<{ project: Project; caller: Caller | null }> {
  const { project: code } = req.params as { project: string };
  const maintenance = await cache('maintenance', () =>
    one<{ value: unknown }>(`select "a0".* from "app_settings" as "a0" where "a0"."key" = $1 limit 1`, ['maintenance']),
  );
  if (maintenance?.value === true) throw new Refused(503);
  const project = await cache(`project:${code}`, () =>
    one<Project>(`select "p0".* from "projects" as "p0" where "p0"."code" = $1 limit 1`, [code]),
  );
  if (!project || !project.subscription_active || project.maintenance) throw new Refused(401);
  const key = req.headers['x-api-key'];
  if (typeof key !== 'string') return { project, caller: null };
  // The service remembers a valid key for 1 s (CALLER_CACHE_MS); so does the baseline.
  const row = await cache(
    `key:${project.id}:${key}`,
    () =>
      one<{ id: number; server: boolean; u1__id: number | null; u1__level: number; u1__enabled: boolean }>(
        `select "a0".*, "u1"."id" as "u1__id", "u1"."project_id" as "u1__project_id", "u1"."name" as "u1__name", "u1"."lastname" as "u1__lastname", "u1"."email" as "u1__email", "u1"."cellphone" as "u1__cellphone", "u1"."country_phone_code" as "u1__country_phone_code", "u1"."level" as "u1__level", "u1"."guest" as "u1__guest", "u1"."guest_token" as "u1__guest_token", "u1"."enabled" as "u1__enabled", "u1"."created_at" as "u1__created_at", "u1"."updated_at" as "u1__updated_at" from "api_keys" as "a0" left join "users" as "u1" on "a0"."user_id" = "u1"."id" and "u1"."project_id" = $1 where "a0"."project_id" = $2 and "a0"."key_hash" = $3 limit 1`,
        [project.id, project.id, sha256(key)],
      ),
    1000,
  );
  if (!row) throw new Refused(401);
  if (row.server) return { project, caller: { kind: 'server', keyId: row.id } };
  if (row.u1__id === null || !row.u1__enabled) throw new Refused(401);
  return { project, caller: { kind: 'user', id: row.u1__id, level: row.u1__level, enabled: row.u1__enabled } };
}

/** Server keys only (the bench's callers): the AI routes' level check and module check. */
async function aiServer(req: FastifyRequest): Promise<Project & { viewer: string }> {
  const { project, caller } = await scope(req);
  if (caller?.kind !== 'server') throw new Refused(401);
  if (!project.ai_enabled) throw new Refused(403);
  return { ...project, viewer: `key:${caller.keyId}` };
}

app.setErrorHandler((err, _req, reply: FastifyReply) => {
  if (err instanceof Refused) return reply.code(err.status).send({ error: true });
  return reply.code(500).send({ error: true });
});

app.get('/health', async () => ({ status: 'ok' }));

interface ConfigRow {
  id: number;
  key: string;
  value: string;
  type: number;
  public: boolean;
  hidden: boolean;
  protected: boolean;
  description: string | null;
  plugin: string | null;
}

app.get('/v400/:lang/:project/configs', async (req) => {
  const { project, caller } = await scope(req);
  if (caller?.kind !== 'server') throw new Refused(401);
  const { rows } = await prepared<ConfigRow>(`select "c0".* from "configs" as "c0" where "c0"."project_id" = $1 order by "c0"."key" asc`, [
    project.id,
  ]);
  const builtIn = [
    ['ai_module_enabled', project.ai_enabled ? '1' : '0'],
    ['api_version', '400'],
    ['project_code', project.code],
  ].map(([key, value]) => ({
    id: null as number | null,
    key,
    value,
    type: 1,
    public: true,
    hidden: false,
    protected: false,
    plugin: null as string | null,
  }));
  const builtInKeys = new Set(builtIn.map((e) => e.key));
  const stored = rows
    .filter((c) => !builtInKeys.has(c.key))
    .map((c) => ({
      id: c.id,
      key: c.key,
      value: c.value,
      type: c.type,
      public: c.public,
      hidden: c.hidden,
      protected: c.protected,
      plugin: c.plugin,
      description: c.description,
    }));
  const result = [...stored, ...builtIn].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { error: false, result };
});

interface ConversationRow {
  id: number;
  agent_id: number;
  user_id: number | null;
  business_id: number | null;
  status: string;
  status_reason: string | null;
  usage: unknown;
  created_at: Date;
  closed_at: Date | null;
  updated_at: Date;
  contact: string | null;
  contact_user_id: string | null;
  contact_name: string | null;
  contact_username: string | null;
  referral: unknown;
  source: string;
  last_inbound_at: Date | null;
  handler: string;
  assignee_id: number | null;
  last_message_at: Date;
}

/** CONTRACT §10.5: the caller's unread user messages (after its seen mark), from the stored counts as serve reads them. */
async function unreadCounts(projectId: number, viewer: string, ids: number[]): Promise<Map<number, number>> {
  const { rows } = await prepared<{ conversation_id: number; n: number }>(
    `select c.id as conversation_id, c.user_messages - coalesce(s.user_messages, 0) as n from ai_conversations c
           left join ai_conversation_seen s on s.conversation_id = c.id and s.viewer = $1 and s.project_id = $2
          where c.project_id = $3 and c.id in (${ids.map((_, i) => `$${i + 4}`).join(', ')})`,
    [viewer, projectId, projectId, ...ids],
  );
  const counts = new Map<number, number>(ids.map((id) => [id, 0]));
  for (const r of rows) counts.set(Number(r.conversation_id), Number(r.n));
  return counts;
}

async function messageCounts(projectId: number, ids: number[]): Promise<Map<number, number>> {
  const { rows } = await prepared<{ conversation_id: number; n: number }>(
    `select conversation_id, count(*)::int as n from ai_messages
          where project_id = $1 and conversation_id in (${ids.map((_, i) => `$${i + 2}`).join(', ')})
          group by conversation_id`,
    [projectId, ...ids],
  );
  const counts = new Map<number, number>(ids.map((id) => [id, 0]));
  for (const r of rows) counts.set(Number(r.conversation_id), Number(r.n));
  return counts;
}

const findConversation = (projectId: number, id: number) =>
  onePrepared<ConversationRow>(`select "a0".* from "ai_conversations" as "a0" where "a0"."project_id" = $1 and "a0"."id" = $2 limit 1`, [
    projectId,
    id,
  ]);

/** CONTRACT §10.1: the window closes 24 h after the newest inbound WhatsApp message. */
const windowExpiresAt = (lastInbound: Date | null) =>
  lastInbound === null ? null : new Date(lastInbound.getTime() + 24 * 3600 * 1000).toISOString();

const conversationFields = (c: ConversationRow) => ({
  id: c.id,
  agent_id: c.agent_id,
  user_id: c.user_id,
  business_id: c.business_id,
  status: c.status,
  status_reason: c.status_reason,
});

app.get('/v400/:lang/:project/ai/conversations/:conversation_id', async (req) => {
  const project = await aiServer(req);
  const c = await findConversation(project.id, Number((req.params as { conversation_id: string }).conversation_id));
  if (!c) throw new Refused(400);
  const [counts, unread] = await Promise.all([messageCounts(project.id, [c.id]), unreadCounts(project.id, project.viewer, [c.id])]);
  return {
    error: false,
    result: {
      ...conversationFields(c),
      usage: c.usage,
      created_at: c.created_at,
      closed_at: c.closed_at,
      updated_at: c.updated_at,
      contact: c.contact,
      contact_user_id: c.contact_user_id,
      contact_name: c.contact_name,
      contact_username: c.contact_username,
      window_expires_at: windowExpiresAt(c.last_inbound_at),
      handler: c.handler,
      assignee_id: c.assignee_id,
      messages_count: counts.get(c.id),
      last_message_at: c.last_message_at,
      unread_count: unread.get(c.id),
      referral: c.referral,
      source: c.source,
    },
  };
});

const pagination = (page: number, pageSize: number, total: number, returned: number) => ({
  current_page: page,
  page_size: pageSize,
  total_pages: Math.ceil(total / pageSize),
  total,
  from: returned > 0 ? (page - 1) * pageSize + 1 : null,
  to: returned > 0 ? (page - 1) * pageSize + returned : null,
});

/** `?page_size=50&params=id,status,agent.name` only: the bench's list request. */
app.get('/v400/:lang/:project/ai/conversations', async (req) => {
  const project = await aiServer(req);
  const pageSize = Number((req.query as { page_size?: string }).page_size ?? 10);
  const [page, total] = await Promise.all([
    prepared<ConversationRow>(
      `select "a0".* from "ai_conversations" as "a0" where "a0"."project_id" = $1 order by "a0"."id" asc limit $2`,
      [project.id, pageSize],
    ),
    onePrepared<{ count: string }>(`select count(*) as "count" from "ai_conversations" as "a0" where "a0"."project_id" = $1`, [project.id]),
  ]);
  const ids = page.rows.map((c) => c.id);
  const agentIds = [...new Set(page.rows.map((c) => c.agent_id))];
  const [counts, agents] = await Promise.all([
    messageCounts(project.id, ids),
    prepared<{ id: number; name: string }>(
      `select "a0"."id", "a0"."project_id", "a0"."business_id", "a0"."name", "a0"."provider", "a0"."provider_type", "a0"."provider_external_id", "a0"."enabled", "a0"."created_at", "a0"."updated_at" from "ai_agents" as "a0" where "a0"."project_id" = $1 and "a0"."id" in (${agentIds.map((_, i) => `$${i + 2}`).join(', ')})`,
      [project.id, ...agentIds],
    ),
  ]);
  const byId = new Map(agents.rows.map((a) => [a.id, a]));
  const result = page.rows.map((c) => {
    const a = byId.get(c.agent_id);
    return { id: c.id, messages_count: counts.get(c.id), status: c.status, agent: a ? { id: a.id, name: a.name } : null };
  });
  return { error: false, result, pagination: pagination(1, pageSize, Number(total!.count), result.length) };
});

app.get('/v400/:lang/:project/ai/agents/:provider_external_id/conversations/current', async (req) => {
  const { project, caller } = await scope(req);
  if (!caller) throw new Refused(401);
  if (!project.ai_enabled) throw new Refused(403);
  const agent = await onePrepared<{ id: number; enabled: boolean }>(
    `select "a0"."id", "a0"."project_id", "a0"."business_id", "a0"."name", "a0"."provider", "a0"."provider_type", "a0"."provider_external_id", "a0"."enabled", "a0"."created_at", "a0"."updated_at" from "ai_agents" as "a0" where "a0"."project_id" = $1 and "a0"."provider_external_id" = $2 limit 1`,
    [project.id, (req.params as { provider_external_id: string }).provider_external_id],
  );
  if (!agent) throw new Refused(404);
  if (!agent.enabled) throw new Refused(409);
  const c = await onePrepared<ConversationRow>(
    `select "a0".* from "ai_conversations" as "a0" where "a0"."project_id" = $1 and "a0"."agent_id" = $2 and "a0"."user_id" is null and "a0"."contact" is null and "a0"."status" = 'active' limit 1`,
    [project.id, agent.id],
  );
  if (!c) throw new Refused(500); // the bench measures the existing conversation only
  return {
    error: false,
    result: {
      ...conversationFields(c),
      created_at: c.created_at,
      closed_at: c.closed_at,
      updated_at: c.updated_at,
      contact: c.contact,
      window_expires_at: windowExpiresAt(c.last_inbound_at),
      handler: c.handler,
      assignee_id: c.assignee_id,
    },
  };
});

/** `?page_size=50` only: the bench's messages request. */
app.get('/v400/:lang/:project/ai/conversations/:conversation_id/messages', async (req) => {
  const project = await aiServer(req);
  const pageSize = Number((req.query as { page_size?: string }).page_size ?? 10);
  const c = await findConversation(project.id, Number((req.params as { conversation_id: string }).conversation_id));
  if (!c) throw new Refused(400);
  const [page, total] = await Promise.all([
    prepared<{
      id: number;
      conversation_id: number;
      role: string;
      content: string;
      public: boolean;
      created_at: Date;
      usage: unknown;
      external_id: string | null;
      delivery_status: string | null;
      delivery_error: string | null;
      author_id: number | null;
      type: string;
      payload: unknown;
      reply_to_id: number | null;
    }>(
      `select "a0".* from "ai_messages" as "a0" where "a0"."project_id" = $1 and "a0"."conversation_id" = $2 order by "a0"."id" asc limit $3`,
      [project.id, c.id, pageSize],
    ),
    onePrepared<{ count: string }>(
      `select count(*) as "count" from "ai_messages" as "a0" where "a0"."project_id" = $1 and "a0"."conversation_id" = $2`,
      [project.id, c.id],
    ),
  ]);
  const result = page.rows.map(messageRecord);
  return { error: false, result, pagination: pagination(1, pageSize, Number(total!.count), result.length) };
});

const LOCKOUT_KEY = (projectId: number, email: string) => `auth-lockout:${projectId}:${email.toLowerCase()}`;
const SESSION_TTL_S = 2_592_000;

/** Email branch only. */
app.post('/v400/:lang/:project/auth', async (req) => {
  const { project } = await scope(req);
  const { email, password } = req.body as { email: string; password: string };
  const recaptcha = await one<{ value: string }>(
    `select "c0".* from "configs" as "c0" where "c0"."project_id" = $1 and "c0"."key" = $2 limit 1`,
    [project.id, 'security_recaptcha_auth'],
  );
  if (recaptcha?.value === '1') throw new Refused(400);
  const lockKey = LOCKOUT_KEY(project.id, email);
  const lock = await pool.query({
    name: 'rlflx-get',
    text: `
            SELECT points, expire FROM "rate_limits" WHERE key = $1 AND (expire > $2 OR expire IS NULL);`,
    values: [lockKey, Date.now()],
  });
  if (lock.rows[0] && Number(lock.rows[0].points) >= 10) throw new Refused(429);
  const user = await one<Record<string, any>>(
    `select "u0".* from "users" as "u0" where "u0"."project_id" = $1 and "u0"."email" ilike $2 limit 1`,
    [project.id, email],
  );
  if (!user?.password_hash || !user.enabled || !(await argonVerify(user.password_hash, password))) throw new Refused(401);
  await pool.query({ name: 'rlflx-delete', text: 'DELETE FROM "rate_limits" WHERE key = $1', values: [lockKey] });
  const token = `ogs_${randomBytes(32).toString('base64url')}`;
  const now = new Date();
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `insert into "sessions" ("project_id", "user_id", "token_hash", "expires_at", "device_code", "platform", "ip", "forwarded_for", "user_agent", "created_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "id"`,
      [
        project.id,
        user.id,
        sha256(token),
        new Date(now.getTime() + SESSION_TTL_S * 1000),
        null,
        null,
        req.socket.remoteAddress ?? '',
        req.headers['x-forwarded-for'] ?? null,
        req.headers['user-agent'] ?? null,
        now,
      ],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  const { id, name, lastname, cellphone, country_phone_code, level, guest, enabled } = user;
  return {
    error: false,
    result: {
      id,
      name,
      lastname,
      email: user.email,
      cellphone,
      country_phone_code,
      level,
      guest,
      enabled,
      session: { access_token: token, token_type: 'bearer', expires_in: SESSION_TTL_S },
    },
  };
});

/**
 * `GET /ai/metrics/overview`: the one statement the service runs, with its parameters, as
 * bench/metrics.ts captured it at the ORM connection for the bench's month (BASELINE_OVERVIEW_SQL
 * names the JSON file), whatever the query string; the shaping written out again.
 */
const overviewSql = process.env.BASELINE_OVERVIEW_SQL
  ? (JSON.parse(fs.readFileSync(process.env.BASELINE_OVERVIEW_SQL, 'utf8')) as { sql: string; params: unknown[] })
  : null;
const round2 = (x: number) => {
  if (!Number.isFinite(x)) return 0;
  return Number(`${Math.sign(x) * Math.round(Number(`${Math.abs(x)}e2`))}e-2`) + 0;
};
const compare = (current: number, previous: number, roundValues: boolean) => ({
  current: roundValues ? round2(current) : current,
  previous: roundValues ? round2(previous) : previous,
  change_percentage: round2(previous === 0 ? (current > 0 ? 100 : 0) : ((current - previous) / previous) * 100),
});
app.get('/v400/:lang/:project/ai/metrics/overview', async (req) => {
  if (!overviewSql) throw new Refused(404);
  await aiServer(req);
  const row = (await prepared(overviewSql.sql, overviewSql.params)).rows[0] as { o: any[]; c: any[] };
  const orders = [
    { n: 0, revenue: 0 },
    { n: 0, revenue: 0 },
  ];
  for (const r of row.o) {
    const x = orders[Number(r.p) === 1 ? 0 : 1];
    x.n += Number(r.orders);
    x.revenue += Number(r.revenue);
  }
  const convs = [0, 0];
  const types = new Map<string, [number, number]>();
  for (const r of row.c) {
    const i = Number(r.p) === 1 ? 0 : 1;
    convs[i] += Number(r.conversations);
    const t = types.get(r.provider_type) ?? [0, 0];
    t[i] += Number(r.conversations);
    types.set(r.provider_type, t);
  }
  const avg = (x: { n: number; revenue: number }) => (x.n === 0 ? 0 : x.revenue / x.n);
  return {
    error: false,
    result: {
      orders: compare(orders[0].n, orders[1].n, false),
      revenue: { total: compare(orders[0].revenue, orders[1].revenue, true), average: compare(avg(orders[0]), avg(orders[1]), true) },
      conversations: {
        total: compare(convs[0], convs[1], false),
        by_provider_type: [...types.entries()]
          .filter(([, [c, p]]) => c !== 0 || p !== 0)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([provider_type, [c, p]]) => ({ provider_type, ...compare(c, p, false) })),
      },
    },
  };
});

// ---- writes (CONTRACT §9.1): the statements of ConversationWriteService.addMessage / addCurrentMessage (insertMessage) and appendEvents ----

const SEQUENCER_LOCK_CLASS = 0x4f474576;
type Tx = pg.PoolClient;
interface NewEvent {
  type: string;
  agent_id: number;
  business_id: number | null;
  conversation_id: number;
  public: boolean;
  data: unknown;
}

const inbox = (tx: Tx, projectId: number, events: NewEvent[]) =>
  tx.query(
    `insert into ai_event_inbox (project_id, type, agent_id, business_id, conversation_id, public, data, created_at)
     select $1, r.type, r.agent_id, r.business_id, r.conversation_id, r.public, r.data, clock_timestamp()
       from rows from (jsonb_to_recordset($2::jsonb) as (type text, agent_id bigint, business_id bigint, conversation_id bigint, public boolean, data jsonb))
            with ordinality as r(type, agent_id, business_id, conversation_id, public, data, n)
      order by r.n`,
    [projectId, JSON.stringify(events)],
  );

/** `inboxed`: the work's own statements put events in the inbox. */
async function inTransaction<T>(
  work: (tx: Tx) => Promise<{ value: T; events: NewEvent[]; projectId: number; inboxed?: boolean }>,
): Promise<T> {
  const tx = await pool.connect();
  let sequence: number | null = null;
  let value: T;
  try {
    await tx.query('BEGIN');
    const done = await work(tx);
    value = done.value;
    const { events, projectId } = done;
    if (events.length) await inbox(tx, projectId, events);
    if (events.length || done.inboxed) sequence = projectId;
    await tx.query('COMMIT');
  } catch (err) {
    await tx.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    tx.release();
  }
  if (sequence !== null) await sequenced(sequence);
  return value!;
}

/** The sequencer pass of services/events/event-log.ts, shared as serve shares it: one running per project, callers meanwhile share the next. */
const passes = new Map<number, { running: Promise<void> | null; queued: Promise<void> | null }>();
function sequenced(projectId: number): Promise<void> {
  let s = passes.get(projectId);
  if (!s) passes.set(projectId, (s = { running: null, queued: null }));
  if (s.queued) return s.queued;
  const state = s;
  const start = (): Promise<void> => {
    state.queued = null;
    const pass = pool
      .query(
        `with pass_lock as (select pg_advisory_xact_lock($1, $2)),
       moved as (delete from ai_event_inbox i where i.project_id = $2 and exists (select 1 from pass_lock) returning i.*),
       ins as (
         insert into ai_events (project_id, type, agent_id, business_id, conversation_id, public, data, created_at)
         select project_id, type, agent_id, business_id, conversation_id, public, data, created_at from moved order by seq
         returning id, type),
       deliveries as (
         insert into ai_webhook_deliveries (project_id, webhook_id, event_id, event_type)
         select w.project_id, w.id, ins.id, ins.type
           from ins join ai_webhooks w on w.project_id = $2 and w.enabled and (w.events @> jsonb_build_array(ins.type) or w.events @> '["*"]')
          order by ins.id, w.id)
       select max(id)::text as last_id, pg_notify($3, $4 || ':' || max(id)) from ins having count(*) > 0`,
        [SEQUENCER_LOCK_CLASS, projectId, 'ai_events', String(projectId)],
      )
      .then(() => undefined)
      .finally(() => {
        if (state.running === pass) state.running = null;
      });
    state.running = pass;
    return pass;
  };
  if (!state.running) return start();
  state.queued = state.running.then(start, start);
  return state.queued;
}

const iso = (v: Date | null) => (v === null ? null : v.toISOString());
const messageRecord = (m: Record<string, any>) => ({
  id: m.id,
  conversation_id: m.conversation_id,
  role: m.role,
  content: m.content,
  public: m.public,
  created_at: iso(m.created_at),
  usage: m.usage,
  external_id: m.external_id,
  delivery_status: m.delivery_status,
  delivery_error: m.delivery_error,
  author_id: m.author_id,
  type: m.type,
  payload: m.payload,
  reply_to_id: m.reply_to_id,
  source: m.source ?? 'api',
  edited_at: iso(m.edited_at ?? null),
  edits: m.edits ?? [],
  revoked_at: iso(m.revoked_at ?? null),
  referral: m.referral ?? null,
  referred_product: m.referred_product ?? null,
  order_id: m.order_id ?? null,
});
const conversationRecord = (c: Record<string, any>, messagesCount: number) => ({
  id: c.id,
  agent_id: c.agent_id,
  user_id: c.user_id,
  business_id: c.business_id,
  status: c.status,
  status_reason: c.status_reason,
  usage: c.usage,
  created_at: iso(c.created_at),
  closed_at: iso(c.closed_at),
  updated_at: iso(c.updated_at),
  contact: c.contact,
  contact_user_id: c.contact_user_id,
  contact_name: c.contact_name,
  contact_username: c.contact_username ?? null,
  window_expires_at: windowExpiresAt(c.last_inbound_at),
  handler: c.handler,
  assignee_id: c.assignee_id,
  last_message_at: iso(c.last_message_at ?? c.created_at),
  referral: c.referral ?? null,
  source: c.source ?? 'live',
  messages_count: messagesCount,
});
/** The message.created event's data built from the row `m`, as serve's messageRecordSql builds it. */
const MESSAGE_JSON = `jsonb_build_object('id', m.id, 'conversation_id', m.conversation_id, 'role', m.role, 'content', m.content,
  'public', m.public, 'created_at', to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'usage', m.usage,
  'external_id', m.external_id, 'delivery_status', m.delivery_status, 'delivery_error', m.delivery_error, 'author_id', m.author_id,
  'type', m.type, 'payload', m.payload, 'reply_to_id', m.reply_to_id, 'source', m.source,
  'edited_at', to_char(m.edited_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'edits', m.edits,
  'revoked_at', to_char(m.revoked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'referral', m.referral,
  'referred_product', m.referred_product, 'order_id', m.order_id)`;
/**
 * serve's statement: the message, its send queued when it is a WhatsApp reply (never in the bench),
 * the conversation's change (`set`, its parameters from $11) and its message.created inbox row.
 */
const insertMessage = async (
  tx: Tx,
  projectId: number,
  c: { id: number; agent_id: number; business_id: number | null },
  role: string,
  content: string,
  isPublic: boolean,
  usage: unknown,
  authorId: number | null,
  set: string,
  setParams: unknown[],
) =>
  (
    await tx.query(
      `with m as (
       insert into ai_messages (project_id, conversation_id, role, content, public, usage, author_id, created_at, delivery_status,
                                type, payload, reply_to_id)
       values ($1, $2, $3, $4, $5, $6::jsonb, $7, now(), $8, 'text', null, null) returning *),
     queued as (
       insert into ai_message_sends (message_id, project_id, conversation_id)
       select id, project_id, conversation_id from m where m.delivery_status = 'pending'),
     changed as (update ai_conversations set ${set} where id = $2 and project_id = $1),
     inboxed as (
       insert into ai_event_inbox (project_id, type, agent_id, business_id, conversation_id, public, data, created_at)
       select m.project_id, 'message.created', $9, $10, m.conversation_id, m.public,
              ${MESSAGE_JSON},
              clock_timestamp() from m)
     select * from m`,
      [
        projectId,
        c.id,
        role,
        content,
        isPublic,
        usage === null ? null : JSON.stringify(usage),
        authorId,
        null,
        c.agent_id,
        c.business_id,
        ...setParams,
      ],
    )
  ).rows[0];

/** The message.created inbox row of the message `m`, as serve's statements write it (messageRecordSql). */
const inboxedSql = (agentId: string, businessId: string) => `inboxed as (
       insert into ai_event_inbox (project_id, type, agent_id, business_id, conversation_id, public, data, created_at)
       select m.project_id, 'message.created', ${agentId}, ${businessId}, m.conversation_id, m.public,
              ${MESSAGE_JSON},
              clock_timestamp()
         from m)`;

/**
 * Server keys, valid bodies only (the bench's): serve's one autocommit statement (conversation-writes.service.ts
 * addInOneStatement: lock, checks, message, change, inbox row), then the sequencer pass.
 */
app.post('/v400/:lang/:project/ai/conversations/:conversation_id/messages', async (req) => {
  const project = await aiServer(req);
  const body = req.body as { role: string; content: string; public?: boolean; usage?: Record<string, number> };
  const u = body.usage ?? {};
  const has = (k: string) => (u[k] === undefined ? null : u[k]);
  const isPublic = body.public !== false;
  const rt = has('response_time_ms');
  const { rows } = await prepared(
    `with c as materialized (
       select c.id, c.project_id, c.agent_id, c.business_id, c.status, c.handler, c.contact,
              a.business_id as agent_business_id, a.provider as agent_provider,
              coalesce(c.last_inbound_at > now() - make_interval(secs => $1), false) as window_open
         from ai_conversations c
         join ai_agents a on a.id = c.agent_id and a.project_id = c.project_id
        where c.project_id = $2 and c.id = $3
        for no key update of c),
     go as (
       select c.*, $4::boolean and coalesce(c.contact, '') <> '' and c.agent_provider = 'whatsapp' as outbound from c
        where c.status = 'active' and ($5::bigint[] is null or coalesce(c.business_id, -1) = any($6::bigint[]))
          and not (c.handler = 'human' and $7::boolean)),
     m as (
       insert into ai_messages (project_id, conversation_id, role, content, public, usage, author_id, created_at, delivery_status,
                                type, payload, reply_to_id)
       select go.project_id, go.id, $8::text, $9::text, $10::boolean, $11::jsonb, $12::bigint, now(), case when go.outbound then 'pending' end, $13::text,
              $14::jsonb, null
         from go where not go.outbound or (go.window_open and $15::boolean)
       returning *),
     queued as (
       insert into ai_message_sends (message_id, project_id, conversation_id)
       select id, project_id, conversation_id from m where m.delivery_status = 'pending'),
     changed as (update ai_conversations set updated_at = now(), usage = usage
      || case when $16::numeric is null then '{}'::jsonb else jsonb_build_object('cost', coalesce((usage->>'cost')::numeric, 0) + $17::numeric) end
      || case when $18::numeric is null then '{}'::jsonb else jsonb_build_object('input_tokens', coalesce((usage->>'input_tokens')::numeric, 0) + $19::numeric) end
      || case when $20::numeric is null then '{}'::jsonb else jsonb_build_object('output_tokens', coalesce((usage->>'output_tokens')::numeric, 0) + $21::numeric) end
      || case when $22::numeric is null then '{}'::jsonb
              else jsonb_build_object('response_time_ms', round((response_time_sum + $23::numeric) / (response_time_count + 1))) end,
      response_time_sum = response_time_sum + coalesce($24::numeric, 0),
      response_time_count = response_time_count + case when $25::numeric is null then 0 else 1 end where id in (select conversation_id from m) and project_id = $26),
     ${inboxedSql('(select agent_id from c)', '(select agent_business_id from c)')}
     select (select to_jsonb(c) from c) as conversation, m.* from (select 1) one left join m on true`,
    [
      24 * 3600,
      project.id,
      Number((req.params as { conversation_id: string }).conversation_id),
      body.role === 'assistant' && isPublic,
      null,
      null,
      body.role === 'assistant',
      body.role,
      body.content,
      isPublic,
      body.usage ? JSON.stringify(body.usage) : null,
      null,
      'text',
      null,
      true,
      has('cost'),
      has('cost'),
      has('input_tokens'),
      has('input_tokens'),
      has('output_tokens'),
      has('output_tokens'),
      rt,
      rt,
      rt,
      rt,
      project.id,
    ],
  );
  const { conversation: _c, ...m } = rows[0];
  if (m.id === null) throw new Refused(400);
  await sequenced(project.id);
  return { error: false, result: messageRecord(m) };
});

/** Any key; the bench's callers are customers with their own keys. */
app.post('/v400/:lang/:project/ai/agents/:provider_external_id/conversations/current/messages', async (req) => {
  const { project, caller } = await scope(req);
  if (!caller) throw new Refused(401);
  if (!project.ai_enabled) throw new Refused(403);
  const providerExternalId = (req.params as { provider_external_id: string }).provider_external_id;
  const userKey = caller.kind === 'user' ? caller.id : 0;
  const { content } = req.body as { content: string };
  // serve's one statement into the active conversation (conversation-writes.service.ts addToActive), else the agent and the transaction that opens one
  const { rows } = await prepared(
    `with a as materialized (
       select id, business_id from ai_agents where project_id = $1 and provider_external_id = $2 and enabled),
     c as materialized (
       select c.id, c.project_id from ai_conversations c
        where c.project_id = $3 and c.agent_id = (select id from a) and coalesce(c.user_id, 0) = $4 and c.contact is null
          and c.status = 'active'
        for no key update),
     m as (
       insert into ai_messages (project_id, conversation_id, role, content, public, usage, author_id, created_at, delivery_status,
                                type, payload, reply_to_id)
       select c.project_id, c.id, 'user', $5::text, true, null, $6::bigint, now(), null, 'text', null, null from c
       returning *),
     changed as (update ai_conversations set updated_at = now() where id in (select conversation_id from m) and project_id = $7),
     ${inboxedSql('(select id from a)', '(select business_id from a)')}
     select * from m`,
    [project.id, providerExternalId, project.id, userKey, content, caller.kind === 'user' ? caller.id : null, project.id],
  );
  if (rows.length) {
    await sequenced(project.id);
    return { error: false, result: messageRecord(rows[0]) };
  }
  const agent = await onePrepared<{ id: number; enabled: boolean; business_id: number | null }>(
    `select "a0"."id", "a0"."project_id", "a0"."business_id", "a0"."name", "a0"."provider", "a0"."provider_type", "a0"."provider_external_id", "a0"."enabled", "a0"."created_at", "a0"."updated_at" from "ai_agents" as "a0" where "a0"."project_id" = $1 and "a0"."provider_external_id" = $2 limit 1`,
    [project.id, providerExternalId],
  );
  if (!agent) throw new Refused(404);
  if (!agent.enabled) throw new Refused(409);
  const message = await inTransaction(async (tx) => {
    const lockActive = async () =>
      (
        await tx.query(
          `select * from ai_conversations
        where project_id = $1 and agent_id = $2 and coalesce(user_id, 0) = $3 and contact is null and status = 'active'
        for no key update`,
          [project.id, agent.id, userKey],
        )
      ).rows[0];
    let c = await lockActive();
    if (!c) {
      const opened = (
        await tx.query(
          `insert into ai_conversations (project_id, agent_id, user_id, business_id, status, usage)
         values ($1, $2, $3, $4, 'active', '{}')
         on conflict (agent_id, (coalesce(user_id, 0))) where status = 'active' and contact is null do nothing
         returning *`,
          [project.id, agent.id, userKey || null, agent.business_id],
        )
      ).rows;
      if (opened.length) {
        await inbox(tx, project.id, [
          {
            type: 'conversation.created',
            agent_id: agent.id,
            business_id: agent.business_id,
            conversation_id: opened[0].id,
            public: true,
            data: conversationRecord(opened[0], 0),
          },
        ]);
      }
      c = opened[0] ?? (await lockActive());
    }
    if (!c) throw new Refused(500);
    const m = await insertMessage(
      tx,
      project.id,
      { id: c.id, agent_id: agent.id, business_id: agent.business_id },
      'user',
      content,
      true,
      null,
      caller.kind === 'user' ? caller.id : null,
      'updated_at = now()',
      [],
    );
    return { value: messageRecord(m), projectId: project.id, events: [], inboxed: true };
  });
  return { error: false, result: message };
});

// ---- the commit floor (issue 45): one durable statement per write, nothing else ----

/**
 * `POST /floor/:conversation_id`: what a message write cannot go below on this host and database: one
 * autocommit statement (so one commit, fsync and synchronous_commit as the server has them) that
 * inserts a message-sized row and bumps its conversation's counter, no pipeline, no events, no
 * lookups. Its own schema (bench_floor), created at start, so the application's tables are untouched.
 */
const FLOOR_CONVERSATIONS = 200; // bench/harness.ts floorOf() spreads over as many
const floorReady = pool
  .query(
    `create schema if not exists bench_floor;
     create table if not exists bench_floor.conversations (id int primary key, messages_count int not null default 0, updated_at timestamptz);
     create table if not exists bench_floor.messages (id bigserial primary key, conversation_id int not null, role text not null,
       content text not null, usage jsonb, created_at timestamptz not null default now());
     insert into bench_floor.conversations (id) select g from generate_series(1, ${FLOOR_CONVERSATIONS}) g on conflict do nothing`,
  )
  .then(() => true);

app.post('/floor/:conversation_id', async (req) => {
  await floorReady;
  const body = req.body as { role?: string; content: string; usage?: unknown };
  const { rows } = await prepared(
    `with m as (insert into bench_floor.messages (conversation_id, role, content, usage) values ($1, $2, $3, $4::jsonb) returning *),
          c as (update bench_floor.conversations set messages_count = messages_count + 1, updated_at = now() where id = $1)
     select * from m`,
    [Number((req.params as { conversation_id: string }).conversation_id), body.role ?? 'user', body.content, body.usage ?? null],
  );
  const m = rows[0];
  return {
    error: false,
    result: { id: Number(m.id), conversation_id: m.conversation_id, role: m.role, content: m.content, created_at: iso(m.created_at) },
  };
});

app.listen({ port: Number(process.env.PORT ?? 3001), host: process.env.HOST ?? '127.0.0.1' }).catch((err) => {
  console.error(err);
  process.exit(1);
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(
    signal,
    () =>
      void app
        .close()
        .then(() => pool.end())
        .then(() => process.exit(0)),
  );
}
