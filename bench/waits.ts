import pg from 'pg';

/**
 * Samples pg_stat_activity every 10 ms while a bench run lasts: the wait events of the other
 * sessions of the bench database that are running a statement, counted by `type:event`. Lock waits
 * tell what writers wait on: `Lock:advisory` is the per-project event lock of appendEvents (event
 * ids follow commit order), `Lock:transactionid` / `Lock:tuple` are row locks. Each lock wait is
 * also counted by the statement that waits (its first words), which tells a wait for a
 * conversation's row (at `select … for no key update`) from one inside the metrics rollup trigger
 * of `update ai_conversations` (a rollup row shared by the project's writers).
 */
export function sampleWaits(url: string): { stop(): Promise<string> } {
  const client = new pg.Client({ connectionString: url });
  const counts = new Map<string, number>();
  let samples = 0;
  let done = false;
  const loop = (async () => {
    await client.connect();
    while (!done) {
      const { rows } = await client.query<{ w: string }>(
        `select coalesce(wait_event_type, 'CPU') || ':' || coalesce(wait_event, 'running')
                || case when wait_event_type = 'Lock' then ' at "' || left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 48) || '…"' else '' end as w
           from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and state = 'active' and backend_type = 'client backend'`,
      );
      samples++;
      for (const { w } of rows) counts.set(w, (counts.get(w) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 10));
    }
    await client.end();
  })();
  return {
    async stop() {
      done = true;
      await loop.catch(() => undefined);
      const list = [...counts].sort((a, b) => b[1] - a[1]).map(([w, n]) => `${w} ${n}`).join(', ');
      return `${samples} samples of pg_stat_activity, active sessions by wait: ${list || 'none'}`;
    },
  };
}
