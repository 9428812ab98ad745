/**
 * An advisory lock's second key from a 64-bit id (CONTRACT §16: ids are bigint): `pg_advisory_xact_lock(int, int)`
 * takes 32-bit keys, and an id past 2^31 cast to int is an error. The id modulo 2^31 - 1 is the id itself below it,
 * so the keys of today's ids are unchanged (processes of two versions still share them); two ids that meet on a key
 * only wait for each other, the lock decides nothing else.
 */
export const ID_KEY = '(?::bigint % 2147483647)::int';
