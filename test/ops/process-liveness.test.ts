import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import os from 'node:os';
import { PID_NAMESPACE, ProcessLiveness } from '../../src/workers/process-liveness.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

/**
 * The heartbeat under the outboxes (CONTRACT §10.1, docs/scaling.md "Outbox liveness"), against the
 * real database, with a short beat (100 ms, dead after 400 ms): a claim of a process that stopped
 * beating is released by another; a claim of a row that beats is not; a process whose row was
 * deleted (declared dead) takes a new identity and frees its old claims. The two-process SIGKILL
 * cases are in test/cluster/.
 */
const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
let db: TestDatabase;
const running: ProcessLiveness[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table liveness_probe (id int primary key, claimed_by uuid null, next_attempt_at timestamptz null)');
});
afterAll(async () => {
  await Promise.all(running.map((l) => l.stop()));
  await db.orm.close();
});

async function start(node: string): Promise<{ liveness: ProcessLiveness; wakes: () => number }> {
  let n = 0;
  const liveness = new ProcessLiveness({ url: db.url, node, log, beatMs: 100, deadAfterMs: 400 });
  liveness.register('liveness_probe', () => n++);
  await liveness.start();
  running.push(liveness);
  return { liveness, wakes: () => n };
}

const claim = (id: number, owner: string) =>
  db.sql(
    `insert into liveness_probe values (?, ?::uuid, now() + interval '1 hour')
     on conflict (id) do update set claimed_by = excluded.claimed_by, next_attempt_at = excluded.next_attempt_at`,
    [id, owner],
  );
const probe = async (id: number) =>
  (
    await db.sql<{ claimed_by: string | null; due: boolean }>(
      'select claimed_by, next_attempt_at <= now() as due from liveness_probe where id = ?',
      [id],
    )
  )[0];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('process liveness', () => {
  it('frees the claims of a process that stopped beating, never those of one that beats', async () => {
    const { liveness, wakes } = await start('live-node');
    expect(liveness.fresh()).toBe(true);
    const dead = '00000000-0000-4000-8000-00000000dead';
    const quiet = '00000000-0000-4000-8000-0000000a11fe';
    await db.sql(
      "insert into process_heartbeats (id, node, host, pid, beat_at) values (?, 'gone', 'elsewhere', 1, now() - interval '1 second')",
      [dead],
    );
    // a row that looks alive for an hour (no process beats it, but its age is what counts)
    await db.sql(
      "insert into process_heartbeats (id, node, host, pid, beat_at) values (?, 'far', 'elsewhere', 1, now() + interval '1 hour')",
      [quiet],
    );
    await claim(1, dead);
    await claim(2, quiet);
    await claim(3, liveness.id);
    const before = wakes();
    await sleep(600);
    expect(await probe(1)).toEqual({ claimed_by: null, due: true });
    expect(await db.sql('select 1 from process_heartbeats where id = ?', [dead])).toEqual([]);
    expect(wakes()).toBeGreaterThan(before);
    expect(await probe(2)).toEqual({ claimed_by: quiet, due: false });
    expect(await probe(3)).toEqual({ claimed_by: liveness.id, due: false });
  });

  it('a process whose row was deleted (declared dead) takes a new identity and frees the claims of the old one', async () => {
    const { liveness } = await start('declared-dead');
    const old = liveness.id;
    await claim(4, old);
    await db.sql('delete from process_heartbeats where id = ?', [old]);
    await sleep(400);
    expect(liveness.id).not.toBe(old);
    expect(liveness.fresh()).toBe(true);
    expect(await probe(4)).toEqual({ claimed_by: null, due: true });
    expect((await db.sql<{ id: string }>("select id::text from process_heartbeats where node = 'declared-dead'")).map((r) => r.id)).toEqual(
      [liveness.id],
    );
  });

  it('a restart on the same node frees its predecessor at once (its pid runs no more); a clean stop frees its own row and claims', async () => {
    const dead = '00000000-0000-4000-8000-0000000b0b0b';
    // the predecessor beat a moment ago, so only the takeover at start can free it: pid 2^22 + 1 is above Linux's pid_max
    await db.sql(
      "insert into process_heartbeats (id, node, host, pid, pid_namespace, beat_at) values (?, 'restarted', ?, 4194305, ?, now() + interval '1 hour')",
      [dead, os.hostname(), PID_NAMESPACE],
    );
    await claim(5, dead);
    const { liveness } = await start('restarted');
    expect(await probe(5)).toEqual({ claimed_by: null, due: true });
    await claim(6, liveness.id);
    await liveness.stop();
    expect(liveness.fresh()).toBe(false);
    expect(await probe(6)).toEqual({ claimed_by: null, due: true });
    expect(await db.sql("select 1 from process_heartbeats where node = 'restarted'")).toEqual([]);
  });

  it('never takes over a fresh heartbeat it cannot prove dead: another pid namespace (same host, same pid), or none recorded (§11)', async () => {
    expect(PID_NAMESPACE).toMatch(/pid:\[\d+\]$/);
    // another container of the same hostname and node name, at the same pid as ours; and a row of an older version
    const twin = '00000000-0000-4000-8000-0000000c0c0c';
    const older = '00000000-0000-4000-8000-0000000c0c0d';
    await db.sql(
      `insert into process_heartbeats (id, node, host, pid, pid_namespace, beat_at) values
         (?, 'twins', ?, ?, ?, now() - interval '300 milliseconds'),
         (?, 'twins', ?, 4194305, null, now() - interval '300 milliseconds')`,
      [twin, os.hostname(), process.pid, `${PID_NAMESPACE} other-container`, older, os.hostname()],
    );
    await claim(7, twin);
    await claim(8, older);
    const { liveness } = await start('twins');
    expect(await probe(7)).toEqual({ claimed_by: twin, due: false });
    expect(await probe(8)).toEqual({ claimed_by: older, due: false });
    // while they beat, they keep them
    for (let i = 0; i < 5; i++) {
      await db.sql('update process_heartbeats set beat_at = now() where id in (?, ?)', [twin, older]);
      await sleep(100);
    }
    expect((await probe(7)).claimed_by).toBe(twin);
    expect((await probe(8)).claimed_by).toBe(older);
    // once they stop beating, the old-heartbeat rule frees them
    await sleep(800);
    expect(await probe(7)).toEqual({ claimed_by: null, due: true });
    expect(await probe(8)).toEqual({ claimed_by: null, due: true });
    await liveness.stop();
  });
});
