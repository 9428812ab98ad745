import { Migration } from '@mikro-orm/migrations';

/**
 * Agents a dashboard can manage (CONTRACT §10.3).
 *
 * - Widths of the contract: `provider` and `provider_type` 1–64, `provider_external_id` 1–255
 *   (its uniqueness per project is the foundation's `unique (project_id, provider_external_id)`).
 * - `credential_keys`: the names of the stored credentials (never their values), so the record's
 *   `credentials` booleans are read without decrypting anything.
 * - `phone_number_id`: the WhatsApp phone number id, in plain, beside the encrypted credentials. It is
 *   an identifier, not a secret (Meta puts it in every webhook body and in the send URL; it grants
 *   nothing without the access token), and the unique index below needs it readable: two WhatsApp
 *   agents of one project never share one, decided by the database under any concurrency.
 * Rows written before this migration get both columns from their decrypted credentials when
 * `serve` or `ordergraph migrate` starts (services/agents/agent-credentials.ts: the key is not in SQL).
 */
export class Migration20261125000000_agent_management extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table ai_agents
  alter column provider type varchar(64),
  alter column provider_type type varchar(64),
  alter column provider_external_id type varchar(255),
  add column credential_keys text[] not null default '{}',
  add column phone_number_id varchar(255) null;
create unique index ai_agents_whatsapp_phone_uq on ai_agents (project_id, phone_number_id)
  where provider = 'whatsapp' and phone_number_id is not null;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index if exists ai_agents_whatsapp_phone_uq;
alter table ai_agents drop column if exists phone_number_id, drop column if exists credential_keys;
`);
  }
}
