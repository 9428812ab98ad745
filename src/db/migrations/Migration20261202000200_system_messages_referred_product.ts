import { Migration } from '@mikro-orm/migrations';

/**
 * CONTRACT §12.2 (issue 67): Meta's `system` notices (the customer changed their number) are kept as messages of
 * type `system`, and an item's `context.referred_product` (the catalog product the customer asks about) as
 * `ai_messages.referred_product` (`{catalog_id, product_retailer_id}`, else null). The type check is replaced
 * `not valid`, then validated (a scan under a lock that lets writes through); the column is nullable with no
 * default (no rewrite).
 */
export class Migration20261202000200_system_messages_referred_product extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table ai_messages drop constraint if exists ai_messages_type_check;
alter table ai_messages add constraint ai_messages_type_check check (type in ('text', 'image', 'audio', 'video', 'document', 'sticker',
  'location', 'contacts', 'interactive', 'button', 'order', 'reaction', 'unsupported', 'template', 'system')) not valid;
alter table ai_messages validate constraint ai_messages_type_check;
alter table ai_messages add column referred_product jsonb null;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
alter table ai_messages drop column if exists referred_product;
alter table ai_messages drop constraint if exists ai_messages_type_check;
alter table ai_messages add constraint ai_messages_type_check check (type in ('text', 'image', 'audio', 'video', 'document', 'sticker',
  'location', 'contacts', 'interactive', 'button', 'order', 'reaction', 'unsupported', 'template')) not valid;
`);
  }
}
