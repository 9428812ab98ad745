/** Process configuration, read once from the environment. Every variable is documented in the README. */
export type GraphEngineName = 'mercurius' | 'apollo';

export interface AppConfig {
  port: number;
  host: string;
  databaseUrl?: string;
  redisUrl?: string;
  graphqlEngine: GraphEngineName;
  logLevel: string;
  maintenance: boolean;
  trustProxy: string[];
  sessionTtlSeconds: number;
  credentialsKey: string;
  recaptchaVerifyUrl: string;
  recaptchaSecret: string;
  whatsappApiUrl: string;
  /** Timeout of one provider HTTP call (WhatsApp Cloud API), in milliseconds. */
  providerTimeoutMs: number;
  dataDir: string;
  /** Connections of `serve`'s database pool. */
  databasePoolMax: number;
}

function int(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new Error(`expected an integer, got "${value}"`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const engine = env.GRAPHQL_ENGINE ?? 'mercurius';
  if (engine !== 'mercurius' && engine !== 'apollo') {
    throw new Error(`GRAPHQL_ENGINE must be "mercurius" or "apollo", got "${engine}"`);
  }
  return {
    port: int(env.PORT, 3000),
    host: env.HOST ?? '127.0.0.1',
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    graphqlEngine: engine,
    logLevel: env.LOG_LEVEL ?? 'info',
    maintenance: env.MAINTENANCE_MODE === '1' || env.MAINTENANCE_MODE === 'true',
    trustProxy: (env.TRUST_PROXY ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    sessionTtlSeconds: int(env.SESSION_TTL_SECONDS, 30 * 24 * 3600),
    credentialsKey: env.CREDENTIALS_KEY ?? '',
    recaptchaVerifyUrl: env.RECAPTCHA_VERIFY_URL ?? 'https://www.google.com/recaptcha/api/siteverify',
    recaptchaSecret: env.RECAPTCHA_SECRET ?? '',
    whatsappApiUrl: (env.WHATSAPP_API_URL ?? 'https://graph.facebook.com/v21.0').replace(/\/+$/, ''),
    providerTimeoutMs: int(env.PROVIDER_TIMEOUT_MS, 10_000),
    dataDir: env.DATA_DIR ?? '.data',
    databasePoolMax: int(env.DATABASE_POOL_MAX, 10),
  };
}
