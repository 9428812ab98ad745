import { Migration } from '@mikro-orm/migrations';

/** Each narrow rollup: the wide rollup it follows, its key (without agent and status), its values. */
const SERIES = [
  { table: 'metrics_order_series', source: 'metrics_order_rollup', keys: ['business_id'], values: ['orders', 'revenue'] },
  {
    table: 'metrics_conversation_series',
    source: 'metrics_conversation_rollup',
    keys: ['business_id', 'state'],
    values: ['conversations', 'cost'],
  },
];

/**
 * Narrow rollups for GET /ai/metrics/series (issue 34). A series sums every key of the wide
 * rollups (business × agent × status group, about 180 rows per bucket on the 1M-order bench
 * project) for each of its buckets, and a day in Asia/Kolkata is four 6-hour blocks: a year of
 * days read about 266,000 rows. The series needs only the business (its filter) and, for
 * conversations, the state, so these tables keep just that: about 10 rows per bucket for orders.
 *
 * They follow the wide rollups by triggers on the wide rollups themselves (the difference of the
 * transition tables, grouped by the narrow key), so whatever writes a wide rollup (the source
 * triggers, a compaction, the bench's set-based rebuild) keeps them equal; TRUNCATE of a wide
 * rollup empties its narrow one. Existing rows are backfilled from the wide rollups, locked first.
 */
export class Migration20261125000600_metrics_series_rollups extends Migration {
  override async up(): Promise<void> {
    this.addSql(`lock table ${SERIES.map((s) => s.source).join(', ')} in share row exclusive mode;`);
    for (const { table, source, keys, values } of SERIES) {
      const key = ['project_id', 'grain', 'bucket', ...keys].join(', ');
      const fn = `${table}_apply`;
      this.addSql(`
create table ${table} (
  project_id int not null,
  grain smallint not null,
  bucket timestamptz not null,
  ${keys.map((k) => `${k} ${k === 'state' ? 'smallint' : 'int'} not null`).join(',\n  ')},
  ${values.map((v) => `${v} ${v === 'cost' || v === 'revenue' ? 'numeric' : 'bigint'} not null default 0`).join(',\n  ')},
  primary key (${key}) include (${values.join(', ')})
) with (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);

create function ${fn}(olds ${source}[], news ${source}[]) returns void language sql as $$
  insert into ${table} as s (${key}, ${values.join(', ')})
  select ${key}, ${values.map((v) => `sum(sign * ${v})`).join(', ')}
  from (select l.*, -1 sign from unnest(olds) l union all select l.*, 1 from unnest(news) l) u
  group by ${key}
  having ${values.map((v) => `sum(sign * ${v}) <> 0`).join(' or ')}
  order by ${key}
  on conflict (${key}) do update set ${values.map((v) => `${v} = s.${v} + excluded.${v}`).join(', ')}
$$;

create function ${table}_trg() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform ${fn}('{}'::${source}[], array(select row(n.*)::${source} from series_new n));
  elsif tg_op = 'UPDATE' then
    perform ${fn}(array(select row(o.*)::${source} from series_old o), array(select row(n.*)::${source} from series_new n));
  elsif tg_op = 'DELETE' then
    perform ${fn}(array(select row(o.*)::${source} from series_old o), '{}'::${source}[]);
  else
    truncate ${table};
  end if;
  return null;
end $$;

-- Buckets finer than a day by second of the UTC day, then time: a series in a half-hour zone reads
-- the blocks and quarter-hours at its local midnights (the same few times every day) with one
-- descent per time, not one per day.
create index ${table}_time_of_day on ${table} (project_id, grain, (mod(extract(epoch from bucket - timestamptz '1970-01-01 00:00:00+00')::bigint, 86400)::int), bucket)
  include (${[...keys, ...values].join(', ')}) where grain in (0, 3, 4);

create trigger ${table}_ins after insert on ${source} referencing new table as series_new for each statement execute function ${table}_trg();
create trigger ${table}_upd after update on ${source} referencing old table as series_old new table as series_new for each statement execute function ${table}_trg();
create trigger ${table}_del after delete on ${source} referencing old table as series_old for each statement execute function ${table}_trg();
create trigger ${table}_truncate after truncate on ${source} for each statement execute function ${table}_trg();

insert into ${table} (${key}, ${values.join(', ')})
select ${key}, ${values.map((v) => `sum(${v})`).join(', ')} from ${source} group by ${key}
having ${values.map((v) => `sum(${v}) <> 0`).join(' or ')};`);
    }
  }

  override async down(): Promise<void> {
    for (const { table, source } of SERIES) {
      for (const t of ['ins', 'upd', 'del', 'truncate']) this.addSql(`drop trigger if exists ${table}_${t} on ${source};`);
      this.addSql(
        `drop function if exists ${table}_trg(); drop function if exists ${table}_apply(${source}[], ${source}[]); drop table if exists ${table};`,
      );
    }
  }
}
