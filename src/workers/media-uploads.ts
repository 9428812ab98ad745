import { setTimeout as sleep } from 'node:timers/promises';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { MediaUploader, UploadOutcome } from '../providers/whatsapp/outbound.js';
import type { MediaStores } from '../services/media/index.js';
import type { MediaStorage } from '../entities/ai-media.js';

/** Meta keeps an uploaded file's id usable for 30 days (CONTRACT §12.4). */
const REUSE_DAYS = 30;
const POLL_MS = 100;

/** A file of ours a reply sends by `media_id`, as the sender's claim reads it. */
export interface FileToSend {
  id: string;
  project_id: number;
  mime_type: string;
  size: number;
  filename: string | null;
  storage: MediaStorage;
  /** The attempt whose bytes the file holds (ai_media.generation). */
  generation?: number;
}

/**
 * Meta's id for a file of ours on a phone number (CONTRACT §12.4): uploaded once
 * (`POST {phone_number_id}/media`, streamed from the store) and reused for 30 days, kept in
 * `ai_media_uploads`. The upload is part of the send's attempt: its failure is the attempt's, retried
 * like it. One upload per file and phone number, however many replies send it at once: in this process
 * the replies share the upload in flight; across processes the row's lease makes the others wait for
 * the id (a lease left by a process that died runs out, and the next attempt uploads).
 */
export class MediaUploads {
  private readonly inFlight = new Map<string, Promise<UploadOutcome>>();

  constructor(private readonly opts: { orm: MikroORM; stores: MediaStores; uploader: MediaUploader; leaseMs: number; waitMs: number }) {}

  /** Meta's id for `file` on `phone`, uploading it when there is none younger than 30 days. */
  idFor(file: FileToSend, phone: string, token: string): Promise<UploadOutcome> {
    const key = `${file.id}\n${phone}`;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.once(file, phone, token).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async once(file: FileToSend, phone: string, token: string): Promise<UploadOutcome> {
    const known = await this.reusable(file.id, phone);
    if (known) return { ok: true, id: known };
    if (!(await this.lease(file, phone))) return this.waitForOther(file.id, phone);
    const store = this.opts.stores.of(file.storage);
    if (!store) return this.release(file.id, phone, { ok: false, retry: false, error: 'the file is in S3 and no bucket is configured' });
    let outcome: UploadOutcome;
    try {
      outcome = await this.opts.uploader.upload({
        phone_number_id: phone,
        access_token: token,
        mimeType: file.mime_type,
        filename: file.filename ?? file.id,
        size: file.size,
        open: () => store.read(file),
      });
    } catch {
      outcome = { ok: false, retry: true, error: 'the stored file cannot be read' };
    }
    if (!outcome.ok) return this.release(file.id, phone, outcome);
    await this.sql(
      `update ai_media_uploads set provider_media_id = ?, uploaded_at = now(), lease_until = now() where media_id = ? and phone_number_id = ?`,
      [outcome.id, file.id, phone],
    );
    return outcome;
  }

  private async reusable(mediaId: string, phone: string): Promise<string | null> {
    const [row] = await this.sql(
      `select provider_media_id from ai_media_uploads
        where media_id = ? and phone_number_id = ? and provider_media_id is not null and uploaded_at > now() - make_interval(days => ?)`,
      [mediaId, phone, REUSE_DAYS],
    );
    return row?.provider_media_id ?? null;
  }

  /** True when this process may upload: no usable id, and nobody else's lease running. */
  private async lease(file: FileToSend, phone: string): Promise<boolean> {
    const won = await this.sql(
      `insert into ai_media_uploads (media_id, phone_number_id, project_id, lease_until)
       values (?, ?, ?, clock_timestamp() + make_interval(secs => ?))
       on conflict (media_id, phone_number_id) do update
         set lease_until = excluded.lease_until, provider_media_id = null, uploaded_at = null
         where ai_media_uploads.lease_until < clock_timestamp()
           and (ai_media_uploads.uploaded_at is null or ai_media_uploads.uploaded_at <= now() - make_interval(days => ?))
       returning media_id`,
      [file.id, phone, file.project_id, this.opts.leaseMs / 1000, REUSE_DAYS],
    );
    return won.length > 0;
  }

  /** Another process is uploading the file: its id, once it has it (within `waitMs`), else a retry later. */
  private async waitForOther(mediaId: string, phone: string): Promise<UploadOutcome> {
    const deadline = Date.now() + this.opts.waitMs;
    while (Date.now() < deadline) {
      await sleep(POLL_MS);
      const id = await this.reusable(mediaId, phone);
      if (id) return { ok: true, id };
    }
    return { ok: false, retry: true, error: 'the file is being uploaded by another process' };
  }

  private async release(mediaId: string, phone: string, outcome: UploadOutcome): Promise<UploadOutcome> {
    await this.sql(
      `update ai_media_uploads set lease_until = now() where media_id = ? and phone_number_id = ? and provider_media_id is null`,
      [mediaId, phone],
    );
    return outcome;
  }

  private sql(sql: string, params: unknown[]): Promise<Record<string, any>[]> {
    return this.opts.orm.em.getConnection().execute<Record<string, any>[]>(sql, params, 'all');
  }
}
