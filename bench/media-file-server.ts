import fs from 'node:fs';
import Fastify from 'fastify';

/**
 * The reference of `npm run bench:media`'s serving figure: a bare Fastify route streaming one local
 * file (`FILE`, answered as `CONTENT_TYPE`) with `Content-Length`, nothing else. Runs as its own
 * process with `serve`'s node flags, so both sides are one Node process on the same host.
 */
const file = process.env.FILE!;
const size = fs.statSync(file).size;
const app = Fastify({ logger: false });
app.get('/health/live', async () => ({ ok: true }));
app.get('/file', (_req, reply) => {
  reply.header('content-type', process.env.CONTENT_TYPE ?? 'application/octet-stream').header('content-length', size);
  return reply.send(fs.createReadStream(file));
});
app.listen({ port: Number(process.env.PORT), host: process.env.HOST ?? '127.0.0.1' }).catch((err) => {
  console.error(err);
  process.exit(1);
});
