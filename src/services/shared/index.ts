/** What every list shares: `params`, `where`, `orderBy` and pagination, typed and bounded per attribute (CONTRACT §3). */
export * from './list-query.js';
/** A write whose unique index refuses a duplicate as a 400 naming its field. */
export * from './unique.js';
