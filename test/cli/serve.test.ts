import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt } from '../support/dist.js';
import { freePort } from '../support/net.js';

/** The newcomer's path: `ordergraph serve` on an empty data folder, with the embedded database. */
describe('ordergraph serve (embedded database, demo project)', () => {
  let dataDir: string;
  let child: ChildProcess;
  let output = '';
  let base: string;
  let exit: Promise<number | null>;

  beforeAll(async () => {
    await ensureBuilt();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ordergraph-serve-'));
    fs.chmodSync(dataDir, 0o755);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    child = spawn(process.execPath, [CLI, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    exit = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor(
      () => output.includes('server API key'),
      90_000,
      () => output,
    );
  }, 150_000);

  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints credentials that authenticate, and the token reads the configs', async () => {
    const password = /administrator\s+admin@demo\.test \/ (\S+)/.exec(output)?.[1];
    expect(password).toBeTruthy();
    const auth = await fetch(`${base}/v400/en/demo/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@demo.test', password }),
    });
    expect(auth.status).toBe(200);
    const token = ((await auth.json()) as any).result.session.access_token;
    const configs = await fetch(`${base}/v400/en/demo/configs`, { headers: { authorization: `Bearer ${token}` } });
    expect(configs.status).toBe(200);
    const body = (await configs.json()) as any;
    expect(body.result.map((e: { key: string }) => e.key)).toContain('project_code');
  });

  it('answers with the printed server key too', async () => {
    const key = /server API key\s+(\S+)/.exec(output)?.[1];
    const res = await fetch(`${base}/v400/en/demo/configs?mode=dictionary`, { headers: { 'x-api-key': key! } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).result.project_code.value).toBe('demo');
  });

  it('finishes an in-flight request on SIGTERM, then stops the embedded database and exits 0', async () => {
    const password = /administrator\s+admin@demo\.test \/ (\S+)/.exec(output)![1];
    const body = JSON.stringify({ email: 'admin@demo.test', password });
    const half = Math.floor(body.length / 2);
    // The request is surely in flight: its headers and half its body are on the server when SIGTERM arrives.
    const req = http.request(`${base}/v400/en/demo/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, half));
    await new Promise((r) => setTimeout(r, 500));
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    req.end(body.slice(half));
    const res = await answer;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).result.session.access_token).toBeTruthy();
    expect(await exit).toBe(0);
    // The embedded server is gone: its pid file is removed on a clean shutdown.
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  }, 60_000);

  it('loads a fixture file twice (idempotent) and migrates, on the same embedded database', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
    delete env.DATABASE_URL;
    const file = path.join(dataDir, 'fixture.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        projects: [
          {
            code: 'cli-proj',
            name: 'CLI',
            businesses: [{ id: 5001, name: 'B' }],
            users: [{ id: 5001, email: 'u@cli.test', password: 'pw-123456', level: 0 }],
          },
        ],
      }),
    );
    for (let i = 0; i < 2; i++) {
      const run = spawnSync(process.execPath, [CLI, 'fixtures', 'load', file], { env, encoding: 'utf8', timeout: 120_000 });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain('loaded 1 project(s): cli-proj');
    }
    const migrate = spawnSync(process.execPath, [CLI, 'migrate'], { env, encoding: 'utf8', timeout: 120_000 });
    expect(migrate.status, migrate.stderr).toBe(0);
  }, 240_000);
});

async function waitFor(check: () => boolean, ms: number, detail: () => string): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out; output:\n${detail()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
