import { Migration } from '@mikro-orm/migrations';

/**
 * CONTRACT §16 (issue 67): every id column is 64-bit. Each table's integer `id` and `*_id` columns become `bigint` in
 * one `alter table` per table (one rewrite of the table and its indexes, foreign keys checked again), and the
 * `serial` sequences `as bigint` (their maximum becomes 2^63-1). Every id column, not only those of the records the
 * service creates: a path or body id is then one type from REST to SQL, and no comparison of an `int` column with a
 * 64-bit parameter can overflow. The two order-metrics functions that take id arrays are made again over `bigint[]`
 * (the triggers pass arrays of `orders.id`), keeping the generic plans of Migration20261202000250_order_trigger_plans;
 * the other functions take row types, which follow the tables.
 * Not touched: `mikro_orm_migrations.id`, `process_heartbeats.pid` (not record ids), and the ids that already were
 * `bigint` (events, webhook deliveries, history chunks) or text (media).
 *
 * The tables are rewritten under an access-exclusive lock: on the 1M-message bench database the migration takes the
 * time given in docs/ids.md, during which the service waits (run it in a maintenance window on a large database).
 */
export const ID_COLUMNS: Record<string, readonly string[]> = {
  ai_agents: ['id', 'business_id', 'project_id'],
  ai_carts: ['business_id', 'conversation_id', 'project_id'],
  ai_contact_names: ['agent_id', 'project_id'],
  ai_conversation_seen: ['conversation_id', 'message_id', 'project_id'],
  ai_conversations: ['id', 'agent_id', 'assignee_id', 'business_id', 'project_id', 'user_id'],
  ai_conversion_sends: ['agent_id', 'order_id', 'project_id'],
  ai_early_changes: ['agent_id'],
  ai_early_statuses: ['agent_id'],
  ai_event_inbox: ['agent_id', 'business_id', 'conversation_id', 'project_id'],
  ai_events: ['agent_id', 'business_id', 'conversation_id', 'project_id'],
  ai_history_chunks: ['agent_id', 'project_id'],
  ai_history_media: ['agent_id', 'project_id'],
  ai_inbound_message_ids: ['agent_id', 'project_id'],
  ai_media: ['agent_id', 'conversation_id', 'message_id', 'project_id'],
  ai_media_uploads: ['project_id'],
  ai_message_search: ['conversation_id', 'message_id', 'project_id'],
  ai_message_sends: ['conversation_id', 'message_id', 'project_id'],
  ai_messages: ['id', 'author_id', 'conversation_id', 'order_id', 'project_id', 'reply_to_id'],
  ai_replies: ['id', 'project_id'],
  ai_template_sends: ['id', 'agent_id', 'project_id', 'template_id'],
  ai_templates: ['id', 'agent_id', 'project_id'],
  ai_translations: ['id', 'agent_id', 'project_id'],
  ai_typing_calls: ['conversation_id', 'project_id'],
  ai_webhook_deliveries: ['project_id', 'webhook_id'],
  ai_webhooks: ['id', 'project_id'],
  api_keys: ['id', 'project_id', 'user_id'],
  businesses: ['id', 'franchise_id', 'project_id'],
  configs: ['id', 'project_id'],
  devices: ['id', 'project_id', 'user_id'],
  franchises: ['id', 'project_id'],
  idempotency_keys: ['project_id'],
  metrics_conversation_delta: ['agent_id', 'business_id', 'project_id'],
  metrics_conversation_rollup: ['agent_id', 'business_id', 'project_id'],
  metrics_conversation_series: ['business_id', 'project_id'],
  metrics_order_delta: ['agent_id', 'business_id', 'project_id'],
  metrics_order_rollup: ['agent_id', 'business_id', 'project_id'],
  metrics_order_series: ['business_id', 'project_id'],
  metrics_order_state: ['agent_id', 'business_id', 'order_id', 'project_id'],
  metrics_product_delta: ['business_id', 'product_id', 'project_id'],
  metrics_product_rollup: ['business_id', 'product_id', 'project_id'],
  one_time_passwords: ['id', 'project_id', 'user_id'],
  open_streams: ['project_id'],
  order_products: ['id', 'order_id', 'product_id', 'project_id'],
  orders: ['id', 'business_id', 'conversation_id', 'customer_id', 'project_id'],
  products: ['id', 'business_id', 'project_id'],
  projects: ['id'],
  sessions: ['id', 'project_id', 'user_id'],
  user_businesses: ['id', 'business_id', 'project_id', 'user_id'],
  users: ['id', 'project_id'],
};

const alterAll = (type: 'bigint' | 'int') =>
  Object.entries(ID_COLUMNS)
    .map(([table, columns]) => `alter table ${table} ${columns.map((c) => `alter column ${c} type ${type}`).join(', ')};`)
    .concat(
      Object.entries(ID_COLUMNS)
        .filter(([, columns]) => columns.includes('id'))
        .map(([table]) => `alter sequence ${table}_id_seq as ${type};`),
    )
    .join('\n');

const orderFunctions = (id: 'bigint' | 'int') => `
drop function metrics_refresh_orders(${id === 'bigint' ? 'int' : 'bigint'}[], boolean);
drop function metrics_order_current(${id === 'bigint' ? 'int' : 'bigint'}[]);

create function metrics_order_current(ids ${id}[]) returns table (
  order_id ${id}, project_id ${id}, business_id ${id}, created_at timestamptz, agent_id ${id}, status_group smallint, total numeric
) language sql stable as $$
  select o.id, o.project_id, coalesce(o.business_id, 0), o.created_at, c.agent_id, metrics_status_group(o.status),
         coalesce(metrics_num(o.summary -> 'total'), 0)
  from orders o join ai_conversations c on c.id = o.conversation_id
  where o.id = any(ids)
$$;

create function metrics_refresh_orders(ids ${id}[], gone boolean default false) returns void language plpgsql
set plan_cache_mode = force_generic_plan as $$
declare
  olds metrics_order_state[];
  news metrics_order_state[];
  moved ${id}[];
begin
  if ids is null or cardinality(ids) = 0 then return; end if;
  select array_agg(s) into olds from metrics_order_state s where s.order_id = any(ids);
  if not gone then
    select array_agg(row(n.*)::metrics_order_state) into news from metrics_order_current(ids) n;
  end if;
  if olds is null and news is null then return; end if;
  olds := coalesce(olds, '{}');
  news := coalesce(news, '{}');

  select array_agg(coalesce(s.order_id, n.order_id)) into moved
  from unnest(olds) s full join unnest(news) n on n.order_id = s.order_id
  where s.order_id is null or n.order_id is null or s.project_id <> n.project_id
     or s.business_id <> n.business_id or s.created_at <> n.created_at;

  if moved is not null then
    insert into metrics_product_delta (project_id, bucket, business_id, product_id, name, times_sold, orders, revenue)
    select project_id, metrics_b15(created_at), business_id, pid, name, sum(q), sum(sign), sum(rev)
    from (
      select k.project_id, k.business_id, k.created_at, k.order_id, coalesce(op.product_id, 0) pid, op.name, k.sign,
             k.sign * sum(op.quantity) q, k.sign * sum(op.quantity * op.price) rev
      from (
        select s.project_id, s.business_id, s.created_at, s.order_id, -1 sign from unnest(olds) s where s.order_id = any(moved)
        union all
        select n.project_id, n.business_id, n.created_at, n.order_id, 1 from unnest(news) n where n.order_id = any(moved)
      ) k join order_products op on op.order_id = k.order_id
      group by 1, 2, 3, 4, 5, 6, 7
    ) x
    group by project_id, metrics_b15(created_at), business_id, pid, name
    having sum(q) <> 0 or sum(sign) <> 0 or sum(rev) <> 0;
  end if;

  insert into metrics_order_delta (project_id, bucket, business_id, agent_id, status_group, orders, revenue)
  select project_id, metrics_b15(created_at), business_id, agent_id, status_group, sum(sign), sum(sign * total)
  from (
    select s.project_id, s.business_id, s.created_at, s.agent_id, s.status_group, s.total, -1 sign from unnest(olds) s
    union all
    select n.project_id, n.business_id, n.created_at, n.agent_id, n.status_group, n.total, 1 from unnest(news) n
  ) x
  group by project_id, metrics_b15(created_at), business_id, agent_id, status_group
  having sum(sign) <> 0 or sum(sign * total) <> 0;

  if cardinality(olds) > 0 then
    delete from metrics_order_state where order_id = any(ids);
  end if;
  if cardinality(news) > 0 then
    insert into metrics_order_state select * from unnest(news);
  end if;
end $$;
`;

export class Migration20261202000300_bigint_ids extends Migration {
  override async up(): Promise<void> {
    this.addSql(`${alterAll('bigint')}\n${orderFunctions('bigint')}`);
  }

  override async down(): Promise<void> {
    this.addSql(`${alterAll('int')}\n${orderFunctions('int')}`);
  }
}
