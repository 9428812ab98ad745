import { Migration } from '@mikro-orm/migrations';

/**
 * AI metrics rollups, kept exact by PostgreSQL itself (issue 5).
 *
 * Every rollup has three grains: 0 = 15-minute UTC buckets (every whole-, half- and
 * quarter-hour zone offset falls on one), 1 = UTC days, 2 = UTC calendar months. Every stored
 * value is a sum, so a period [start, end) is read as a signed cover (see coverSigned in
 * services/metrics/cover.ts): whole months or days inside it, or an outer month or day minus its
 * overhang, down to 15-minute buckets at the ragged edges. A month-long period thus reads one
 * month row per key plus a few signed 15-minute edge buckets instead of about 30 day rows.
 *
 * Statement-level triggers with transition tables on `orders`, `order_products` and
 * `ai_conversations` turn every insert, update and delete (ORM, plain SQL, cascades) into one
 * set-based `insert … on conflict do update` of deltas. `metrics_order_state` remembers what
 * each AI order last contributed (key, agent, status group, total), so an update or delete is
 * subtracted exactly even when the conversation it pointed to is gone. Order deletes are the
 * exception: a row-level BEFORE DELETE trigger (see metrics_orders_del_trg). TRUNCATE, which
 * fires none of these, has its own triggers that empty the rollups built from the table.
 */
export class Migration20261121000400_metrics extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- Bucket functions. The 15-minute and day bins are aligned on the Unix epoch and floor towards
-- the past; date_bin is immutable (unlike extract(epoch …) on timestamptz), so PostgreSQL can
-- inline these in the trigger statements instead of calling a SQL function per row and grain.
create function metrics_b15(t timestamptz) returns timestamptz language sql immutable parallel safe as
$$ select date_bin('15 minutes', t, timestamptz '1970-01-01 00:00:00+00') $$;

create function metrics_bday(t timestamptz) returns timestamptz language sql immutable parallel safe as
$$ select date_bin('1 day', t, timestamptz '1970-01-01 00:00:00+00') $$;

create function metrics_bmonth(t timestamptz) returns timestamptz language sql immutable parallel safe as
$$ select date_trunc('month', t at time zone 'UTC') at time zone 'UTC' $$;

-- A JSON number (or numeric string) as numeric; anything else is null. Never raises, so a
-- malformed summary or usage can never make another part of the platform fail to write.
create function metrics_num(v jsonb) returns numeric language sql immutable parallel safe as
$$ select case
  when jsonb_typeof(v) = 'number' then (v #>> '{}')::numeric
  when jsonb_typeof(v) = 'string' and (v #>> '{}') ~ '^\\s*-?[0-9]{1,20}(\\.[0-9]{1,20})?\\s*$' then trim(v #>> '{}')::numeric
  else null end $$;

-- Order status groups of spec §3: 1 completed, 2 cancelled, 0 active (every other value).
create function metrics_status_group(s int) returns smallint language sql immutable parallel safe as
$$ select (case when s in (1, 11, 15) then 1 when s in (2, 5, 16) then 2 else 0 end)::smallint $$;

-- Conversation states: 0 active, 1 completed, 2 abandoned, 3 failed, 4 closed without a reason.
create function metrics_conv_state(status text, reason text) returns smallint language sql immutable parallel safe as
$$ select (case when status = 'active' then 0 when reason = 'completed' then 1 when reason = 'abandoned' then 2
  when reason = 'failed' then 3 else 4 end)::smallint $$;

-- What each AI order last contributed to the rollups.
create table metrics_order_state (
  order_id int primary key,
  project_id int not null,
  business_id int not null,
  created_at timestamptz not null,
  agent_id int not null,
  status_group smallint not null,
  total numeric not null
);

-- The rollups: one row per (project, grain, bucket, key); every value is a sum of deltas.
create table metrics_order_rollup (
  project_id int not null,
  grain smallint not null,
  bucket timestamptz not null,
  business_id int not null,
  agent_id int not null,
  status_group smallint not null,
  orders bigint not null default 0,
  revenue numeric not null default 0,
  primary key (project_id, grain, bucket, business_id, agent_id, status_group)
);

create table metrics_product_rollup (
  project_id int not null,
  grain smallint not null,
  bucket timestamptz not null,
  business_id int not null,
  product_id int not null,
  name varchar(255) not null,
  times_sold bigint not null default 0,
  orders bigint not null default 0,
  revenue numeric not null default 0,
  primary key (project_id, grain, bucket, business_id, product_id, name)
);

create table metrics_conversation_rollup (
  project_id int not null,
  grain smallint not null,
  bucket timestamptz not null,
  business_id int not null,
  agent_id int not null,
  state smallint not null,
  conversations bigint not null default 0,
  cost numeric not null default 0,
  rt_sum numeric not null default 0,
  rt_count bigint not null default 0,
  primary key (project_id, grain, bucket, business_id, agent_id, state)
);

-- Conversation deletes (FK set null) and agent moves look orders up by conversation.
create index orders_conversation_idx on orders (conversation_id) where conversation_id is not null;
create index ai_conversations_project_created_idx on ai_conversations (project_id, created_at);

-- What an AI order contributes now (no row: not an AI order, or gone).
create function metrics_order_current(ids int[]) returns table (
  order_id int, project_id int, business_id int, created_at timestamptz, agent_id int, status_group smallint, total numeric
) language sql stable as $$
  select o.id, o.project_id, coalesce(o.business_id, 0), o.created_at, c.agent_id, metrics_status_group(o.status),
         coalesce(metrics_num(o.summary -> 'total'), 0)
  from orders o join ai_conversations c on c.id = o.conversation_id
  where o.id = any(ids)
$$;

-- Brings the rollups in line with the current rows of the given orders.
-- gone: the orders are being deleted (their rows still exist): take everything out.
-- The orders' previous contributions (state) and current ones are read once into arrays, and
-- orders that neither were nor are AI orders return at once (no rollup statement at all).
create function metrics_refresh_orders(ids int[], gone boolean default false) returns void language plpgsql as $$
declare
  olds metrics_order_state[];
  news metrics_order_state[];
  moved int[];
begin
  if ids is null or cardinality(ids) = 0 then return; end if;
  select array_agg(s) into olds from metrics_order_state s where s.order_id = any(ids);
  if not gone then
    select array_agg(row(n.*)::metrics_order_state) into news from metrics_order_current(ids) n;
  end if;
  if olds is null and news is null then return; end if;
  olds := coalesce(olds, '{}');
  news := coalesce(news, '{}');

  -- Orders whose (project, business, time) changed, or that became / stopped being AI orders:
  -- their lines move in the product rollup.
  select array_agg(coalesce(s.order_id, n.order_id)) into moved
  from unnest(olds) s full join unnest(news) n on n.order_id = s.order_id
  where s.order_id is null or n.order_id is null or s.project_id <> n.project_id
     or s.business_id <> n.business_id or s.created_at <> n.created_at;

  if moved is not null then
    insert into metrics_product_rollup as r (project_id, grain, bucket, business_id, product_id, name, times_sold, orders, revenue)
    select project_id, g.grain, g.bucket, business_id, pid, name, sum(q), sum(sign), sum(rev)
    from (
      select k.project_id, k.business_id, k.created_at, k.order_id, coalesce(op.product_id, 0) pid, op.name, k.sign,
             k.sign * sum(op.quantity) q, k.sign * sum(op.quantity * op.price) rev
      from (
        select s.project_id, s.business_id, s.created_at, s.order_id, -1 sign from unnest(olds) s where s.order_id = any(moved)
        union all
        select n.project_id, n.business_id, n.created_at, n.order_id, 1 from unnest(news) n where n.order_id = any(moved)
      ) k join order_products op on op.order_id = k.order_id
      group by 1, 2, 3, 4, 5, 6, 7
    ) x cross join lateral (values (0::smallint, metrics_b15(x.created_at)), (1::smallint, metrics_bday(x.created_at)),
                                   (2::smallint, metrics_bmonth(x.created_at))) g(grain, bucket)
    group by project_id, g.grain, g.bucket, business_id, pid, name
    having sum(q) <> 0 or sum(sign) <> 0 or sum(rev) <> 0
    order by 1, 2, 3, 4, 5, 6
    on conflict (project_id, grain, bucket, business_id, product_id, name) do update
      set times_sold = r.times_sold + excluded.times_sold, orders = r.orders + excluded.orders, revenue = r.revenue + excluded.revenue;
  end if;

  insert into metrics_order_rollup as r (project_id, grain, bucket, business_id, agent_id, status_group, orders, revenue)
  select project_id, g.grain, g.bucket, business_id, agent_id, status_group, sum(sign), sum(sign * total)
  from (
    select s.project_id, s.business_id, s.created_at, s.agent_id, s.status_group, s.total, -1 sign from unnest(olds) s
    union all
    select n.project_id, n.business_id, n.created_at, n.agent_id, n.status_group, n.total, 1 from unnest(news) n
  ) x cross join lateral (values (0::smallint, metrics_b15(x.created_at)), (1::smallint, metrics_bday(x.created_at)),
                                 (2::smallint, metrics_bmonth(x.created_at))) g(grain, bucket)
  group by project_id, g.grain, g.bucket, business_id, agent_id, status_group
  having sum(sign) <> 0 or sum(sign * total) <> 0
  order by 1, 2, 3, 4, 5, 6
  on conflict (project_id, grain, bucket, business_id, agent_id, status_group) do update
    set orders = r.orders + excluded.orders, revenue = r.revenue + excluded.revenue;

  if cardinality(olds) > 0 then
    delete from metrics_order_state where order_id = any(ids);
  end if;
  if cardinality(news) > 0 then
    insert into metrics_order_state select * from unnest(news);
  end if;
end $$;

create function metrics_orders_trg() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform metrics_refresh_orders(array(select id from metrics_new));
  elsif tg_op = 'UPDATE' then
    perform metrics_refresh_orders(array(select id from metrics_new union select id from metrics_old));
  end if;
  return null;
end $$;

-- Deletes are handled row by row BEFORE the row goes: its lines are still there (the FK's
-- cascade runs later, and its own trigger then finds no state and skips them), so the order
-- and its lines are taken out together whatever order PostgreSQL fires the cascade in.
create function metrics_orders_del_trg() returns trigger language plpgsql as $$
begin
  perform metrics_refresh_orders(array[old.id], true);
  return old;
end $$;

create trigger metrics_orders_ins after insert on orders referencing new table as metrics_new
  for each statement execute function metrics_orders_trg();
create trigger metrics_orders_upd after update on orders referencing old table as metrics_old new table as metrics_new
  for each statement execute function metrics_orders_trg();
create trigger metrics_orders_del before delete on orders
  for each row execute function metrics_orders_del_trg();

-- Order lines: added (sign 1) or removed (sign -1), attributed through the order's state. An
-- order counts once per (product, name): "orders" moves only when the first line of that pair
-- appears in the order or its last one goes.
create function metrics_apply_lines(olds order_products[], news order_products[]) returns void language sql as $$
  insert into metrics_product_rollup as r (project_id, grain, bucket, business_id, product_id, name, times_sold, orders, revenue)
  select project_id, g.grain, g.bucket, business_id, pid, name, sum(q), sum(dorders), sum(rev)
  from (
    select s.project_id, s.business_id, s.created_at, c.pid, c.name, c.q, c.rev,
      (case when after_c > 0 then 1 else 0 end) - (case when after_c - c.new_c + c.old_c > 0 then 1 else 0 end) dorders
    from (
      select order_id, coalesce(product_id, 0) pid, name, sum(sign * quantity) q, sum(sign * quantity * price) rev,
             count(*) filter (where sign = 1) new_c, count(*) filter (where sign = -1) old_c
      from (select l.*, -1 sign from unnest(olds) l union all select l.*, 1 from unnest(news) l) u
      group by 1, 2, 3
    ) c
    join metrics_order_state s on s.order_id = c.order_id
    cross join lateral (
      select count(*) after_c from order_products op
      where op.order_id = c.order_id and coalesce(op.product_id, 0) = c.pid and op.name = c.name
    ) a
  ) x cross join lateral (values (0::smallint, metrics_b15(x.created_at)), (1::smallint, metrics_bday(x.created_at)), (2::smallint, metrics_bmonth(x.created_at))) g(grain, bucket)
  group by project_id, g.grain, g.bucket, business_id, pid, name
  having sum(q) <> 0 or sum(dorders) <> 0 or sum(rev) <> 0
  order by 1, 2, 3, 4, 5, 6
  on conflict (project_id, grain, bucket, business_id, product_id, name) do update
    set times_sold = r.times_sold + excluded.times_sold, orders = r.orders + excluded.orders, revenue = r.revenue + excluded.revenue
$$;

create function metrics_lines_trg() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform metrics_apply_lines('{}'::order_products[], array(select row(n.*)::order_products from metrics_new n));
  elsif tg_op = 'UPDATE' then
    perform metrics_apply_lines(array(select row(o.*)::order_products from metrics_old o), array(select row(n.*)::order_products from metrics_new n));
  else
    perform metrics_apply_lines(array(select row(o.*)::order_products from metrics_old o), '{}'::order_products[]);
  end if;
  return null;
end $$;

create trigger metrics_lines_ins after insert on order_products referencing new table as metrics_new
  for each statement execute function metrics_lines_trg();
create trigger metrics_lines_upd after update on order_products referencing old table as metrics_old new table as metrics_new
  for each statement execute function metrics_lines_trg();
create trigger metrics_lines_del after delete on order_products referencing old table as metrics_old
  for each statement execute function metrics_lines_trg();

create function metrics_apply_conversations(olds ai_conversations[], news ai_conversations[]) returns void language sql as $$
  insert into metrics_conversation_rollup as r (project_id, grain, bucket, business_id, agent_id, state, conversations, cost, rt_sum, rt_count)
  select project_id, g.grain, g.bucket, business_id, agent_id, state, sum(sign), sum(sign * cost), sum(sign * coalesce(rt, 0)),
         sum(case when rt is null then 0 else sign end)
  from (
    select u.project_id, coalesce(u.business_id, 0) business_id, u.created_at, u.agent_id, metrics_conv_state(u.status, u.status_reason) state,
           coalesce(metrics_num(u.usage -> 'cost'), 0) cost, metrics_num(u.usage -> 'response_time_ms') rt, u.sign
    from (select l.*, -1 sign from unnest(olds) l union all select l.*, 1 from unnest(news) l) u
  ) x cross join lateral (values (0::smallint, metrics_b15(x.created_at)), (1::smallint, metrics_bday(x.created_at)), (2::smallint, metrics_bmonth(x.created_at))) g(grain, bucket)
  group by project_id, g.grain, g.bucket, business_id, agent_id, state
  having sum(sign) <> 0 or sum(sign * cost) <> 0 or sum(sign * coalesce(rt, 0)) <> 0 or sum(case when rt is null then 0 else sign end) <> 0
  order by 1, 2, 3, 4, 5, 6
  on conflict (project_id, grain, bucket, business_id, agent_id, state) do update
    set conversations = r.conversations + excluded.conversations, cost = r.cost + excluded.cost,
        rt_sum = r.rt_sum + excluded.rt_sum, rt_count = r.rt_count + excluded.rt_count
$$;

create function metrics_conversations_trg() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform metrics_apply_conversations('{}'::ai_conversations[], array(select row(n.*)::ai_conversations from metrics_new n));
  elsif tg_op = 'UPDATE' then
    perform metrics_apply_conversations(array(select row(o.*)::ai_conversations from metrics_old o), array(select row(n.*)::ai_conversations from metrics_new n));
    -- A conversation that changed agent moves its orders to the new agent.
    perform metrics_refresh_orders(array(
      select o.id from orders o
      where o.conversation_id in (select n.id from metrics_new n join metrics_old d on d.id = n.id where d.agent_id <> n.agent_id)));
  else
    perform metrics_apply_conversations(array(select row(o.*)::ai_conversations from metrics_old o), '{}'::ai_conversations[]);
  end if;
  return null;
end $$;

create trigger metrics_conversations_ins after insert on ai_conversations referencing new table as metrics_new
  for each statement execute function metrics_conversations_trg();
create trigger metrics_conversations_upd after update on ai_conversations referencing old table as metrics_old new table as metrics_new
  for each statement execute function metrics_conversations_trg();
create trigger metrics_conversations_del after delete on ai_conversations referencing old table as metrics_old
  for each statement execute function metrics_conversations_trg();

-- TRUNCATE fires no row or statement triggers of the insert/update/delete kind, so the rollups
-- get their own: truncating a source table empties what was built from it (for every project,
-- as TRUNCATE does).
create function metrics_truncate_trg() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'orders' then
    truncate metrics_order_state, metrics_order_rollup, metrics_product_rollup;
  elsif tg_table_name = 'order_products' then
    truncate metrics_product_rollup;
  elsif tg_table_name = 'ai_conversations' then
    truncate metrics_conversation_rollup;
  end if;
  return null;
end $$;

create trigger metrics_orders_truncate after truncate on orders for each statement execute function metrics_truncate_trg();
create trigger metrics_lines_truncate after truncate on order_products for each statement execute function metrics_truncate_trg();
create trigger metrics_conversations_truncate after truncate on ai_conversations for each statement execute function metrics_truncate_trg();
`);
  }
}
