import net from 'node:net';
import { Transform, pipeline, type TransformCallback } from 'node:stream';

/**
 * A TCP proxy on 127.0.0.1 between the service and a test's S3 server (s3rver), that faults the way
 * an S3 endpoint does for real (as pg-faults.ts freezes PostgreSQL):
 * - `down()`: stops listening and drops every connection (the service gets ECONNREFUSED), `up()` listens again on the same port;
 * - `hold()`: connections are accepted and kept but nothing passes either way (a frozen or black-holed endpoint);
 *   `hold('answers')`: requests reach S3, its answers do not (an answer lost); `release()`;
 * - `slow(bytesPerSecond)`: both ways trickle (`slow(0)`: full speed again);
 * - `cut()`: drops the connections open now; `cutAfter(bytes)`: drops the first connection that carries that many bytes up (mid-upload), once.
 * `upBytes` counts what went to S3.
 */
export class S3FaultProxy {
  upBytes = 0;
  /** Connections dropped by `cutAfter`. */
  cuts = 0;
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private held: { promise: Promise<void>; resolve: () => void; answersOnly: boolean } | null = null;
  private rate = 0;
  private cutAt: number | null = null;

  private constructor(
    private readonly target: { host: string; port: number },
    public port: number,
  ) {}

  static async start(targetUrl: string): Promise<S3FaultProxy> {
    const u = new URL(targetUrl);
    const proxy = new S3FaultProxy({ host: u.hostname, port: Number(u.port) }, 0);
    await proxy.up();
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((client) => this.connect(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.cut();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  hold(what: 'both' | 'answers' = 'both'): void {
    if (this.held) return;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    this.held = { promise, resolve, answersOnly: what === 'answers' };
  }

  release(): void {
    this.held?.resolve();
    this.held = null;
  }

  slow(bytesPerSecond: number): void {
    this.rate = bytesPerSecond;
  }

  cut(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  cutAfter(bytes: number | null): void {
    this.cutAt = bytes;
  }

  async close(): Promise<void> {
    this.release();
    await this.down();
  }

  private connect(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    this.sockets.add(client);
    this.sockets.add(upstream);
    let sent = 0;
    const drop = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('close', drop);
    upstream.on('close', drop);
    const gate = (up: boolean) =>
      new Gate(async (n) => {
        if (this.held && !(up && this.held.answersOnly)) await this.held.promise;
        if (this.rate > 0) await new Promise((r) => setTimeout(r, (n / this.rate) * 1000));
        if (!up) return true;
        sent += n;
        this.upBytes += n;
        if (this.cutAt !== null && sent >= this.cutAt) {
          this.cutAt = null;
          this.cuts++;
          drop();
          return false;
        }
        return true;
      });
    pipeline(client, gate(true), upstream, () => drop());
    pipeline(upstream, gate(false), client, () => drop());
  }
}

/** Passes each chunk once `admit` says so (false: the chunk is dropped, the connection with it). */
class Gate extends Transform {
  constructor(private readonly admit: (n: number) => Promise<boolean>) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.admit(chunk.length).then(
      (ok) => (ok ? done(null, chunk) : done()),
      (err: Error) => done(err),
    );
  }
}
