import type { NonEmptyArray } from 'type-graphql';
import { AuthResolver } from './auth.resolver.js';
import { ConfigResolver } from './config.resolver.js';
import { SystemResolver } from './system.resolver.js';

/** Every resolver of the one schema. */
export const RESOLVERS: NonEmptyArray<Function> = [AuthResolver, ConfigResolver, SystemResolver];
