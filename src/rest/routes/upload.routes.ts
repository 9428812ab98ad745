import { ACCESS } from '../../services/identity/access.js';
import type { RouteSpec } from '../route-spec.js';
import { guardedUpload } from '../upload-body.js';

/**
 * Files a project sends (CONTRACT §12.5). `POST /ai/media` is multipart/form-data with one part `file`,
 * streamed into the media store while it arrives (413 once past its limit; the whole body bounded and
 * counted by rest/upload-body.ts, the bytes checked against the declared type); then the operation reads
 * the stored file's record. `GET /ai/media/{media_id}` serves an uploaded file's bytes (ETag, Range, 304).
 */
export const uploadRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/ai/media',
    operation: 'UploadAiMedia',
    summary:
      'Uploads a file to send in replies (multipart/form-data, one part `file` with its Content-Type): images (JPEG, PNG; 5 MB), video (MP4, 3GPP; 16 MB), audio (AAC, AMR, MP3, MP4, OGG; 16 MB), stickers (WebP; 500 KB), documents (PDF, text, Office; 100 MB)',
    tags: ['ai-media'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    upload: async (ctx, req) => ({
      media_id: await guardedUpload(req, ctx.services.media.config.maxBytes, (part) => ctx.services.mediaUploads.upload(ctx, part)),
    }),
    variables: ({ body }) => ({ media_id: body.media_id }),
  },
  {
    method: 'GET',
    path: '/ai/media/:media_id',
    operation: 'AiUploadedFile',
    errors: ['ERROR_AI_MEDIA_NOT_FOUND', 'ERROR_AI_MEDIA_UNAVAILABLE'],
    summary:
      "An uploaded file's bytes (Content-Type, ETag, Range → 206, If-None-Match → 304); a customer's file is served by its message's route",
    tags: ['ai-media'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    schema: { params: { type: 'object', properties: { media_id: { type: 'string', maxLength: 100 } }, required: ['media_id'] } },
    variables: ({ params }) => ({ media_id: params.media_id }),
    file: (data) => ({ media_id: data.aiUploadedFile.id }),
  },
];
