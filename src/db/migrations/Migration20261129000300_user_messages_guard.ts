import { Migration } from '@mikro-orm/migrations';

/**
 * The stored count of `user` messages (Migration20261128059000_unread_counts) updates its conversations only
 * when the inserting statement has user messages. Before, every insert into ai_messages ran the UPDATE even
 * with nothing to count, and that empty statement still fired the metrics' statement trigger on
 * ai_conversations: an assistant's message with usage paid two passes of it instead of one (a knock-out of
 * the trigger took the message write from 0.21–0.24 of the commit floor to 0.34; docs/benchmarks.md).
 */
export class Migration20261129000300_user_messages_guard extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create or replace function ai_messages_user_messages() returns trigger language plpgsql as $$
begin
  if exists (select 1 from ai_messages_new where role = 'user' and source <> 'history') then
    update ai_conversations c set user_messages = c.user_messages + n.n
      from (select conversation_id, count(*)::int n from ai_messages_new where role = 'user' and source <> 'history' group by conversation_id) n
     where c.id = n.conversation_id;
  end if;
  return null;
end $$;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
create or replace function ai_messages_user_messages() returns trigger language plpgsql as $$
begin
  update ai_conversations c set user_messages = c.user_messages + n.n
    from (select conversation_id, count(*)::int n from ai_messages_new where role = 'user' and source <> 'history' group by conversation_id) n
   where c.id = n.conversation_id;
  return null;
end $$;
`);
  }
}
