import type { MikroORM } from '@mikro-orm/postgresql';
import type { CredentialCipher } from '../../platform/secrets.js';

/** The credential keys each provider knows (CONTRACT §10.3); other providers take any keys. */
export const KNOWN_CREDENTIAL_KEYS: Readonly<Record<string, readonly string[]>> = {
  whatsapp: ['waba_id', 'phone_number_id', 'access_token', 'app_secret', 'verify_token', 'dataset_id'],
};

/**
 * The record's `credentials`: each known key of the provider with whether it is stored, plus any
 * other stored key (`true`). Built from the stored key names only, never from values.
 */
export function credentialFlags(provider: string, storedKeys: readonly string[] | null | undefined): Record<string, boolean> {
  const stored = new Set(storedKeys ?? []);
  const flags: Record<string, boolean> = {};
  for (const key of KNOWN_CREDENTIAL_KEYS[provider] ?? []) flags[key] = stored.has(key);
  for (const key of [...stored].sort()) flags[key] = true;
  return flags;
}

/** A text[] bound as JSON text (one parameter, whatever the driver does with arrays). */
export const KEYS_PARAM = 'array(select jsonb_array_elements_text(?::jsonb))::text[]';

/** What the columns beside the encrypted credentials hold for a set of credentials. */
export function credentialColumns(
  provider: string,
  credentials: Record<string, string>,
): { credential_keys: string[]; phone_number_id: string | null } {
  return {
    credential_keys: Object.keys(credentials).sort(),
    phone_number_id: provider === 'whatsapp' ? (credentials.phone_number_id ?? null) : null,
  };
}

/** Decrypted stored credentials as an object of strings (`{}` for none or for an unreadable value). */
export function decryptCredentials(cipher: CredentialCipher, stored: string | null | undefined): Record<string, string> {
  if (!stored) return {};
  try {
    const value = cipher.decrypt<unknown>(stored);
    if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
    return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string'));
  } catch {
    return {};
  }
}

/**
 * Fills `credential_keys` and `phone_number_id` of agents stored before those columns existed
 * (encrypted credentials, no key names yet), once per start of `serve` or `ordergraph migrate`.
 * A phone_number_id another WhatsApp agent of the project already holds is left empty (and logged
 * by the caller's count): the older agent keeps it.
 */
export async function backfillCredentialColumns(orm: MikroORM, cipher: CredentialCipher): Promise<{ filled: number; conflicts: number }> {
  const conn = orm.em.getConnection();
  const rows = await conn.execute<{ id: number; provider: string; credentials: string }[]>(
    `select id, provider, credentials from ai_agents where credentials is not null and cardinality(credential_keys) = 0 order by id`,
  );
  let filled = 0;
  let conflicts = 0;
  for (const row of rows) {
    const columns = credentialColumns(row.provider, decryptCredentials(cipher, row.credentials));
    if (!columns.credential_keys.length) continue;
    try {
      await conn.execute(`update ai_agents set credential_keys = ${KEYS_PARAM}, phone_number_id = ? where id = ?`, [
        JSON.stringify(columns.credential_keys),
        columns.phone_number_id,
        row.id,
      ]);
    } catch {
      conflicts++;
      await conn.execute(`update ai_agents set credential_keys = ${KEYS_PARAM} where id = ?`, [
        JSON.stringify(columns.credential_keys),
        row.id,
      ]);
      continue;
    }
    filled++;
  }
  return { filled, conflicts };
}
