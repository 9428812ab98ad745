import pg from 'pg';

/**
 * Samples pg_stat_activity every 10 ms while a bench run lasts: the wait events of the other
 * sessions of the bench database that are running a statement, counted by `type:event`. Lock waits
 * tell what writers wait on: `Lock:transactionid` / `Lock:tuple` are row locks, `Lock:advisory` an
 * advisory lock. Each lock wait is also counted by the statement that waits (its first words).
 * The summary counts distinct lock waits (a statement, by backend and start, seen waiting at least
 * once) per second, apart for the writers' own transactions and for the sequencer passes of the
 * event log (`with pass_lock as …`, which only passes of other processes can make wait: writers
 * never take their lock). In the write scenarios every writer has its own conversation, so a writer's
 * lock wait is a wait between different conversations (target 0).
 */
export function sampleWaits(url: string): { stop(): Promise<string> } {
  const client = new pg.Client({ connectionString: url });
  const counts = new Map<string, number>();
  const writerWaits = new Set<string>();
  const passWaits = new Set<string>();
  const started = Date.now();
  let samples = 0;
  let done = false;
  const loop = (async () => {
    await client.connect();
    while (!done) {
      const { rows } = await client.query<{ w: string; lock: string | null; pass: boolean }>(
        `select coalesce(wait_event_type, 'CPU') || ':' || coalesce(wait_event, 'running')
                || case when wait_event_type = 'Lock' then ' at "' || left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 48) || '…"' else '' end as w,
                case when wait_event_type = 'Lock' then pid || '@' || query_start end as lock,
                query like 'with pass_lock as%' as pass
           from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and state = 'active' and backend_type = 'client backend'`,
      );
      samples++;
      for (const { w, lock, pass } of rows) {
        counts.set(w, (counts.get(w) ?? 0) + 1);
        if (lock) (pass ? passWaits : writerWaits).add(lock);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    await client.end();
  })();
  return {
    async stop() {
      done = true;
      await loop.catch(() => undefined);
      const seconds = (Date.now() - started) / 1000;
      const list = [...counts]
        .sort((a, b) => b[1] - a[1])
        .map(([w, n]) => `${w} ${n}`)
        .join(', ');
      const rate = (n: number) => (n / seconds).toFixed(1);
      return (
        `lock waits/s: writers ${rate(writerWaits.size)}, sequencer passes ${rate(passWaits.size)}; ` +
        `${samples} samples of pg_stat_activity, active sessions by wait: ${list || 'none'}`
      );
    },
  };
}
