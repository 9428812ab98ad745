import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WhatsAppMediaClient } from '../../src/providers/whatsapp/media.js';

/**
 * The media client's idle limit on a keep-alive socket (issue 57: `MaxListenersExceededWarning: 11 timeout
 * listeners added to [Socket]` in the server's log): each response's listener leaves with it.
 */
describe('WhatsAppMediaClient on a keep-alive connection', () => {
  let server: http.Server;
  let base: string;
  const sockets = new Set<unknown>();
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      sockets.add(req.socket);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ url: `${base}/file`, mime_type: 'image/jpeg', sha256: 'x', file_size: 3 }));
    });
    server.keepAliveTimeout = 10_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('twenty requests over one socket leave no timeout listener behind and warn nothing', async () => {
    const client = new WhatsAppMediaClient({ baseUrl: base, timeoutMs: 5_000, maxSockets: 1 });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 20; i++) expect((await client.info(`media-${i}`, 'token')).file_size).toBe(3);
      await new Promise((resolve) => setImmediate(resolve));
      expect(sockets.size).toBe(1); // one connection, reused
      const free = Object.values((client as unknown as { httpAgent: http.Agent }).httpAgent.freeSockets).flat();
      expect(free).toHaveLength(1);
      expect(free[0]!.listenerCount('timeout')).toBeLessThanOrEqual(2);
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      client.close();
    }
  });
});
