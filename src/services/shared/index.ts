/** What every list shares: `params`, `where`, `orderBy` and pagination, typed and bounded per attribute (CONTRACT §3). */
export * from './list-query.js';
