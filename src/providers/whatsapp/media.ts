import { idSegment } from '../messaging.js';
import http from 'node:http';
import https from 'node:https';
import { parseAnswer, providerFailure } from './client.js';

/** What `GET {base}/{media id}` answers (CONTRACT §12.3). */
export interface MediaInfo {
  url: string;
  mime_type: string | null;
  sha256: string | null;
  file_size: number | null;
}

/** A failed call: whether a later attempt may succeed, and the reason (`"CODE: TEXT"`, `"timeout"`, `"HTTP 503"`). */
export class MediaFetchError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

const MAX_INFO_BYTES = 64 * 1024;

/**
 * The Cloud API's media endpoints, for downloads: the file's metadata (a URL valid 5 minutes) and its
 * bytes from that URL, both with the agent's bearer token. Cut when nothing arrives for `timeoutMs`
 * (a large file may take longer than that in all, never idle that long). Keep-alive connections.
 */
export class WhatsAppMediaClient {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(private readonly opts: { baseUrl: string; timeoutMs: number; maxSockets: number }) {
    const agent = { keepAlive: true, maxSockets: opts.maxSockets, timeout: 30_000 };
    this.httpAgent = new http.Agent(agent);
    this.httpsAgent = new https.Agent(agent);
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  async info(providerMediaId: string, token: string): Promise<MediaInfo> {
    const res = await this.get(`${this.opts.baseUrl.replace(/\/+$/, '')}/${idSegment(providerMediaId)}`, token);
    const text = await readSome(res, MAX_INFO_BYTES);
    const body = parseAnswer(text);
    if ((res.statusCode ?? 0) !== 200) throw failure(res.statusCode ?? 0, body, token);
    if (typeof body?.url !== 'string' || !/^https?:\/\//.test(body.url)) throw new MediaFetchError('the media answer has no url', true);
    const size = Number(body.file_size);
    return {
      url: body.url,
      mime_type: typeof body.mime_type === 'string' ? body.mime_type : null,
      sha256: typeof body.sha256 === 'string' ? body.sha256 : null,
      file_size: Number.isFinite(size) && size >= 0 ? size : null,
    };
  }

  /** The bytes, as the response stream (status 200); an expired URL (404, 403, 410) is retried with a new one. */
  async download(url: string, token: string): Promise<http.IncomingMessage> {
    const res = await this.get(url, token);
    const status = res.statusCode ?? 0;
    if (status === 200) return res;
    const body = parseAnswer(await readSome(res, MAX_INFO_BYTES));
    const err = failure(status, body, token);
    throw [403, 404, 410].includes(status) ? new MediaFetchError(`${err.message} (expired URL?)`, true) : err;
  }

  private get(url: string, token: string): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return reject(new MediaFetchError('invalid url', false));
      }
      const secure = target.protocol === 'https:';
      const req = (secure ? https : http).get(target, {
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: { authorization: `Bearer ${token}`, 'user-agent': 'OrderGraph-Media/1' },
      });
      req.setTimeout(this.opts.timeoutMs, () => req.destroy(new MediaFetchError('timeout', true)));
      req.on('response', (res) => {
        // the idle limit goes on while the body streams; its listener leaves with the response, or a keep-alive
        // socket would gather one per request (MaxListenersExceededWarning after ten)
        const socket = res.socket;
        const idle = () => res.destroy(new MediaFetchError('timeout', true));
        socket.setTimeout(this.opts.timeoutMs);
        socket.on('timeout', idle);
        res.once('close', () => socket.off('timeout', idle));
        resolve(res);
      });
      req.on('error', (err: NodeJS.ErrnoException) =>
        reject(
          err instanceof MediaFetchError
            ? err
            : new MediaFetchError(err.code ? `connection error (${err.code})` : 'connection error', true),
        ),
      );
    });
  }
}

async function readSome(res: http.IncomingMessage, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    size += (chunk as Buffer).length;
    if (size <= max) chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function failure(status: number, body: any, token: string): MediaFetchError {
  const { error, retry } = providerFailure(status, body, token);
  return new MediaFetchError(error, retry);
}
