import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * CONTRACT §16: a body refused while it arrives (413, a body too large for its route, or any other answer
 * sent before the request's body was read) is answered, and the client can read the answer. Node closes a
 * connection it answered with `Connection: close` as soon as the answer is written; bytes the client is
 * still sending then meet a closed socket, the kernel answers them with a reset, and the client sees a
 * broken pipe (or loses the answer) instead of the 413. So, as production servers do (nginx's
 * lingering close), the rest of such a body is read and discarded for a bounded time before the socket
 * closes: until the body ends, or DRAIN_BYTES more were read, or DRAIN_MS passed since the answer was
 * written, whichever comes first. A socket that is not closing (a keep-alive answer) is left to Node, which
 * reads the rest of the body itself.
 */
export const DRAIN_MS = 1000;
export const DRAIN_BYTES = 4 * 1024 * 1024;

export function drainRefusedBodies(app: FastifyInstance): void {
  app.addHook('onSend', (req, _reply, payload, done) => {
    if (!req.raw.complete) lingerOnClose(req.raw);
    done(null, payload);
  });
}

const LINGERING = Symbol('lingering');
type LingeringSocket = Socket & { [LINGERING]?: true };

/**
 * Defers the socket's close (`destroySoon`, which Node's HTTP server calls once an answer that closes the
 * connection is written) until the request's body ends or the bounds are reached; the body's bytes are
 * read and dropped meanwhile.
 */
function lingerOnClose(req: IncomingMessage): void {
  const socket = req.socket as LingeringSocket | null;
  // (light-my-request's injected requests have a socket of their own, without destroySoon: nothing to linger on)
  if (!socket || typeof socket.destroySoon !== 'function' || socket.destroyed || socket[LINGERING]) return;
  socket[LINGERING] = true;
  let ended = false;
  let closeRequested: (() => void) | null = null;
  const drop = () => undefined;
  req.on('data', drop); // flowing: what arrives is read and dropped
  req.once('end', () => {
    ended = true;
    closeRequested?.();
  });
  req.once('error', drop);

  const original = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    if (ended || socket.destroyed) return original();
    const startBytes = socket.bytesRead;
    let finished = false;
    const close = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearInterval(counter);
      req.off('data', drop);
      if (!socket.destroyed) original();
    };
    closeRequested = close;
    const timer = setTimeout(close, DRAIN_MS);
    // bytes, counted from the socket (Node's parser may read it natively, so no 'data' of the socket is seen)
    const counter = setInterval(() => {
      if (socket.bytesRead - startBytes >= DRAIN_BYTES) close();
    }, 20);
    timer.unref();
    counter.unref();
    socket.once('close', close);
  };
}
