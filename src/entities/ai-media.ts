import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { TenantEntity } from './tenant.js';

export const MEDIA_STATUSES = ['pending', 'stored', 'failed'] as const;
export type MediaStatus = (typeof MEDIA_STATUSES)[number];
export type MediaOrigin = 'inbound' | 'upload';
export type MediaStorage = 'pg' | 's3';

/**
 * A file kept by the service (CONTRACT §12.3, §12.5): received from a customer (downloaded from the
 * Cloud API by workers/media-downloader.ts) or uploaded by the project. The graph shows MEDIA; where
 * the bytes are and the download job's columns stay inside.
 */
@ObjectType('AiMedia', { simpleResolvers: true, description: 'A stored file.' })
@Entity({ tableName: 'ai_media' })
export class AiMedia extends TenantEntity {
  @Field(() => String, { description: 'Ours: random, not guessable, unique in the service.' })
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Field(() => String, { description: 'pending (being downloaded), stored or failed.' })
  @Property({ type: 'text' })
  status: Opt<MediaStatus> = 'pending';

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  mime_type?: string | null;

  @Field(() => Int, { nullable: true, description: 'In bytes, once stored.' })
  @Property({ nullable: true })
  size?: number | null;

  @Field(() => String, { nullable: true, description: 'The hex SHA-256 of the stored bytes.' })
  @Property({ type: 'text', nullable: true })
  sha256?: string | null;

  @Field(() => String, { nullable: true, description: 'Why the file failed, else null.' })
  @Property({ type: 'text', nullable: true })
  error?: string | null;

  @Property({ type: 'text' })
  origin!: MediaOrigin;

  @Property({ nullable: true })
  conversation_id?: number | null;

  @Property({ nullable: true })
  message_id?: number | null;

  @Property({ nullable: true })
  agent_id?: number | null;

  @Property({ type: 'text', nullable: true })
  filename?: string | null;

  @Property({ type: 'text', nullable: true })
  provider_media_id?: string | null;

  @Property({ type: 'text' })
  storage: Opt<MediaStorage> = 'pg';

  /** The download attempt whose bytes the file holds (CONTRACT §12.7); 0 for uploads and files stored before attempts named them. */
  @Property()
  generation: Opt<number> = 0;

  @Property({ type: 'datetime' })
  created_at: Opt<Date> = new Date();

  @Property({ type: 'datetime', onUpdate: () => new Date() })
  updated_at: Opt<Date> = new Date();
}
