import { Migration } from '@mikro-orm/migrations';

/**
 * A template send is also a message of its conversation (CONTRACT §10.6): `ai_messages.type` takes `template`.
 * The check is replaced `not valid`, then validated (a scan under a lock that lets writes through).
 */
export class Migration20261128057003_template_messages extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table ai_messages drop constraint if exists ai_messages_type_check;
alter table ai_messages add constraint ai_messages_type_check check (type in ('text', 'image', 'audio', 'video', 'document', 'sticker',
  'location', 'contacts', 'interactive', 'button', 'order', 'reaction', 'unsupported', 'template')) not valid;
alter table ai_messages validate constraint ai_messages_type_check;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
alter table ai_messages drop constraint if exists ai_messages_type_check;
alter table ai_messages add constraint ai_messages_type_check check (type in ('text', 'image', 'audio', 'video', 'document', 'sticker',
  'location', 'contacts', 'interactive', 'button', 'order', 'reaction', 'unsupported')) not valid;
`);
  }
}
