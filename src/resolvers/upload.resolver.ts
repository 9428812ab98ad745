import { Arg, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/index.js';

@ObjectType({ simpleResolvers: true, description: 'A file the project uploaded to send in replies.' })
export class AiUploadedFile {
  @Field(() => String, { description: 'Ours (med_…): the payload.media_id of a reply.' }) id!: string;
  @Field(() => String) mime_type!: string;
  @Field(() => Int, { description: 'In bytes.' }) size!: number;
  @Field(() => String, { description: 'The hex SHA-256 of the bytes.' }) sha256!: string;
  @Field(() => String, { nullable: true }) filename!: string | null;
  @Field(() => Date) created_at!: Date;
}

/** Files a project sends (CONTRACT §12.5): the upload itself is REST only (multipart); the graph reads its record. */
@Resolver()
export class UploadResolver {
  @Query(() => AiUploadedFile, {
    description: 'An uploaded file of the project (POST /ai/media answers it; GET /ai/media/{media_id} serves its bytes).',
  })
  aiUploadedFile(@Ctx() ctx: RequestContext, @Arg('media_id', () => String) mediaId: string): Promise<AiUploadedFile> {
    return ctx.services.mediaUploads.get(ctx, mediaId);
  }
}
