import { Migration } from '@mikro-orm/migrations';

/**
 * `last_message_at` (CONTRACT §10.5) is the newest message's `created_at`, also when that message is dated
 * before the conversation was opened: a WhatsApp delivery that arrives late opens a conversation now and
 * carries Meta's (older) timestamp. `ai_messages_last_message_at` only ever moved the column forward, so such
 * a conversation kept its own `created_at` and rose to the top of the inbox with today's time.
 *
 * A conversation whose `last_message_at` is still its `created_at` (no message dated after it yet) that
 * receives a message dated before it takes the newest `created_at` of its messages (the new ones included);
 * every other statement moves it forward as before. The stored rows are corrected once.
 */
export class Migration20261128057001_late_last_message_at extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create or replace function ai_messages_last_message_at() returns trigger language plpgsql as $$
begin
  if exists (select 1 from ai_messages_new n join ai_conversations c on c.id = n.conversation_id
              where c.last_message_at < n.created_at or (n.created_at < c.created_at and c.last_message_at = c.created_at)) then
    update ai_conversations c
       set last_message_at = case when c.last_message_at < n.at then n.at
                                  else (select max(m.created_at) from ai_messages m where m.conversation_id = c.id) end
      from (select conversation_id, max(created_at) at, min(created_at) first_at from ai_messages_new group by conversation_id) n
     where c.id = n.conversation_id
       and (c.last_message_at < n.at or (n.first_at < c.created_at and c.last_message_at = c.created_at));
  end if;
  return null;
end $$;

update ai_conversations c set last_message_at = x.at
  from (select conversation_id, max(created_at) at from ai_messages group by conversation_id) x
 where c.id = x.conversation_id and c.last_message_at is distinct from x.at;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
create or replace function ai_messages_last_message_at() returns trigger language plpgsql as $$
begin
  if exists (select 1 from ai_messages_new n join ai_conversations c on c.id = n.conversation_id where c.last_message_at < n.created_at) then
    update ai_conversations c set last_message_at = n.at
      from (select conversation_id, max(created_at) at from ai_messages_new group by conversation_id) n
     where c.id = n.conversation_id and c.last_message_at < n.at;
  end if;
  return null;
end $$;
`);
  }
}
